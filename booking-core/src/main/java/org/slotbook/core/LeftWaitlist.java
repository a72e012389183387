package org.slotbook.core;

/** This call took the student off the waitlist. */
public record LeftWaitlist(WaitlistEntry entry) implements LeaveResult {
}
