package org.slotbook.core.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slotbook.core.Availability;
import org.slotbook.core.BookingEngine;
import org.slotbook.core.BookingId;
import org.slotbook.core.BookingStoreException;
import org.slotbook.core.CoachId;
import org.slotbook.core.Full;
import org.slotbook.core.Held;
import org.slotbook.core.HoldPolicy;
import org.slotbook.core.HoldRequest;
import org.slotbook.core.HoldResult;
import org.slotbook.core.ReconcileReport;
import org.slotbook.core.ReconciliationJob;
import org.slotbook.core.RequestId;
import org.slotbook.core.RoomId;
import org.slotbook.core.SlotId;
import org.slotbook.core.SlotSpec;
import org.slotbook.core.StudentId;
import org.slotbook.core.TenantId;
import org.slotbook.core.TimeRange;
import org.slotbook.core.rules.RuleStorage;
import org.slotbook.core.rules.RuleTx;
import org.slotbook.core.rules.RulesStore;
import org.slotbook.core.spi.GateDecision;
import org.slotbook.core.spi.GateHolder;
import org.slotbook.core.spi.SeatReservation;
import org.slotbook.core.tck.Concurrent;
import org.slotbook.core.tck.MutableClock;
import org.slotbook.core.tck.faults.ForwardingGate;

/** The engine against a misbehaving gate and a storage that fails at the worst moment. */
class EngineGateFaultTest {
    private final MutableClock clock = new MutableClock();
    private final MemoryStorage storage = new MemoryStorage();
    private final RulesStore store = RulesStore.over(storage, clock);
    private final InMemorySeatReservation gate = InMemorySeatReservation.create(clock);
    private final TenantId tenant = TenantId.of("t-" + UUID.randomUUID());
    private final SlotId slot = SlotId.of("flash");
    private BookingEngine engine;

    @BeforeEach
    void setUp() {
        engine = engine(storage);
        Instant start = clock.instant().truncatedTo(ChronoUnit.HOURS).plus(Duration.ofDays(1));
        engine.schedule(tenant, new SlotSpec(slot, CoachId.of("c"), RoomId.of("r"),
                TimeRange.of(start, Duration.ofHours(1)), 10));
    }

    private BookingEngine engine(RuleStorage over) {
        return BookingEngine.builder().store(RulesStore.over(over, clock)).reservation(gate)
                .clock(clock).holdPolicy(HoldPolicy.ofDefaults()).build();
    }

    /**
     * {@code students} holds on 16 threads; {@code midway} runs as the sixth claim starts, while the
     * first claims are in flight and seats are left.
     */
    private List<HoldResult> flashSale(BookingEngine e, int students, Runnable midway) {
        return Concurrent.run(16, students, i -> {
            if (i == 5) {
                midway.run();
            }
            return e.hold(tenant, HoldRequest.of(RequestId.random(), slot, StudentId.of("s" + i)));
        });
    }

    private void assertNoOversellAndAllHeldStored(List<HoldResult> results) {
        List<BookingId> answered = results.stream().filter(r -> r instanceof Held)
                .map(r -> ((Held) r).booking().bookingId()).toList();
        var live = store.liveSlot(tenant, slot, clock.instant()).orElseThrow().live();
        assertThat(live.size()).as("live bookings in the ledger").isLessThanOrEqualTo(10);
        assertThat(live).extracting(b -> b.bookingId()).containsExactlyInAnyOrderElementsOf(answered);
    }

    @Test
    void gateDownMidSaleFallsBackToTheLedger() throws Exception {
        List<HoldResult> results = flashSale(engine, 400, () -> gate.setAvailable(false));
        assertNoOversellAndAllHeldStored(results);
        assertThat(results.stream().filter(r -> r instanceof Held)).hasSize(10);
        gate.setAvailable(true);
        ReconcileReport report = engine.reconcile(tenant, slot);
        assertThat(report.slotsUnreachable()).isZero();
        assertThat(gate.inspect(tenant, slot).orElseThrow().remaining()).isZero();
    }

