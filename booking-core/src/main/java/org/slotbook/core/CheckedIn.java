package org.slotbook.core;

/** The student is checked in ({@link Booking#attendance()} CHECKED_IN); {@code replayed} for a repeat. */
public record CheckedIn(Booking booking, boolean replayed) implements CheckInResult {
}
