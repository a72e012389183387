package org.slotbook.core;

/**
 * Outcome of {@link BookingEngine#hold} and {@link BookingEngine#book}: {@link Held}, {@link Full},
 * {@link Waitlisted} (full, and the request asked to wait), {@link AlreadyBooked}, {@link Conflict},
 * {@link LimitReached}, {@link NotOpenYet} and {@link BookingClosed} (outside the slot's booking
 * window), {@link SlotNotOpen} (cancelled or over), {@link NotFound} (no such slot), or
 * {@link InsufficientCredits} (the slot has a cost and no package of the student can pay it), or
 * {@link NoLongerHeld} (a retry of a request whose booking was cancelled or expired since).
 */
public sealed interface HoldResult permits Held, NoLongerHeld, Full, AlreadyBooked, Conflict, SlotNotOpen, NotFound,
        NotOpenYet, BookingClosed, LimitReached, Waitlisted, InsufficientCredits {
}
