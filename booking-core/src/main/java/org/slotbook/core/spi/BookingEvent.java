package org.slotbook.core.spi;

import org.slotbook.core.Booking;
import org.slotbook.core.internal.Checks;

/** Something that happened to a booking in a committed decision, with the booking as it is after it. */
public record BookingEvent(Kind kind, Booking booking) {
    public BookingEvent {
        Checks.notNull("kind", kind);
        Checks.notNull("booking", booking);
    }

    /**
     * What happened. LATE_CANCELLED: cancelled after the cancellation cutoff. PROMOTED: a waiter got a
     * freed seat, as a HELD booking under the waitlist request's id. CHECKED_IN: the student came.
     * NO_SHOW: the sweep found a CONFIRMED booking not checked in when its check-in window closed.
     */
    public enum Kind { HELD, CONFIRMED, CANCELLED, EXPIRED, LATE_CANCELLED, PROMOTED, CHECKED_IN, NO_SHOW }
}
