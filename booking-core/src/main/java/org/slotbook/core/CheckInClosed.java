package org.slotbook.core;

import java.time.Instant;

/**
 * Check-in closed at {@code closedAt} ({@link BookingRules#checkInClosesAfterEnd()} after the end), or
 * the booking was already marked a no-show.
 */
public record CheckInClosed(BookingId bookingId, Instant closedAt) implements CheckInResult {
}
