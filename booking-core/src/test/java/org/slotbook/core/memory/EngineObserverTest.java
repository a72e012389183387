package org.slotbook.core.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.slotbook.core.BookingEngine;
import org.slotbook.core.BookingId;
import org.slotbook.core.CoachId;
import org.slotbook.core.EngineObserver;
import org.slotbook.core.Full;
import org.slotbook.core.Held;
import org.slotbook.core.HoldRequest;
import org.slotbook.core.HoldResult;
import org.slotbook.core.ReconcileReport;
import org.slotbook.core.RequestId;
import org.slotbook.core.RoomId;
import org.slotbook.core.SlotId;
import org.slotbook.core.SlotSpec;
import org.slotbook.core.StudentId;
import org.slotbook.core.TenantId;
import org.slotbook.core.TimeRange;
import org.slotbook.core.spi.GateOutcome;
import org.slotbook.core.tck.MutableClock;

/** The engine tells its observer what each operation did; an observer that throws changes no answer. */
class EngineObserverTest {
    private final MutableClock clock = new MutableClock();
    private final InMemoryStore store = InMemoryStore.create();
    private final InMemorySeatReservation gate = InMemorySeatReservation.create(clock);
    private final TenantId tenant = TenantId.of("t-" + UUID.randomUUID());
    private final SlotId slot = SlotId.of("s1");
    private final List<String> seen = new CopyOnWriteArrayList<>();

    private final EngineObserver recorder = new EngineObserver() {
        @Override
        public void operationFinished(String operation, String outcome, long nanos) {
            assertThat(nanos).isNotNegative();
            seen.add(operation + ":" + outcome);
        }

        @Override
        public void gateDecision(GateOutcome outcome) {
            seen.add("gate:" + outcome);
        }

        @Override
        public void gateUnavailable(String call) {
            seen.add("outage:" + call);
        }

        @Override
        public void reconciled(TenantId tenantId, ReconcileReport report) {
            seen.add("reconciled:" + report.slotsChecked());
        }

        @Override
        public void swept(TenantId tenantId, int expired) {
            seen.add("swept:" + expired);
        }
    };

    private BookingEngine engine(EngineObserver observer) {
        return BookingEngine.builder().store(store).reservation(gate).clock(clock).observer(observer).build();
    }

    private void schedule(BookingEngine engine, int capacity) {
        Instant start = clock.instant().truncatedTo(ChronoUnit.HOURS).plus(Duration.ofDays(1));
        engine.schedule(tenant, new SlotSpec(slot, CoachId.of("c"), RoomId.of("r"),
                TimeRange.of(start, Duration.ofHours(1)), capacity));
    }

    private HoldResult hold(BookingEngine engine, String student) {
        return engine.hold(tenant, HoldRequest.of(RequestId.random(), slot, StudentId.of(student)));
    }

    @Test
    void everyOperationIsReportedWithItsOutcome() {
        BookingEngine engine = engine(recorder);
        schedule(engine, 1);
        Held held = (Held) hold(engine, "a");
        assertThat(hold(engine, "b")).isInstanceOf(Full.class);
        engine.confirm(tenant, held.booking().bookingId(), StudentId.of("a"));
        engine.cancel(tenant, BookingId.random(), StudentId.of("a"));
        engine.sweepExpired(tenant, 10);
        engine.reconcileAll(tenant);
        assertThatThrownBy(() -> engine.sweepExpired(tenant, 0)).isInstanceOf(IllegalArgumentException.class);

        assertThat(seen).containsSubsequence("schedule:Scheduled", "gate:HELD", "hold:Held", "gate:FULL",
                "hold:Full", "confirm:Confirmed", "cancel:NotFound", "sweepExpired:ok", "swept:0",
                "reconcileAll:ok", "reconciled:1");
        // the ledger agrees with what was reported: one seat taken, by student a
        assertThat(store.availability(tenant, slot, clock.instant()).orElseThrow().remaining()).isZero();
    }

    @Test
    void aGateOutageIsReported() {
        BookingEngine engine = engine(recorder);
        schedule(engine, 5);
        gate.setAvailable(false);
        assertThat(hold(engine, "a")).isInstanceOf(Held.class);
        assertThat(seen).contains("gate:UNAVAILABLE", "outage:tryHold", "hold:Held");
        assertThat(store.availability(tenant, slot, clock.instant()).orElseThrow().remaining()).isEqualTo(4);
    }

    @Test
    void anObserverThatThrowsChangesNoAnswer() {
        BookingEngine engine = engine(new EngineObserver() {
            @Override
            public void operationFinished(String operation, String outcome, long nanos) {
                throw new IllegalStateException("observer broke");
            }

            @Override
            public void gateDecision(GateOutcome outcome) {
                throw new IllegalStateException("observer broke");
            }
        });
        schedule(engine, 2);
        assertThat(hold(engine, "a")).isInstanceOf(Held.class);
        assertThat(hold(engine, "b")).isInstanceOf(Held.class);
        assertThat(hold(engine, "c")).isInstanceOf(Full.class);
        assertThat(store.availability(tenant, slot, clock.instant()).orElseThrow().remaining()).isZero();
    }

    @Test
    void observerMustNotBeNull() {
        assertThatThrownBy(() -> BookingEngine.builder().observer(null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("observer");
    }
}
