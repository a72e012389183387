package org.slotbook.core.spi;

import java.util.List;
import org.slotbook.core.Booking;
import org.slotbook.core.internal.Checks;

/**
 * A store's answer to one decision, and what happened to bookings in it ({@code events}, told to
 * the gate and the listener after the commit). {@code subject} is the booking the call was about
 * when the answer does not carry it (a repeated cancel), else null.
 */
public record StoreOutcome<R>(R result, List<BookingEvent> events, Booking subject) {
    public StoreOutcome {
        Checks.notNull("result", result);
        events = List.copyOf(Checks.notNull("events", events));
    }

    public static <R> StoreOutcome<R> of(R result) {
        return new StoreOutcome<>(result, List.of(), null);
    }

    public static <R> StoreOutcome<R> of(R result, List<BookingEvent> events) {
        return new StoreOutcome<>(result, events, null);
    }
}
