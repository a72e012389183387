package org.slotbook.core;

/**
 * The slot was full and the request asked to wait ({@link HoldRequest#orWaitlist()}): the student is
 * on the slot's waitlist, at {@link WaitlistEntry#position()}. When a seat comes free, the first
 * eligible waiter gets it in the same transaction that freed it, as a HELD booking with the request id
 * of the waitlist request. {@code replayed}: the same request id (or another waiting request of this
 * student for this slot) was already on the list; {@code entry} shows it as it is now.
 */
public record Waitlisted(WaitlistEntry entry, boolean replayed) implements HoldResult {
}
