package org.slotbook.core;

/**
 * Outcome of {@link BookingEngine#confirm}: {@link Confirmed}, {@link HoldExpired},
 * {@link AlreadyCancelled} or {@link NotFound}.
 */
public sealed interface ConfirmResult permits Confirmed, HoldExpired, AlreadyCancelled, NotFound {
}
