package org.slotbook.core;

/**
 * Outcome of {@link BookingEngine#checkIn}: {@link CheckedIn} (the first time, and {@code replayed} for
 * every repeat), {@link CheckInNotOpen} before the check-in window, {@link CheckInClosed} after it (or
 * when the booking was marked a no-show), {@link NotConfirmed} for a booking that is not CONFIRMED
 * (held, cancelled, expired), {@link InsufficientCredits} when credits are drawn at check-in and no
 * package can pay, {@link NotFound} for a booking that is not the caller's.
 */
public sealed interface CheckInResult permits CheckedIn, CheckInNotOpen, CheckInClosed, NotConfirmed,
        InsufficientCredits, NotFound {
}
