package org.slotbook.core.internal.engine;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slotbook.core.Booking;
import org.slotbook.core.BookingListener;
import org.slotbook.core.WaitlistEntry;
import org.slotbook.core.spi.BookingEvent;
import org.slotbook.core.spi.StoreOutcome;

/** Tells the listener what a committed decision did. A listener that throws undoes nothing. */
public final class Events {
    private static final Logger LOG = LoggerFactory.getLogger(EngineLog.CATEGORY);

    private final BookingListener listener;
    /** Told which events reached the listener right after their commit (the outbox records them delivered). */
    private final Consumer<List<BookingEvent>> delivered;

    public Events(BookingListener listener, Consumer<List<BookingEvent>> delivered) {
        this.listener = listener;
        this.delivered = delivered;
    }

    /** The events of one committed outcome, then the waiters it skipped. */
    public void publishAll(StoreOutcome<?> outcome) {
        publish(outcome.events());
        skipped(outcome.skipped());
    }

    public void publish(List<BookingEvent> events) {
        if (listener == BookingListener.NONE || events.isEmpty()) {
            delivered.accept(events);
            return;
        }
        List<BookingEvent> ok = new ArrayList<>(events.size());
        for (BookingEvent e : events) {
            if (publish(e)) {
                ok.add(e);
            }
        }
        delivered.accept(ok);
    }

    public void skipped(List<WaitlistEntry> skipped) {
        if (listener == BookingListener.NONE) {
            return;
        }
        for (WaitlistEntry entry : skipped) {
            try {
                listener.waitlistSkipped(entry);
            } catch (RuntimeException e) {
                LOG.warn("BookingListener threw on a skipped waiter of slot {}; nothing is undone", entry.slotId(), e);
            }
        }
    }

    /** Tells the listener one event; false when it threw (the outbox's relay tries it again). */
    public boolean publish(BookingEvent event) {
        Booking booking = event.booking();
        try {
            switch (event.kind()) {
                case HELD -> listener.held(booking);
                case CONFIRMED -> listener.confirmed(booking);
                case CANCELLED -> listener.cancelled(booking);
                case EXPIRED -> listener.expired(booking);
                case LATE_CANCELLED -> listener.cancelledLate(booking);
                case PROMOTED -> listener.promoted(booking);
                case CHECKED_IN -> listener.checkedIn(booking);
                case NO_SHOW -> listener.noShow(booking);
                default -> throw new IllegalStateException("unknown event " + event.kind());
            }
            return true;
        } catch (RuntimeException e) {
            LOG.warn("BookingListener threw on {} of booking {}; the booking stands", event.kind(),
                    booking.bookingId(), e);
            return false;
        }
    }
}
