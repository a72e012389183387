package org.slotbook.core;

/**
 * Outcome of {@link BookingEngine#hold} and {@link BookingEngine#book}: {@link Held}, {@link Full},
 * {@link AlreadyBooked}, {@link Conflict}, {@link SlotNotOpen}, {@link NotFound} (no such slot), or
 * {@link NoLongerHeld} (a retry of a request whose booking was cancelled or expired since).
 */
public sealed interface HoldResult permits Held, NoLongerHeld, Full, AlreadyBooked, Conflict, SlotNotOpen, NotFound {
}