    @Test
    void gateStateLostMidSaleIsRebuiltOnceFromTheLedger() throws Exception {
        List<HoldResult> results = flashSale(engine, 400, () -> gate.clearAll());
        assertNoOversellAndAllHeldStored(results);
        assertThat(results.stream().filter(r -> r instanceof Held)).hasSize(10);
        assertThat(engine.metrics().gateRebuilds()).isBetween(1L, 3L);
        assertThat(gate.inspect(tenant, slot).orElseThrow().remaining()).isZero();
    }

    @Test
    void aHoldCommittedAfterTheRebuildReadTheLedgerIsCountedByTheRebuiltGate() {
        BookingEngine[] engines = new BookingEngine[1];
        StudentId late = StudentId.of("committed-late");
        StudentId other = StudentId.of("asks-after-the-loss");
        org.slotbook.core.tck.ForwardingStore slowCommit = new org.slotbook.core.tck.ForwardingStore(store) {
            @Override
            public org.slotbook.core.spi.StoreOutcome<HoldResult> hold(TenantId t, org.slotbook.core.spi.HoldCommand c) {
                if (c.request().studentId().equals(late)) {
                    // the gate granted this hold, then lost its state; another request finds it missing
                    // and rebuilds it from a ledger that does not hold this booking yet
                    gate.clearAll();
                    assertThat(engines[0].hold(t, HoldRequest.of(RequestId.random(), slot, other)))
                            .isInstanceOf(Held.class);
                }
                return super.hold(t, c);
            }
        };
        engines[0] = BookingEngine.builder().store(slowCommit).reservation(gate).clock(clock)
                .holdPolicy(HoldPolicy.ofDefaults()).build();
        assertThat(engines[0].hold(tenant, HoldRequest.of(RequestId.random(), slot, late))).isInstanceOf(Held.class);
        assertThat(engines[0].metrics().gateRebuilds()).isEqualTo(1);
        assertThat(gate.inspect(tenant, slot).orElseThrow().holders()).extracting(GateHolder::studentId)
                .containsExactlyInAnyOrder(late, other);
        assertThat(gate.inspect(tenant, slot).orElseThrow().remaining()).isEqualTo(8);
        assertThat(store.liveSlot(tenant, slot, clock.instant()).orElseThrow().live()).hasSize(2);
    }

    @Test
    void aGateThatLetsThroughAHoldTheLedgerFindsFullIsReconciled() {
        for (int i = 0; i < 9; i++) {
            engine.book(tenant, HoldRequest.of(RequestId.random(), slot, StudentId.of("b" + i)));
        }
        // the last seat is sold while the gate is not asked (a node configured without it, or one that
        // found it down): the gate still counts a free seat
        BookingEngine ungated = BookingEngine.builder().store(store)
                .clock(clock).holdPolicy(HoldPolicy.ofDefaults()).build();
        ungated.book(tenant, HoldRequest.of(RequestId.random(), slot, StudentId.of("b9")));
        assertThat(gate.inspect(tenant, slot).orElseThrow().remaining()).isEqualTo(1);
        assertThat(engine.hold(tenant, HoldRequest.of(RequestId.random(), slot, StudentId.of("late"))))
                .isInstanceOf(Full.class);
        assertThat(engine.metrics().gateHeldLedgerRefused()).isEqualTo(1);
        assertThat(gate.inspect(tenant, slot).orElseThrow().remaining()).isZero();
        assertThat(engine.hold(tenant, HoldRequest.of(RequestId.random(), slot, StudentId.of("later"))))
                .isInstanceOf(Full.class);
        assertThat(engine.metrics().gateFull()).isEqualTo(1);
    }

