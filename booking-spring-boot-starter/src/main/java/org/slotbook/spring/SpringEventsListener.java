package org.slotbook.spring;

import org.slotbook.core.Booking;
import org.slotbook.core.BookingListener;
import org.slotbook.core.WaitlistEntry;
import org.slotbook.core.outbox.OutboxEvent;
import org.slotbook.core.spi.BookingEvent;
import org.springframework.context.ApplicationEventPublisher;

/** The application's listener (or none), and each event published as a {@link SlotbookBookingEvent} after it. */
final class SpringEventsListener implements BookingListener {
    private final BookingListener listener;
    private final ApplicationEventPublisher publisher;

    SpringEventsListener(BookingListener listener, ApplicationEventPublisher publisher) {
        this.listener = listener;
        this.publisher = publisher;
    }

    private void publish(BookingEvent.Kind kind, Booking booking, long id) {
        publisher.publishEvent(new SlotbookBookingEvent(new BookingEvent(kind, booking), id));
    }

    @Override
    public void event(OutboxEvent event) {
        listener.event(event);
        publish(event.kind(), event.booking(), event.id());
    }

    @Override
    public void held(Booking booking) {
        listener.held(booking);
        publish(BookingEvent.Kind.HELD, booking, 0);
    }

    @Override
    public void confirmed(Booking booking) {
        listener.confirmed(booking);
        publish(BookingEvent.Kind.CONFIRMED, booking, 0);
    }

    @Override
    public void cancelled(Booking booking) {
        listener.cancelled(booking);
        publish(BookingEvent.Kind.CANCELLED, booking, 0);
    }

    @Override
    public void expired(Booking booking) {
        listener.expired(booking);
        publish(BookingEvent.Kind.EXPIRED, booking, 0);
    }

    @Override
    public void cancelledLate(Booking booking) {
        listener.cancelledLate(booking);
        publish(BookingEvent.Kind.LATE_CANCELLED, booking, 0);
    }

    @Override
    public void promoted(Booking booking) {
        listener.promoted(booking);
        publish(BookingEvent.Kind.PROMOTED, booking, 0);
    }

    @Override
    public void checkedIn(Booking booking) {
        listener.checkedIn(booking);
        publish(BookingEvent.Kind.CHECKED_IN, booking, 0);
    }

    @Override
    public void noShow(Booking booking) {
        listener.noShow(booking);
        publish(BookingEvent.Kind.NO_SHOW, booking, 0);
    }

    @Override
    public void waitlistSkipped(WaitlistEntry entry) {
        listener.waitlistSkipped(entry);
    }
}
