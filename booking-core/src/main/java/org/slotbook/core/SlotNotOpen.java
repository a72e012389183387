package org.slotbook.core;

/** The slot was cancelled or has already ended; it takes no new holds. */
public record SlotNotOpen(SlotId slotId, SlotStatus status) implements HoldResult {
}
