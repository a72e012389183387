package org.slotbook.core;

import org.slotbook.core.internal.Checks;

/** A booking with the slot it is for: a line of a student's bookings. */
public record BookedSession(Booking booking, Slot slot) {
    public BookedSession {
        Checks.notNull("booking", booking);
        Checks.notNull("slot", slot);
    }
}
