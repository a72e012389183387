package org.slotbook.core.memory;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.slotbook.core.BookingEngine;
import org.slotbook.core.CoachId;
import org.slotbook.core.Held;
import org.slotbook.core.HoldRequest;
import org.slotbook.core.HoldResult;
import org.slotbook.core.NotOpenYet;
import org.slotbook.core.RequestId;
import org.slotbook.core.RoomId;
import org.slotbook.core.SlotId;
import org.slotbook.core.SlotSpec;
import org.slotbook.core.StudentId;
import org.slotbook.core.TenantId;
import org.slotbook.core.TimeRange;
import org.slotbook.core.spi.HoldCommand;
import org.slotbook.core.spi.StoreOutcome;
import org.slotbook.core.tck.Concurrent;
import org.slotbook.core.tck.ForwardingStore;

/** A flood that comes before a slot opens is answered by the gate alone, with no store call. */
class GateWindowTest {

    @Test
    void aFloodBeforeOpensAtCostsNoStoreCall() {
        AtomicInteger holdCalls = new AtomicInteger();
        ForwardingStore counting = new ForwardingStore(InMemoryStore.create()) {
            @Override
            public StoreOutcome<HoldResult> hold(TenantId tenantId, HoldCommand command) {
                holdCalls.incrementAndGet();
                return super.hold(tenantId, command);
            }
        };
        BookingEngine engine = BookingEngine.builder().store(counting)
                .reservation(InMemorySeatReservation.create()).build();
        TenantId tenant = TenantId.of("window-" + System.nanoTime());
        Instant now = Instant.now().truncatedTo(ChronoUnit.MILLIS);
        Instant opensAt = now.plus(Duration.ofHours(1));
        SlotId slot = SlotId.of("star-coach");
        engine.schedule(tenant, new SlotSpec(slot, CoachId.of("c"), RoomId.of("r"),
                TimeRange.of(now.plus(Duration.ofDays(1)), Duration.ofHours(1)), 10).opensAt(opensAt));

        List<HoldResult> early = Concurrent.run(200, i -> engine.hold(tenant,
                HoldRequest.of(RequestId.random(), slot, StudentId.of("s" + i))));
        assertThat(early).containsOnly(new NotOpenYet(slot, opensAt));
        assertThat(holdCalls).as("store calls for the early flood").hasValue(0);

        SlotId open = SlotId.of("open-now");
        engine.schedule(tenant, new SlotSpec(open, CoachId.of("c2"), RoomId.of("r2"),
                TimeRange.of(now.plus(Duration.ofDays(1)), Duration.ofHours(1)), 10).opensAt(now.minusSeconds(1)));
        assertThat(engine.hold(tenant, HoldRequest.of(RequestId.random(), open, StudentId.of("first"))))
                .isInstanceOf(Held.class);
        assertThat(holdCalls).hasValue(1);
    }
}
