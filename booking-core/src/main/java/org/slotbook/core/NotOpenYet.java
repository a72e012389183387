package org.slotbook.core;

/** Booking for this slot opens at {@code opensAt} (by the store's clock); nothing was written. */
public record NotOpenYet(SlotId slotId, java.time.Instant opensAt) implements HoldResult {
}
