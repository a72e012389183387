package org.slotbook.core;

/**
 * Told about bookings after their transaction committed, never inside it, so a host can notify
 * students. A listener that throws is logged and ignored: it never undoes a booking. Calls come on
 * the thread that made the change; keep them short or hand them off.
 */
public interface BookingListener {
    default void held(Booking booking) {
    }

    default void confirmed(Booking booking) {
    }

    default void cancelled(Booking booking) {
    }

    default void expired(Booking booking) {
    }

    BookingListener NONE = new BookingListener() {
    };
}
