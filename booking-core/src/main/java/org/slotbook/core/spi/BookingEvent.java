package org.slotbook.core.spi;

import org.slotbook.core.Booking;
import org.slotbook.core.internal.Checks;

/** Something that happened to a booking in a committed decision, with the booking as it is after it. */
public record BookingEvent(Kind kind, Booking booking) {
    /**
     * Checks that the kind and the booking are present.
     *
     * @param kind what happened
     * @param booking the booking as the event left it
     */
    public BookingEvent {
        Checks.notNull("kind", kind);
        Checks.notNull("booking", booking);
    }

    /**
     * What happened. LATE_CANCELLED: cancelled after the cancellation cutoff. PROMOTED: a waiter got a
     * freed seat, as a HELD booking under the waitlist request's id. CHECKED_IN: the student came.
     * NO_SHOW: the sweep found a CONFIRMED booking not checked in when its check-in window closed.
     */
    public enum Kind {
        /** A student got a hold. */
        HELD,
        /** A hold was confirmed. */
        CONFIRMED,
        /** A booking was cancelled. */
        CANCELLED,
        /** A hold ran out before it was confirmed. */
        EXPIRED,
        /** A booking was cancelled after the cancellation cutoff. */
        LATE_CANCELLED,
        /** A waiter got a freed seat. */
        PROMOTED,
        /** The student came. */
        CHECKED_IN,
        /** The student did not come. */
        NO_SHOW
    }
}
