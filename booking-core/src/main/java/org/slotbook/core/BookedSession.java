package org.slotbook.core;

import org.slotbook.core.internal.Checks;

/** A booking with the slot it is for: a line of a student's bookings. */
public record BookedSession(Booking booking, Slot slot) {
    /**
     * Checks that the booking and the slot are present and that the booking is of that slot.
     *
     * @param booking the student's booking
     * @param slot the slot the booking is of
     */
    public BookedSession {
        Checks.notNull("booking", booking);
        Checks.notNull("slot", slot);
    }
}
