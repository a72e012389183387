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
    /**
     * Checks the components: result and events present.
     *
     * @param result the answer to the caller
     * @param events the events the store wrote with it, in order
     * @param subject the booking the call concerned (null: none)
     * @param skipped the waiters passed over on the way
     */
    public StoreOutcome {
        Checks.notNull("result", result);
        events = List.copyOf(Checks.notNull("events", events));
        skipped = skipped == null ? List.of() : List.copyOf(skipped);
    }

    /**
     * An outcome and the booking it concerns.
     *
     * @param result the answer to the caller
     * @param events the events the store wrote with it, in order
     * @param subject the booking the call concerned (null: none)
     */
    public StoreOutcome(R result, List<BookingEvent> events, @Nullable Booking subject) {
        this(result, events, subject, List.of());
    }

    /**
     * {@return an outcome that wrote no event}
     *
     * @param result the answer to the caller
     * @param <R> the type of the result
     */
    public static <R> StoreOutcome<R> of(R result) {
        return new StoreOutcome<>(result, List.of(), null, List.of());
    }

    /**
     * {@return an outcome with the events the store wrote}
     *
     * @param result the answer to the caller
     * @param events the events, in order
     * @param <R> the type of the result
     */
    public static <R> StoreOutcome<R> of(R result, List<BookingEvent> events) {
        return new StoreOutcome<>(result, events, null, List.of());
    }
}