    @Test
    void ledgerFailureAfterTheGateHoldGivesTheGateSeatBack() {
        RuleStorage failing = new FailingStorage(storage);
        BookingEngine broken = engine(failing);
        assertThatThrownBy(() -> broken.hold(tenant, HoldRequest.of(RequestId.random(), slot, StudentId.of("x"))))
                .isInstanceOf(BookingStoreException.class);
        assertThat(gate.inspect(tenant, slot).orElseThrow().remaining()).isEqualTo(10);
        assertThat(((Availability) engine.availability(tenant, slot)).remaining()).isEqualTo(10);
    }

    @Test
    void reconcileNeverDropsAnInFlightHold() {
        Instant now = clock.instant();
        // a hold taken in the gate just now, whose transaction has not committed yet
        gate.tryHold(tenant, slot, StudentId.of("inflight"), RequestId.random(), Duration.ofMinutes(10));
        // and one abandoned long ago (a crash before the commit)
        gate.reconcile(tenant, slot, 10, List.of(new GateHolder(StudentId.of("ghost"), RequestId.random(),
                now.minus(Duration.ofMinutes(5)), now.plus(Duration.ofMinutes(5)))), Duration.ofDays(1),
                now.plus(Duration.ofDays(2)));
        ReconcileReport report = engine.reconcile(tenant, slot);
        assertThat(report.holdersRemoved()).isEqualTo(1);
        assertThat(gate.inspect(tenant, slot).orElseThrow().holders())
                .extracting(GateHolder::studentId).containsExactly(StudentId.of("inflight"));
        clock.advance(HoldPolicy.ofDefaults().inFlightGrace().plusSeconds(1));
        assertThat(engine.reconcile(tenant, slot).holdersRemoved()).isEqualTo(1);
        assertThat(gate.inspect(tenant, slot).orElseThrow().remaining()).isEqualTo(10);
    }

