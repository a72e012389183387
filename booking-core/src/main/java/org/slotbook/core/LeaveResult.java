package org.slotbook.core;

/**
 * Outcome of {@link BookingEngine#leaveWaitlist}: {@link LeftWaitlist}, {@link NotWaiting} (the entry
 * is no longer waiting: left before, skipped, or promoted) or {@link NotFound}.
 */
public sealed interface LeaveResult permits LeftWaitlist, NotWaiting, NotFound {
}
