package org.slotbook.core;

/** Booking for this slot stopped at {@code closesAt} (by the store's clock); nothing was written. */
public record BookingClosed(SlotId slotId, java.time.Instant closesAt) implements HoldResult {
}
