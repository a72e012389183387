package org.slotbook.core.spi;

import java.util.List;
import org.jspecify.annotations.Nullable;
import org.slotbook.core.Booking;
import org.slotbook.core.WaitlistEntry;
import org.slotbook.core.internal.Checks;

/**
 * A store's answer to one decision, and what happened in it: {@code events} to bookings, in the
 * order they happened, and the waiters {@code skipped} when a freed seat was offered to them; told to
 * the gate and the listener after the commit. {@code subject} is the booking the call was about when
 * the answer does not carry it (a repeated cancel), else null.
 */
public record StoreOutcome<R>(R result, List<BookingEvent> events, Booking subject, List<WaitlistEntry> skipped) {
    public StoreOutcome {
        Checks.notNull("result", result);
        events = List.copyOf(Checks.notNull("events", events));
        skipped = skipped == null ? List.of() : List.copyOf(skipped);
    }

    public StoreOutcome(R result, List<BookingEvent> events, @Nullable Booking subject) {
        this(result, events, subject, List.of());
    }

    public static <R> StoreOutcome<R> of(R result) {
        return new StoreOutcome<>(result, List.of(), null, List.of());
    }

    public static <R> StoreOutcome<R> of(R result, List<BookingEvent> events) {
        return new StoreOutcome<>(result, events, null, List.of());
    }
}
