package org.slotbook.core;

import java.time.Instant;

/** Check-in opens at {@code opensAt} ({@link BookingRules#checkInOpensBefore()} before the start). */
public record CheckInNotOpen(BookingId bookingId, Instant opensAt) implements CheckInResult {
}
