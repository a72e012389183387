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

    /** Cancelled after the cancellation cutoff, accepted as late (the host may charge). Default: {@link #cancelled}. */
    default void cancelledLate(Booking booking) {
        cancelled(booking);
    }

    /**
     * A waiter got a freed seat: a HELD booking under the waitlist request's id, to be confirmed before
     * {@link Booking#heldUntil()}.
     */
    default void promoted(Booking booking) {
    }

    /** The student checked in (or staff checked them in). */
    default void checkedIn(Booking booking) {
    }

    /** The session ended and its check-in window closed without a check-in ({@link BookingRules#marksNoShows()}). */
    default void noShow(Booking booking) {
    }

    /** A waiter was passed over for a freed seat and left the list; {@link WaitlistEntry#reason()} says why. */
    default void waitlistSkipped(WaitlistEntry entry) {
    }

    BookingListener NONE = new BookingListener() {
    };
}
