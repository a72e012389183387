package org.slotbook.core;

/**
 * Outcome of {@link BookingEngine#hold} and {@link BookingEngine#book}: {@link Held}, {@link Full},
 * {@link AlreadyBooked}, {@link Conflict}, {@link SlotNotOpen} or {@link NotFound} (no such slot).
 */
public sealed interface HoldResult permits Held, Full, AlreadyBooked, Conflict, SlotNotOpen, NotFound {
}
