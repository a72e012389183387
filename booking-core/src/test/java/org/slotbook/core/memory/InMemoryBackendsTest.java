package org.slotbook.core.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.slotbook.core.BookingId;
import org.slotbook.core.BookingStatus;
import org.slotbook.core.RequestId;
import org.slotbook.core.ResourceRef;
import org.slotbook.core.Slot;
import org.slotbook.core.SlotId;
import org.slotbook.core.SlotStatus;
import org.slotbook.core.StudentId;
import org.slotbook.core.TenantId;
import org.slotbook.core.TimeRange;
import org.slotbook.core.spi.GateDecision;
import org.slotbook.core.spi.GateHolder;
import org.slotbook.core.spi.GateSync;
import org.slotbook.core.spi.NewBooking;
import org.slotbook.core.spi.Occupation;
import org.slotbook.core.spi.SeatReservation;
import org.slotbook.core.spi.StoreTransaction;
import org.slotbook.core.tck.Concurrent;
import org.slotbook.core.tck.Fixtures;
import org.slotbook.core.tck.MutableClock;

/** What the in-memory backends do beyond the contracts: transaction misuse, fault hooks, slot expiry. */
class InMemoryBackendsTest {
    private final MutableClock clock = new MutableClock();
    private final Instant now = clock.instant();
    private final TenantId tenant = Fixtures.tenant();
    private final SlotId slot = Fixtures.slot();
    private final StudentId student = Fixtures.student();

    @Test
    void aTransactionCannotBeUsedAfterItEnded() {
        InMemoryPrimitives store = InMemoryPrimitives.create();
        StoreTransaction ended = store.ledger().inTransaction(tenant, t -> t);

        assertThatThrownBy(() -> store.ledger().findSlot(ended, slot)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("ended");
        assertThatThrownBy(() -> store.conflicts().releaseSlot(ended, slot)).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void aTransactionCannotBeUsedFromAnotherThread() {
        InMemoryPrimitives store = InMemoryPrimitives.create();
        AtomicReference<Throwable> seen = new AtomicReference<>();

        store.ledger().inTransaction(tenant, t -> {
            Concurrent.runAll(1, i -> {
                try {
                    store.ledger().findSlot(t, slot);
                } catch (Throwable e) {
                    seen.set(e);
                }
            });
            return null;
        });

        assertThat(seen.get()).isInstanceOf(IllegalStateException.class).hasMessageContaining("another thread");
    }

    @Test
    void aTransactionOfAnotherStoreIsRefusedByTheLedger() {
        InMemoryPrimitives store = InMemoryPrimitives.create();
        InMemoryPrimitives other = InMemoryPrimitives.create();

        other.ledger().inTransaction(tenant, t -> {
            assertThatThrownBy(() -> store.ledger().findSlot(t, slot)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("tx must be a transaction of this in-memory store");
            assertThatThrownBy(() -> store.conflicts().lock(t, List.of(ResourceRef.of(student))))
                    .isInstanceOf(IllegalArgumentException.class);
            return null;
        });
    }

    @Test
    void aSlotOfAnotherTenantIsRefused() {
        InMemoryPrimitives store = InMemoryPrimitives.create();
        Slot foreign = new Slot(Fixtures.tenant(), slot, Fixtures.coach(), Fixtures.room(),
                TimeRange.of(now, Duration.ofHours(1)), 3, SlotStatus.OPEN);

        assertThatThrownBy(() -> store.ledger().inTransaction(tenant, t -> store.ledger().insertSlot(t, foreign)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("slot.tenantId");
    }

    @Test
    void anOccupationLongerThanTheLongestSessionIsRefused() {
        InMemoryPrimitives store = InMemoryPrimitives.create();
        Occupation tooLong = new Occupation(List.of(ResourceRef.of(student)), TimeRange.of(now, Duration.ofHours(5)),
                slot, BookingId.random());

        assertThatThrownBy(() -> store.ledger().inTransaction(tenant,
                t -> store.conflicts().occupy(t, tooLong, Duration.ofHours(4))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("longestSession");
    }

    @Test
    void aCancelledSlotHasNoSeatToGive() {
        InMemoryPrimitives store = InMemoryPrimitives.create();
        Slot open = new Slot(tenant, slot, Fixtures.coach(), Fixtures.room(), TimeRange.of(now, Duration.ofHours(1)),
                3, SlotStatus.OPEN);
        NewBooking nb = new NewBooking(BookingId.random(), RequestId.random(), slot, student, BookingStatus.HELD,
                now.plus(Duration.ofMinutes(10)));

        store.ledger().inTransaction(tenant, t -> {
            assertThat(store.ledger().insertSlot(t, open)).isTrue();
            assertThat(store.ledger().cancelSlot(t, slot, now)).isEmpty();
            assertThat(store.ledger().claimSeat(t, nb, now)).isEmpty();
            return null;
        });
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
    void theStepwiseStoreRefusesPaidSlotsAndSeriesAndSchedulesNothing() {
        org.slotbook.core.spi.StepwiseStore stepwise = InMemoryPrimitives.create().stepwise(clock);
        org.slotbook.core.Slot paid = new org.slotbook.core.Slot(tenant, slot, org.slotbook.core.CoachId.of("c"),
                org.slotbook.core.RoomId.of("r"), org.slotbook.core.TimeRange.of(now.plusSeconds(3600),
                java.time.Duration.ofHours(1)), 5, org.slotbook.core.SlotStatus.OPEN, null, null,
                java.time.Duration.ZERO, null, false, null, 1, null);
        assertThatThrownBy(() -> stepwise.schedule(tenant, paid, java.time.Duration.ofDays(1), java.time.ZoneOffset.UTC))
                .isInstanceOf(UnsupportedOperationException.class).hasMessageContaining("lesson packages");
        assertThatThrownBy(() -> stepwise.grantPackage(tenant, org.slotbook.core.PackageGrant.of(
                org.slotbook.core.PackageId.of("p"), student, 1, now, now.plusSeconds(60)), now))
                .isInstanceOf(UnsupportedOperationException.class);
        assertThat(stepwise.availability(tenant, slot, now)).isEmpty();
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
