package org.slotbook.core;

/** The entry is not waiting (any more): it left, was skipped or was promoted; nothing changed. */
public record NotWaiting(WaitlistEntry entry) implements LeaveResult {
}
