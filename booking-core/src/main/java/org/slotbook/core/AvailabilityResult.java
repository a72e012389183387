package org.slotbook.core;

/**
 * Outcome of {@link BookingEngine#availability}: {@link Availability} (the seats of the slot), or
 * {@link NotFound} when the slot is not scheduled for this tenant, as {@link BookingEngine#hold}
 * answers for the same slot.
 */
public sealed interface AvailabilityResult permits Availability, NotFound {
}