    @Test
    void reconciliationJobRunsSurvivesFailuresAndCloses() throws Exception {
        engine.hold(tenant, HoldRequest.of(RequestId.random(), slot, StudentId.of("a")));
        clock.advance(Duration.ofMinutes(11));
        int[] calls = {0};
        try (ReconciliationJob job = ReconciliationJob.builder(engine, () -> {
            if (calls[0]++ == 0) {
                throw new IllegalStateException("tenant directory down");
            }
            return List.of(tenant);
        }).interval(Duration.ofMillis(20)).build()) {
            job.start();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (job.runs() < 2 && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertThat(job.failedRuns()).isEqualTo(1);
            assertThat(job.runs()).isGreaterThanOrEqualTo(2);
        }
        assertThat(((Availability) engine.availability(tenant, slot)).remaining()).isEqualTo(10);
        var run = ReconciliationJob.builder(engine, () -> List.of(tenant)).build().runOnce().orElseThrow();
        assertThat(run.expired()).isZero();
        assertThat(run.tenants()).isEqualTo(1);
    }

    @Test
    void fullSlotIsAnsweredByTheGateAlone() {
        for (int i = 0; i < 10; i++) {
            engine.book(tenant, HoldRequest.of(RequestId.random(), slot, StudentId.of("b" + i)));
        }
        RuleStorage counting = new FailingStorage(storage);
        BookingEngine gated = engine(counting);
        for (int i = 0; i < 100; i++) {
            assertThat(gated.hold(tenant, HoldRequest.of(RequestId.random(), slot, StudentId.of("late" + i))))
                    .isInstanceOf(Full.class);
        }
        assertThat(gated.metrics().gateFull()).isEqualTo(100);
    }

    @Test
    void aConfirmRepeatedAfterALostAcknowledgementPinsTheGateHold() {
        boolean[] loseNext = {true};
        org.slotbook.core.tck.ForwardingStore lossy = new org.slotbook.core.tck.ForwardingStore(store) {
            @Override
            public org.slotbook.core.spi.StoreOutcome<org.slotbook.core.ConfirmResult> confirm(TenantId t,
                    BookingId b, StudentId s, Instant now, org.slotbook.core.spi.Terms terms) {
                var outcome = super.confirm(t, b, s, now, terms);
                if (loseNext[0]) {
                    loseNext[0] = false;
                    throw new BookingStoreException("connection lost after COMMIT");
                }
                return outcome;
            }
        };
        BookingEngine e = BookingEngine.builder().store(lossy).reservation(gate).clock(clock)
                .holdPolicy(HoldPolicy.ofDefaults()).build();
        Held held = (Held) e.hold(tenant, HoldRequest.of(RequestId.random(), slot, StudentId.of("pin")));
        assertThatThrownBy(() -> e.confirm(tenant, held.booking().bookingId(), StudentId.of("pin")))
                .isInstanceOf(BookingStoreException.class);
        assertThat(gate.inspect(tenant, slot).orElseThrow().holders())
                .filteredOn(h -> h.studentId().equals(StudentId.of("pin"))).allMatch(h -> !h.pinned());
        assertThat(e.confirm(tenant, held.booking().bookingId(), StudentId.of("pin")))
                .isInstanceOf(org.slotbook.core.Confirmed.class);
        assertThat(gate.inspect(tenant, slot).orElseThrow().holders())
                .filteredOn(h -> h.studentId().equals(StudentId.of("pin"))).singleElement()
                .matches(GateHolder::pinned, "pinned");
    }

    @Test
    void aRetryWhoseGateReplyIsLostAndWhoseStoreCallFailsLeavesTheFirstDeliverysGateSeat() {
        HoldRequest request = HoldRequest.of(RequestId.random(), slot, StudentId.of("first"));
        Held first = (Held) engine.hold(tenant, request);
        // the retry: the gate's script runs (it finds this request's seat) but its reply is lost, and the
        // store refuses before anything is sent
        SeatReservation replyLost = new ForwardingGate(gate) {
            @Override
            public GateDecision tryHold(TenantId t, SlotId s, StudentId st, RequestId r, Duration ttl) {
                super.tryHold(t, s, st, r, ttl);
                return GateDecision.UNAVAILABLE;
            }
        };
        org.slotbook.core.tck.ForwardingStore refusing = new org.slotbook.core.tck.ForwardingStore(store) {
            @Override
            public org.slotbook.core.spi.StoreOutcome<HoldResult> hold(TenantId t, org.slotbook.core.spi.HoldCommand c) {
                throw new BookingStoreException("no connection", null, true, false);
            }
        };
        BookingEngine retrying = BookingEngine.builder().store(refusing).reservation(replyLost).clock(clock)
                .holdPolicy(HoldPolicy.ofDefaults()).build();
        assertThatThrownBy(() -> retrying.hold(tenant, request)).isInstanceOf(BookingStoreException.class);
        assertThat(gate.inspect(tenant, slot).orElseThrow().holders()).extracting(GateHolder::requestId)
                .containsExactly(request.requestId());
        // the slot fills up; a later delivery of the request still answers its booking, not Full
        for (int i = 0; i < 9; i++) {
            engine.book(tenant, HoldRequest.of(RequestId.random(), slot, StudentId.of("other" + i)));
        }
        assertThat(engine.hold(tenant, request)).isInstanceOfSatisfying(Held.class,
                h -> assertThat(h.booking().bookingId()).isEqualTo(first.booking().bookingId()));
        assertThat(gate.inspect(tenant, slot).orElseThrow().remaining()).isZero();
    }

    /** A storage whose every transaction fails after the work ran, as if the commit was lost. */
    private record FailingStorage(RuleStorage delegate) implements RuleStorage {
        @Override
        public <T> T inTransaction(TenantId tenantId, Function<RuleTx, T> work) {
            return delegate.inTransaction(tenantId, tx -> {
                work.apply(tx);
                throw new BookingStoreException("connection lost before commit");
            });
        }

        @Override
        public List<TenantId> tenants(TenantId after, int limit) {
            return delegate.tenants(after, limit);
        }
    }
}
