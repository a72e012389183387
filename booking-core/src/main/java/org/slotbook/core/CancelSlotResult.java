package org.slotbook.core;

/** Outcome of {@link BookingEngine#cancelSlot}: {@link SlotCancelled}, {@link AlreadyCancelled} or {@link NotFound}. */
public sealed interface CancelSlotResult permits SlotCancelled, AlreadyCancelled, NotFound {
}
