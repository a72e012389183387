package org.slotbook.core;

import org.slotbook.core.outbox.OutboxEvent;

/**
 * Told about bookings after their transaction committed, never inside it, so a host can notify
 * students. A listener that throws never undoes a booking. Calls come on the thread that made the
 * change, right after its commit; keep them short or hand them off. Every event is also in the store's
 * outbox: an event that call did not deliver (the node died, the listener threw, the answer was lost)
 * reaches the listener through the relay, {@link #event}, at least once (see
 * {@link org.slotbook.core.outbox.Outbox}).
 */
public interface BookingListener {
    /**
     * A student got a hold (a HELD booking).
     *
     * @param booking the booking as it is after the change
     */
    default void held(Booking booking) {
    }

    /**
     * A booking was confirmed.
     *
     * @param booking the booking as it is after the change
     */
    default void confirmed(Booking booking) {
    }

    /**
     * A booking was cancelled, by the student or by staff, or with its slot.
     *
     * @param booking the booking as it is after the change
     */
    default void cancelled(Booking booking) {
    }

    /**
     * A hold ran out before it was confirmed; its seat went back.
     *
     * @param booking the booking as it is after the change
     */
    default void expired(Booking booking) {
    }

    /**
     * Cancelled after the cancellation cutoff, accepted as late (the host may charge). Default: {@link
     * #cancelled}.
     *
     * @param booking the booking as it is after the change
     */
    default void cancelledLate(Booking booking) {
        cancelled(booking);
    }

    /**
     * A waiter got a freed seat: a HELD booking under the waitlist request's id, to be confirmed before
     * {@link Booking#heldUntil()}.
     *
     * @param booking the booking as it is after the change
     */
    default void promoted(Booking booking) {
    }

    /**
     * The student checked in (or staff checked them in).
     *
     * @param booking the booking as it is after the change
     */
    default void checkedIn(Booking booking) {
    }

    /**
     * The session ended and its check-in window closed without a check-in ({@link
     * BookingRules#marksNoShows()}).
     *
     * @param booking the booking as it is after the change
     */
    default void noShow(Booking booking) {
    }

    /**
     * A waiter was passed over for a freed seat and left the list; {@link WaitlistEntry#reason()} says why.
     *
     * @param entry the waitlist entry
     */
    default void waitlistSkipped(WaitlistEntry entry) {
    }

    /**
     * The outbox relay delivers an event through this method: {@link OutboxEvent#id()} orders it within
     * its tenant and is the same on a repeat delivery, so a host that must not act twice drops an id it
     * has seen. A listener that throws here is tried again later (see {@link org.slotbook.core.outbox.Outbox}).
     * Only the relay calls it: right after a commit the engine calls the method of each event's kind, and
     * an event heard there is recorded delivered. So override the methods of the kinds you need (this
     * one's default calls them), and this one only to see the relay's ids as well.
     *
     * @param event the stored event
     */
    default void event(OutboxEvent event) {
        Booking booking = event.booking();
        switch (event.kind()) {
            case HELD -> held(booking);
            case CONFIRMED -> confirmed(booking);
            case CANCELLED -> cancelled(booking);
            case EXPIRED -> expired(booking);
            case LATE_CANCELLED -> cancelledLate(booking);
            case PROMOTED -> promoted(booking);
            case CHECKED_IN -> checkedIn(booking);
            case NO_SHOW -> noShow(booking);
            default -> throw new IllegalStateException("unknown event " + event.kind());
        }
    }

    /** A listener that ignores every event. */
    BookingListener NONE = new BookingListener() {
    };
}
