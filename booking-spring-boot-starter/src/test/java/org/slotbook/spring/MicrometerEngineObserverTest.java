package org.slotbook.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import org.junit.jupiter.api.Test;
import org.slotbook.core.BookingEngine;
import org.slotbook.core.CoachId;
import org.slotbook.core.HoldPolicy;
import org.slotbook.core.HoldRequest;
import org.slotbook.core.RequestId;
import org.slotbook.core.RoomId;
import org.slotbook.core.SlotId;
import org.slotbook.core.SlotSpec;
import org.slotbook.core.StudentId;
import org.slotbook.core.TenantId;
import org.slotbook.core.TimeRange;
import org.slotbook.core.memory.InMemorySeatReservation;
import org.slotbook.core.memory.InMemoryStore;
import org.slotbook.core.tck.MutableClock;

/** Every meter the observer feeds, with the counts an engine run on in-memory backends produces. */
class MicrometerEngineObserverTest {
    @Test
    void engineOperationsGateSweepAndReconcileAreMetered() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        MutableClock clock = new MutableClock(Instant.parse("2030-01-01T08:00:00Z"), ZoneOffset.UTC);
        InMemoryStore store = InMemoryStore.create(clock);
        InMemorySeatReservation gate = InMemorySeatReservation.create(clock);
        BookingEngine engine = BookingEngine.builder().store(store).reservation(gate).clock(clock)
                .holdPolicy(HoldPolicy.ofMinutes(5)).observer(new MicrometerEngineObserver(registry)).build();
        TenantId tenant = TenantId.of("metered");
        SlotId slot = SlotId.of("s");
        engine.schedule(tenant, new SlotSpec(slot, CoachId.of("c"), RoomId.of("r"),
                TimeRange.of(clock.instant().plus(Duration.ofDays(1)).truncatedTo(ChronoUnit.HOURS),
                        Duration.ofHours(1)), 2));
        engine.hold(tenant, HoldRequest.of(RequestId.random(), slot, StudentId.of("a")));
        engine.hold(tenant, HoldRequest.of(RequestId.random(), slot, StudentId.of("b")));
        engine.hold(tenant, HoldRequest.of(RequestId.random(), slot, StudentId.of("c")));

        gate.evict(tenant, slot);              // Redis lost the slot: reconcile puts both holders back
        assertThat(engine.reconcileAll(tenant).holdersAdded()).isEqualTo(2);
        clock.advance(Duration.ofMinutes(6));
        assertThat(engine.sweepExpired(tenant, 100)).isEqualTo(2);
        gate.setAvailable(false);
        engine.hold(tenant, HoldRequest.of(RequestId.random(), slot, StudentId.of("d")));

        assertThat(registry.get("slotbook.engine.calls").tag("operation", "hold").tag("outcome", "Held").timer()
                .count()).isEqualTo(3);
        assertThat(registry.get("slotbook.engine.calls").tag("operation", "hold").tag("outcome", "Full").timer()
                .count()).isEqualTo(1);
        assertThat(registry.get("slotbook.gate.decisions").tag("answer", "held").counter().count()).isEqualTo(2);
        assertThat(registry.get("slotbook.gate.decisions").tag("answer", "full").counter().count()).isEqualTo(1);
        // d's hold asked the gate twice: first, and again after the store granted it (the gate's answer
        // was unknown, so the engine makes sure the gate counts the seat)
        assertThat(registry.get("slotbook.gate.decisions").tag("answer", "unavailable").counter().count()).isEqualTo(2);
        assertThat(registry.get("slotbook.gate.outages").tag("call", "tryHold").counter().count()).isEqualTo(2);
        assertThat(registry.get("slotbook.reconcile.repairs").tag("kind", "holders_added").counter().count())
                .isEqualTo(2);
        assertThat(registry.get("slotbook.sweep.expired").counter().count()).isEqualTo(2);
        // and the store agrees: the two expired holds gave their seats back, d holds one
        assertThat(store.availability(tenant, slot, clock.instant()).orElseThrow().remaining()).isEqualTo(1);
    }
}
