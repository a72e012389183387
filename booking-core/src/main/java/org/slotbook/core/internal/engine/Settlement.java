package org.slotbook.core.internal.engine;

import java.time.Instant;
import org.slotbook.core.Booking;
import org.slotbook.core.Confirmed;
import org.slotbook.core.TenantId;
import org.slotbook.core.spi.BookingStore;
import org.slotbook.core.spi.StoreOutcome;
import org.slotbook.core.spi.Terms;

/**
 * Tells the gate and the listener what a committed confirm, cancel, check-in or sweep did: holds given
 * back, holders pinned, waiters promoted, events published.
 */
public final class Settlement {
    private final BookingStore store;
    private final GateGuard guard;
    private final HoldFlow holds;
    private final Events events;

    public Settlement(BookingStore store, GateGuard guard, HoldFlow holds, Events events) {
        this.store = store;
        this.guard = guard;
        this.holds = holds;
        this.events = events;
    }

    /**
     * A repeated cancel gives the gate hold of its booking back again, and a repeated confirm pins it
     * again: the first one's acknowledgement may have been lost before the gate heard of it.
     */
    public <R> R settle(TenantId tenantId, StoreOutcome<R> outcome) {
        Booking subject = outcome.subject();
        if (subject != null && !subject.status().isActive() && outcome.events().isEmpty()) {
            // (with events, settleEvents gives the hold back)
            holds.ended(tenantId, subject);
        }
        if (outcome.result() instanceof Confirmed repeat && outcome.events().isEmpty()) {
            // a repeated confirm: pinning twice changes nothing
            Booking b = repeat.booking();
            guard.call("confirm", () -> guard.gate().confirm(tenantId, b.slotId(), b.studentId(), b.requestId()));
        }
        holds.settleEvents(tenantId, outcome.events());
        events.publishAll(outcome);
        return outcome.result();
    }

    /** Expires the tenant's holds that ran out by {@code now}, batch after batch; how many it expired. */
    public int sweep(TenantId tenantId, Instant now, int batchSize, Terms terms) {
        int total = 0;
        while (true) {
            StoreOutcome<Integer> batch = store.expireDue(tenantId, now, batchSize, terms);
            holds.settleEvents(tenantId, batch.events());
            events.publishAll(batch);
            total += batch.result();
            if (batch.result() < batchSize) {
                return total;
            }
        }
    }
}
