package org.slotbook.core;

/** This call called the session off: {@code bookingsReleased} bookings were cancelled, every seat freed. */
public record SlotCancelled(Slot slot, int bookingsReleased) implements CancelSlotResult {
}
