package org.slotbook.core.memory;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.slotbook.core.BookingEngine;
import org.slotbook.core.BookingId;
import org.slotbook.core.CancelResult;
import org.slotbook.core.CoachId;
import org.slotbook.core.ConfirmResult;
import org.slotbook.core.Held;
import org.slotbook.core.HoldRequest;
import org.slotbook.core.HoldResult;
import org.slotbook.core.RequestId;
import org.slotbook.core.RoomId;
import org.slotbook.core.SlotId;
import org.slotbook.core.SlotSpec;
import org.slotbook.core.StudentId;
import org.slotbook.core.TenantId;
import org.slotbook.core.TimeRange;
import org.slotbook.core.spi.HoldCommand;
import org.slotbook.core.spi.StoreOutcome;
import org.slotbook.core.tck.ForwardingStore;

/**
 * An engine built without an explicit clock never tells the store what time it is: every deadline
 * is judged by the store's own clock (the database's), so app nodes whose clocks differ agree on
 * every deadline. An explicit clock is passed on (tests).
 */
class EngineClockTest {

    /** Records the {@code now} of every decision. */
    static final class Recording extends ForwardingStore {
        final List<Instant> seen = new ArrayList<>();

        Recording() {
            super(InMemoryStore.create());
        }

        @Override
        public StoreOutcome<HoldResult> hold(TenantId tenantId, HoldCommand command) {
            seen.add(command.now());
            return super.hold(tenantId, command);
        }

        @Override
        public StoreOutcome<ConfirmResult> confirm(TenantId t, BookingId b, StudentId s, Instant now,
                                                   org.slotbook.core.spi.Terms terms) {
            seen.add(now);
            return super.confirm(t, b, s, now, terms);
        }

        @Override
        public StoreOutcome<CancelResult> cancel(TenantId t, BookingId b, StudentId s, Instant now,
                                                 org.slotbook.core.spi.Terms terms) {
            seen.add(now);
            return super.cancel(t, b, s, now, terms);
        }

        @Override
        public StoreOutcome<Integer> expireDue(TenantId t, Instant now, int limit,
                                               org.slotbook.core.spi.Terms terms) {
            seen.add(now);
            return super.expireDue(t, now, limit, terms);
        }
    }

    private static void run(BookingEngine engine) {
        TenantId tenant = TenantId.of("clock-" + System.nanoTime());
        Instant start = Instant.now().plus(Duration.ofDays(1)).truncatedTo(ChronoUnit.HOURS);
        engine.schedule(tenant, new SlotSpec(SlotId.of("s"), CoachId.of("c"), RoomId.of("r"),
                TimeRange.of(start, Duration.ofHours(1)), 3));
        Held held = (Held) engine.hold(tenant, HoldRequest.of(RequestId.random(), SlotId.of("s"), StudentId.of("a")));
        engine.confirm(tenant, held.booking().bookingId(), StudentId.of("a"));
        engine.cancel(tenant, held.booking().bookingId(), StudentId.of("a"));
        engine.sweepExpired(tenant, 10);
    }

    @Test
    void aNodeClockThatRunsAheadIsNeverAskedForADeadline() {
        Recording store = new Recording();
        run(BookingEngine.builder().store(store).build());
        assertThat(store.seen).hasSize(4).containsOnlyNulls();
    }

    @Test
    void anExplicitClockDecidesEverywhere() {
        // a node two seconds ahead, given to the engine on purpose (a test or a simulation)
        Recording store = new Recording();
        Instant before = Instant.now().plusSeconds(2);
        run(BookingEngine.builder().store(store).clock(Clock.fixed(before, ZoneOffset.UTC)).build());
        assertThat(store.seen).hasSize(4).allSatisfy(now -> assertThat(now).isEqualTo(before.truncatedTo(ChronoUnit.MICROS)));
    }
}
