package org.slotbook.core;

/** The student already holds or has confirmed a seat in this slot, under another request id. */
public record AlreadyBooked(Booking existing) implements HoldResult {
}
