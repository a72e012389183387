package org.slotbook.core.outbox;

import java.time.Instant;
import org.jspecify.annotations.Nullable;
import org.slotbook.core.Booking;
import org.slotbook.core.TenantId;
import org.slotbook.core.internal.Checks;
import org.slotbook.core.spi.BookingEvent;

/**
 * One booking event as the outbox stores it: written by the decision that made it, in the same call.
 * {@code id} is its position in the tenant's order (1, 2, 3, ... without gaps, given when the relay or a
 * pull first sees the event committed); it is the same on every delivery, so a host drops a duplicate by
 * it. Before it has a position (an event the deciding node delivers right after its commit) the pair
 * (booking id, kind) names it alike: a booking has each kind of event at most once.
 *
 * @param tenantId the tenant the event belongs to
 * @param id its position in the tenant's order (0 while it has none yet)
 * @param kind what happened
 * @param booking the booking as the decision left it (its slot, student, request, seat, status, ...)
 * @param writtenAt when the decision wrote it (the decision's instant)
 * @param state whether it was delivered
 * @param attempts the relay's failed tries so far
 * @param nextAttemptAt when the relay tries again after a failure (null: now)
 * @param lastError what the listener threw last (null: none)
 * @param deliveredAt when it was recorded delivered (null: not yet)
 */
public record OutboxEvent(TenantId tenantId, long id, BookingEvent.Kind kind, Booking booking, Instant writtenAt,
                          State state, int attempts, @Nullable Instant nextAttemptAt, @Nullable String lastError,
                          @Nullable Instant deliveredAt) {
    /**
     * Checks that the parts are present.
     *
     * @param tenantId the tenant the event belongs to
     * @param id its position in the tenant's order
     * @param kind what happened
     * @param booking the booking as the decision left it
     * @param writtenAt when the decision wrote it
     * @param state whether it was delivered
     * @param attempts the relay's failed tries so far
     * @param nextAttemptAt when the relay tries again
     * @param lastError what the listener threw last
     * @param deliveredAt when it was recorded delivered
     */
    public OutboxEvent {
        Checks.notNull("tenantId", tenantId);
        Checks.notNull("kind", kind);
        Checks.notNull("booking", booking);
        Checks.notNull("writtenAt", writtenAt);
        Checks.notNull("state", state);
    }

    /** {@return the event as the listener hears it} */
    public BookingEvent event() {
        return new BookingEvent(kind, booking);
    }

    /** Where an event is in its delivery. */
    public enum State {
        /** Not delivered yet (or re-delivery asked for). */
        PENDING,
        /** Delivered to the listener and recorded so, once. */
        DELIVERED,
        /** The listener failed on it for the bounded number of tries: set aside until an operator re-delivers it. */
        DEAD
    }
}
