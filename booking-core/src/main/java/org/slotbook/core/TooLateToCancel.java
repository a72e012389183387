package org.slotbook.core;

import java.time.Instant;

/**
 * Free cancellation ended at {@code cutoff} and the cancellation policy refuses later cancels; the
 * booking stands as it was.
 */
public record TooLateToCancel(BookingId bookingId, Instant cutoff) implements CancelResult {
}
