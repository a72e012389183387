package org.slotbook.core;

/**
 * Outcome of {@link BookingEngine#cancel}: {@link Cancelled} the first time (marked {@link Cancelled#late()}
 * after the cancellation cutoff), {@link AlreadyCancelled} for every repeat (or for a hold that already
 * expired), {@link TooLateToCancel} when the policy refuses a late cancel, {@link NotFound} for a
 * booking that is not the caller's.
 */
public sealed interface CancelResult permits Cancelled, AlreadyCancelled, NotFound, TooLateToCancel {
}
