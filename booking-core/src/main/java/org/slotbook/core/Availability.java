package org.slotbook.core;

/**
 * Seats of a slot as the ledger sees them at one instant: {@code remaining = capacity - held - confirmed},
 * where {@code held} counts live (unexpired) holds only.
 */
public record Availability(SlotId slotId, SlotStatus status, int capacity, int held, int confirmed, int remaining)
        implements AvailabilityResult {
}
