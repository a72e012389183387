package org.slotbook.core.internal.rules;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.slotbook.core.Booking;
import org.slotbook.core.WaitlistEntry;
import org.slotbook.core.rules.RuleTx;
import org.slotbook.core.spi.BookingEvent;
import org.slotbook.core.spi.StoreOutcome;

/** One decision in progress: its transaction, its time, and the events and skipped waiters it collects. */
final class Step {
    final RuleTx tx;
    final Instant now;
    final List<BookingEvent> events = new ArrayList<>();
    final List<WaitlistEntry> skipped = new ArrayList<>();

    Step(RuleTx tx, Instant now) {
        this.tx = tx;
        this.now = now;
    }

    void event(BookingEvent.Kind kind, Booking booking) {
        events.add(new BookingEvent(kind, booking));
    }

    /** {@return the answer with the events and skipped waiters collected so far} */
    <R> StoreOutcome<R> answer(R result) {
        return new StoreOutcome<>(result, events, null, skipped);
    }

    /** {@return the answer with the events and skipped waiters collected so far, about {@code subject}} */
    <R> StoreOutcome<R> answer(R result, @Nullable Booking subject) {
        return new StoreOutcome<>(result, events, subject, skipped);
    }
}
