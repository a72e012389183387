package org.slotbook.core.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.slotbook.core.BookingId;
import org.slotbook.core.RequestId;
import org.slotbook.core.Slot;
import org.slotbook.core.SlotId;
import org.slotbook.core.SlotStatus;
import org.slotbook.core.StudentId;
import org.slotbook.core.TenantId;
import org.slotbook.core.TimeRange;
import org.slotbook.core.rules.StoredSlot;
import org.slotbook.core.spi.GateDecision;
import org.slotbook.core.spi.GateHolder;
import org.slotbook.core.spi.GateSync;
import org.slotbook.core.spi.SeatReservation;
import org.slotbook.core.tck.Fixtures;
import org.slotbook.core.tck.MutableClock;

/** What the in-memory backends do beyond the contracts: transactions undone, fault hooks, slot expiry. */
class InMemoryBackendsTest {
    private final MutableClock clock = new MutableClock();
    private final Instant now = clock.instant();
    private final TenantId tenant = Fixtures.tenant();
    private final SlotId slot = Fixtures.slot();
    private final StudentId student = Fixtures.student();

    @Test
    void aTransactionThatThrowsLeavesNothingWritten() {
        MemoryStorage storage = new MemoryStorage();
        StoredSlot stored = stored();

        assertThatThrownBy(() -> storage.inTransaction(tenant, tx -> {
            tx.insertSlot(stored);
            tx.takeSeat(slot, 1, BookingId.random());
            throw new IllegalStateException("boom");
        })).hasMessage("boom");

        Optional<StoredSlot> left = storage.inTransaction(tenant, tx -> tx.slot(slot, false));
        assertThat(left).isEmpty();
        assertThat(storage.tenants(null, 10)).isEmpty();
    }

    @Test
    void aRollbackUndoesTheWritesSoFarAndTheTransactionGoesOn() {
        MemoryStorage storage = new MemoryStorage();
        StoredSlot stored = stored();

        storage.inTransaction(tenant, tx -> {
            tx.insertSlot(stored);
            tx.takeSeat(slot, 1, BookingId.random());
            tx.rollback();
            assertThat(tx.slot(slot, false)).isEmpty();
            assertThat(tx.insertSlot(stored)).isTrue();
            return null;
        });

        int free = storage.inTransaction(tenant, tx -> tx.freeSeat(slot).getAsInt());
        assertThat(free).isEqualTo(1);
        assertThat(storage.tenants(null, 10)).containsExactly(tenant);
        assertThat(InMemoryStore.create()).hasToString("InMemoryStore[tenants=0]");
    }

    private StoredSlot stored() {
        Slot open = new Slot(tenant, slot, Fixtures.coach(), Fixtures.room(), TimeRange.of(now, Duration.ofHours(1)),
                3, SlotStatus.OPEN);
        return new StoredSlot(open, now.minus(Duration.ofDays(1)), now.plus(Duration.ofDays(6)));
    }

    @Test
    void anUnavailableGateAnswersUnavailableAndThrowsElsewhere() {
        InMemorySeatReservation gate = InMemorySeatReservation.create(clock);
        gate.initialize(tenant, slot, 2, now.plus(Duration.ofDays(1)));
        assertThat(hold(gate, student)).isEqualTo(GateDecision.HELD);

        gate.setAvailable(false);

        assertThat(hold(gate, Fixtures.student())).isEqualTo(GateDecision.UNAVAILABLE);
        assertThatThrownBy(() -> gate.release(tenant, slot, student, RequestId.random())).isInstanceOf(IllegalStateException.class)
                .hasMessage("gate unavailable");
        assertThatThrownBy(() -> gate.confirm(tenant, slot, student, RequestId.random())).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> gate.inspect(tenant, slot)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> gate.initialize(tenant, slot, 2, now)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> gate.close(tenant, slot, now)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> gate.reconcile(tenant, slot, 2, List.of(), Duration.ZERO, now))
                .isInstanceOf(IllegalStateException.class);

        gate.setAvailable(true);
        assertThat(gate.inspect(tenant, slot).orElseThrow().holders()).extracting(GateHolder::studentId)
                .containsExactly(student);
    }

    @Test
    void evictAndClearAllDropState() {
        InMemorySeatReservation gate = InMemorySeatReservation.create(clock);
        SlotId other = Fixtures.slot();
        gate.initialize(tenant, slot, 2, null);
        gate.initialize(tenant, other, 2, null);

        gate.evict(tenant, slot);
        assertThat(hold(gate, student)).isEqualTo(GateDecision.MISSING);
        assertThat(gate.inspect(tenant, other)).isPresent();

        gate.clearAll();
        assertThat(gate.inspect(tenant, other)).isEmpty();
    }

    @Test
    void aSlotIsDroppedOnceItsKeepUntilPassesOnTheGatesClock() {
        InMemorySeatReservation gate = InMemorySeatReservation.create(clock);
        gate.initialize(tenant, slot, 1, now.plus(Duration.ofHours(1)));
        assertThat(hold(gate, student)).isEqualTo(GateDecision.HELD);

        clock.advance(Duration.ofHours(1));

        assertThat(gate.inspect(tenant, slot)).isEmpty();
        assertThat(hold(gate, student)).isEqualTo(GateDecision.MISSING);
        gate.initialize(tenant, slot, 1, clock.instant().plus(Duration.ofHours(1)));
        assertThat(gate.reconcile(tenant, slot, 1, List.of(), Duration.ZERO, clock.instant().plus(Duration.ofHours(1))))
                .isEqualTo(new GateSync(0, 0, false));
    }

    @Test
    void badInputIsRefusedWithTheFieldName() {
        InMemorySeatReservation gate = InMemorySeatReservation.create();
        assertThatThrownBy(() -> gate.initialize(tenant, slot, -1, null)).hasMessageContaining("capacity");
        assertThatThrownBy(() -> gate.tryHold(tenant, slot, student, RequestId.random(), Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("ttl");
        assertThatThrownBy(() -> gate.tryHold(null, slot, student, RequestId.random(), Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("tenantId");
    }

    @Test
    void noGateSendsEverythingToTheLedger() {
        SeatReservation none = SeatReservation.none();
        none.initialize(tenant, slot, 1, now);

        assertThat(hold(none, student)).isEqualTo(GateDecision.UNAVAILABLE);
        assertThat(hold(none, student)).isEqualTo(GateDecision.UNAVAILABLE);
        assertThat(none.release(tenant, slot, student, RequestId.random())).isFalse();
        assertThat(none.inspect(tenant, slot)).isEmpty();
        assertThat(none.reconcile(tenant, slot, 1, List.of(), Duration.ZERO, now)).isEqualTo(new GateSync(0, 0, false));
    }

    private GateDecision hold(SeatReservation gate, StudentId who) {
        return gate.tryHold(tenant, slot, who, RequestId.random(), Duration.ofMinutes(10));
    }
}
