package org.slotbook.spring;

import org.slotbook.core.Booking;
import org.slotbook.core.spi.BookingEvent;
import org.springframework.context.ApplicationEvent;

/**
 * A booking event published as a Spring application event ({@code slotbook.outbox.spring-events=true}):
 * right after the decision's commit by the node that made it, and by the outbox relay for an event that
 * was not delivered then, so an {@code @EventListener} hears every event at least once. {@link #id()} is
 * the event's position in its tenant's order when the relay delivers it (0 right after the commit); the
 * booking id and kind name the event either way.
 */
public final class SlotbookBookingEvent extends ApplicationEvent {
    private static final long serialVersionUID = 1L;

    private final transient BookingEvent event;
    /** The event's id in its tenant's order (0: not known yet). */
    private final long id;

    /**
     * An event about {@code event}'s booking.
     *
     * @param event what happened, and the booking as it is after it
     * @param id the event's id in its tenant's order (0: not known yet)
     */
    public SlotbookBookingEvent(BookingEvent event, long id) {
        super(event.booking());
        this.event = event;
        this.id = id;
    }

    /** {@return what happened} */
    public BookingEvent.Kind kind() {
        return event.kind();
    }

    /** {@return the booking as the event left it} */
    public Booking booking() {
        return event.booking();
    }

    /** {@return the event's id in its tenant's order; 0 when published right after the commit} */
    public long id() {
        return id;
    }

    /** {@return the event itself} */
    public BookingEvent event() {
        return event;
    }
}
