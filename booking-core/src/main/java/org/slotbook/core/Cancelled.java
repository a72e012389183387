package org.slotbook.core;

/** This call cancelled the booking and gave its seat back. */
public record Cancelled(Booking booking) implements CancelResult {
}
