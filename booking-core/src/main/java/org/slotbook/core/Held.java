package org.slotbook.core;

/**
 * The student has a seat. {@code replayed} is true when this answers a retry of a request id that
 * was already granted; {@code booking} then shows the booking as it is now.
 */
public record Held(Booking booking, boolean replayed) implements HoldResult {
}
