package org.slotbook.redis.faults;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.IntConsumer;
import org.junit.jupiter.api.Test;
import org.slotbook.core.Booking;
import org.slotbook.core.BookingEngine;
import org.slotbook.core.BookingStatus;
import org.slotbook.core.CancelResult;
import org.slotbook.core.Cancelled;
import org.slotbook.core.ConfirmResult;
import org.slotbook.core.Confirmed;
import org.slotbook.core.Full;
import org.slotbook.core.Held;
import org.slotbook.core.HoldPolicy;
import org.slotbook.core.HoldRequest;
import org.slotbook.core.HoldResult;
import org.slotbook.core.ReconcileReport;
import org.slotbook.core.RequestId;
import org.slotbook.core.SlotId;
import org.slotbook.core.StudentId;
import org.slotbook.core.spi.GateDecision;
import org.slotbook.core.spi.GateHolder;
import org.slotbook.core.spi.GateSync;
import org.slotbook.core.spi.GateOutcome;
import org.slotbook.core.spi.GateView;
import org.slotbook.core.tck.Concurrent;
import org.slotbook.core.tck.faults.CrashingStore;
import org.slotbook.core.tck.faults.Invariants;
import org.slotbook.core.tck.faults.Violations;
import org.slotbook.redis.internal.SlotKeys;
import redis.clients.jedis.Jedis;

/**
 * The scenarios that break Redis under a running sale (1, 2), the application between gate and
 * commit (3), and the race of reconcile against holds in flight (8). Each runs through a
 * {@link BookingEngine} over the store a subclass names and a redis-server process the suite owns;
 * the invariants are read back from that store ({@link #invariants()}).
 */
public abstract class RedisFaultScenarios extends RedisFaultSuite {

    /** Client threads of the mixed sales of scenarios 1 and 2. */
    protected int saleClients() {
        return THREADS;
    }

    // ------------------------------------------------------------------ 1, 2: Redis fails mid-sale

    @Test
    void scenario1RedisKilledMidSaleRestartedEmptyThenReconcile() {
        int students = 1_200;
        int capacity = 200;
        SlotId slot = schedule("kill", capacity);
        AtomicInteger faults = new AtomicInteger();
        // dead from the 120th answer to the 240th, while seats are still being sold; the second half of
        // the students waits until the server is up again (else the sale, answered by the database
        // alone while the server starts, may end before any hold meets the empty gate)
        CountDownLatch restarted = new CountDownLatch(1);
        MixedSale sale = mixedSale(slot, students, i -> {
            if (i >= students / 2) {
                await(restarted);
            }
        }, done -> {
            if (done == 120) {
                redis.kill();
                faults.incrementAndGet();
            } else if (done == 240) {
                try {
                    redis.start(); // empty: no persistence
                    faults.incrementAndGet();
                } finally {
                    restarted.countDown();
                }
            }
        });
        Violations v = new Violations();
        v.check(engine.metrics().gateUnavailable() > 0, "no hold noticed the dead Redis");
        v.check(engine.metrics().gateRebuilds() > 0, "the restarted, empty gate was never rebuilt");
        sale.check(this, slot, capacity, v);
        reconcileAndCheckGate(slot, capacity, v);
        report(1, "redis-killed-mid-sale/" + storeName(), sale.operations.sum(), faults.get(), v);
    }

    @Test
    void scenario2RedisKeysDeletedOrExpiredEarlyMidSale() {
        int students = 1_200;
        int capacity = 300;
        SlotId slot = schedule("del", capacity);
        List<String> keys = SlotKeys.keys(gate.keyPrefix(), tenant, slot);
        AtomicInteger faults = new AtomicInteger();
        List<Integer> at = List.of(80, 160, 240, 400); // the first three while seats are still being sold
        MixedSale sale = mixedSale(slot, students, i -> { }, done -> {
            int fault = at.indexOf(done) + 1;
            if (fault == 0) {
                return;
            }
            try (Jedis admin = admin()) {
                switch (fault) {
                    case 1 -> admin.del(keys.toArray(String[]::new));          // DEL of all the slot's keys
                    case 2 -> admin.del(keys.get(1));                          // DEL of the holders only
                    case 3 -> keys.forEach(k -> admin.pexpire(k, 1));          // expired early
                    case 4 -> admin.flushAll();                                // FLUSHALL
                    default -> { }
                }
            }
            faults.incrementAndGet();
        });
        Violations v = new Violations();
        v.check(faults.get() == 4, "expected 4 injected faults, got %d", faults.get());
        v.check(engine.metrics().gateRebuilds() > 0, "the emptied gate was never rebuilt");
        sale.check(this, slot, capacity, v);
        reconcileAndCheckGate(slot, capacity, v);
        report(2, "redis-keys-deleted-mid-sale/" + storeName(), sale.operations.sum(), faults.get(), v);
    }

    // ------------------------------------------------------------------ 3: death between gate and commit

    @Test
    void scenario3CrashBeforeCommitHoldsAreReclaimedByGateTtl() {
        // the gate keeps its own time: the requests that die hold their gate seat for a short TTL of
        // real time (the gate hold outlives the database hold by the cache grace), and the test waits
        // past it
        HoldPolicy shortTtl = POLICY.withHoldTtl(Duration.ofMillis(800)).withCacheGrace(Duration.ofMillis(200));
        CrashedSale sale = crashedSale("crash-ttl", shortTtl);
        sleep(shortTtl.gateTtl().plusMillis(300));
        Violations v = new Violations();
        sale.secondWave(v);
        report(3, "crash-before-commit-ttl/" + storeName(), sale.operations.sum(), sale.deaths.sum(), v);
    }

    @Test
    void scenario3CrashBeforeCommitHoldsAreReclaimedByReconcile() {
        CrashedSale sale = crashedSale("crash-rec", POLICY);
        // the gate judges the in-flight grace by its own clock: a reconciler with a 1 s grace, 1.3 s later
        // (still well inside the gate TTL)
        HoldPolicy shortGrace = POLICY.withInFlightGrace(Duration.ofSeconds(1));
        sleep(Duration.ofMillis(1300));
        ReconcileReport report = engine(store, gate, shortGrace).reconcile(tenant, sale.slot);
        Violations v = new Violations();
        v.check(report.holdersRemoved() == sale.deaths.sum(), "reconcile removed %d holders, %d requests died",
                report.holdersRemoved(), sale.deaths.sum());
        v.check(report.holdersAdded() == 0, "reconcile added %d holders", report.holdersAdded());
        sale.secondWave(v);
        report(3, "crash-before-commit-reconcile/" + storeName(), sale.operations.sum() + 1, sale.deaths.sum(), v);
    }

    @Test
    void scenario3GateHoldsWithoutBookingAreNeverSold() {
        int capacity = 20;
        SlotId slot = schedule("orphans", capacity);
        Instant now = clock.instant();
        // 10 students whose process died right after the gate hold and never come back, 10 who retry
        // (the gate keeps its own time, which the test clock does not move: the orphans are planted through
        // reconcile, which keeps the truth's takenAt, as taken more than the in-flight grace ago)
        Instant takenAt = Instant.now().minus(POLICY.inFlightGrace()).minusSeconds(1);
        List<GateHolder> orphans = new ArrayList<>();
        for (int i = 0; i < capacity; i++) {
            String who = i < 10 ? "gone-" + i : "back-" + i;
            orphans.add(new GateHolder(StudentId.of(who), RequestId.of("r-" + who), takenAt,
                    Instant.now().plus(POLICY.gateTtl())));
        }
        GateSync planted = gate.reconcile(tenant, slot, capacity, orphans, Duration.ofDays(1),
                Instant.now().plus(Duration.ofDays(2)));
        if (planted.added() != capacity) {
            throw new AssertionError("could not plant the orphan gate holds: " + planted);
        }
        List<Booking> held = new ArrayList<>();
        LongAdder ops = new LongAdder();
        Violations v = new Violations();
        // the returning students get their seat: the orphan is released and taken again
        List<HoldResult> returning = concurrentHolds(slot, 10, i -> "back-" + (i + 10), ops);
        returning.forEach(r -> {
            v.check(r instanceof Held, "a returning student got %s", r);
            if (r instanceof Held h) {
                held.add(h.booking());
            }
        });
        v.check(engine.metrics().gateOrphansReleased() == 10, "orphans released: %d",
                engine.metrics().gateOrphansReleased());
        // newcomers find the gate full of the gone students' orphans
        List<HoldResult> early = concurrentHolds(slot, 10, i -> "new-" + i, ops);
        early.forEach(r -> v.check(r instanceof Full, "a newcomer got %s while orphans filled the gate", r));
        clock.advance(POLICY.inFlightGrace().plusSeconds(1));
        ReconcileReport report = engine.reconcile(tenant, slot);
        ops.increment();
        v.check(report.holdersRemoved() == 10, "reconcile removed %d orphans, expected 10", report.holdersRemoved());
        List<HoldResult> late = concurrentHolds(slot, 10, i -> "new-" + i, ops);
        late.forEach(r -> {
            v.check(r instanceof Held, "a newcomer got %s after reconcile", r);
            if (r instanceof Held h) {
                held.add(h.booking());
            }
        });
        Invariants inv = invariants();
        Instant at = clock.instant();
        inv.checkSlot(slot, capacity, at, v);
        inv.checkOccupancy(at, v);
        inv.checkAnswered(held, EnumSet.of(BookingStatus.HELD), v);
        long gone = 0;
        for (int i = 0; i < 10; i++) {
            gone += inv.bookingIdsOf(StudentId.of("gone-" + i), at).size();
        }
        v.check(gone == 0, "%d bookings for students whose process died", gone);
        v.check(inv.liveBookings(slot, at).size() == capacity, "not sold out after the orphans were reclaimed");
        inv.checkGate(slot, capacity, at, v);
        report(3, "gate-hold-without-booking/" + storeName(), ops.sum(), 10, v);
    }

    // ------------------------------------------------------------------ reconcile against holds in flight

    @Test
    void scenario8ReconcileRacingHoldsNeverDropsAnInFlightHold() {
        // real time, and an in-flight grace far longer than any hold transaction here
        HoldPolicy policy = POLICY.withInFlightGrace(Duration.ofSeconds(5));
        BookingEngine racing = BookingEngine.builder().store(store)
                .reservation(gate).holdPolicy(policy).clock(Clock.systemUTC()).build();
        int capacity = 300;
        int students = 2_000;
        int ghosts = 30;
        SlotId slot = schedule("race", capacity);
        // holds left behind long ago by requests that never reached the database: reconcile removes these
        Instant longAgo = Instant.now().minus(Duration.ofMinutes(10));
        // (the gate keeps its own time: a hold taken long ago is planted through reconcile, which keeps the
        // truth's takenAt, with a grace that removes nothing)
        List<GateHolder> planted = new ArrayList<>();
        for (int i = 0; i < ghosts; i++) {
            planted.add(new GateHolder(StudentId.of("ghost-" + i), RequestId.of("ghost-" + i), longAgo,
                    Instant.now().plus(Duration.ofHours(1))));
        }
        gate.reconcile(tenant, slot, capacity, planted, Duration.ofDays(1), Instant.now().plus(Duration.ofDays(2)));
        ConcurrentLinkedQueue<Booking> held = new ConcurrentLinkedQueue<>();
        AtomicBoolean selling = new AtomicBoolean(true);
        List<ReconcileReport> reports = new ArrayList<>();
        Thread reconciler = new Thread(() -> {
            while (selling.get()) {
                reports.add(racing.reconcile(tenant, slot));
            }
        }, "reconcile-loop");
        reconciler.start();
        Concurrent.Load run;
        try {
            run = Concurrent.load(THREADS, students, i -> {
                HoldResult r = racing.hold(tenant, HoldRequest.of(RequestId.of("r" + i), slot,
                        StudentId.of("s" + i)));
                if (r instanceof Held h) {
                    held.add(h.booking());
                } else if (!(r instanceof Full)) {
                    throw new AssertionError("unexpected answer " + r);
                }
            });
        } finally {
            selling.set(false);
            join(reconciler);
        }
        Violations v = new Violations();
        v.check(run.thrownTotal() == 0, "clients saw exceptions: %s %s", run.thrown(), run.samples());
        ReconcileReport total = reports.stream().reduce(ReconcileReport.EMPTY, ReconcileReport::plus);
        v.check(total.slotsChecked() > 1, "reconcile ran only %d times during the sale", total.slotsChecked());
        v.check(total.holdersRemoved() == ghosts, "reconcile removed %d holders, but only %d were stale: "
                + "an in-flight hold was dropped", total.holdersRemoved(), ghosts);
        v.check(total.holdersAdded() == 0, "reconcile had to add %d holders back: a hold went missing",
                total.holdersAdded());
        Instant now = Instant.now();
        GateView view = gate.inspect(tenant, slot).orElseThrow();
        Set<StudentId> inGate = new HashSet<>();
        for (GateHolder h : view.holders()) {
            inGate.add(h.studentId());
        }
        for (Booking b : held) {
            v.check(inGate.contains(b.studentId()), "held student %s is not in the gate", b.studentId());
        }
        Invariants inv = invariants();
        List<Booking> live = inv.liveBookings(slot, now);
        v.check(live.size() == held.size(), "%d live bookings, %d Held answers", live.size(), held.size());
        v.check(live.size() == capacity, "not sold out: %d of %d", live.size(), capacity);
        v.check(view.remaining() == capacity - live.size(), "gate remaining %d != capacity %d - live %d",
                view.remaining(), capacity, live.size());
        v.check(inGate.size() == live.size(), "gate has %d holders, ledger %d live", inGate.size(), live.size());
        inv.checkSlot(slot, capacity, now, v);
        inv.checkOccupancy(now, v);
        inv.checkAnswered(held, EnumSet.of(BookingStatus.HELD), v);
        System.out.printf("reconcile race: %d reconciles during %d holds, %d stale holders removed%n",
                total.slotsChecked(), students, total.holdersRemoved());
        report(8, "reconcile-races-holds/" + storeName(), students + total.slotsChecked(), ghosts, v);
    }

    // ------------------------------------------------------------------ helpers

    /**
     * A mixed sale: every student holds; of those who get a seat every third confirms and every tenth
     * cancels afterwards. What each client was told last is remembered per booking.
     */
    private MixedSale mixedSale(SlotId slot, int students, IntConsumer beforeHold, Concurrent.Progress fault) {
        MixedSale sale = new MixedSale();
        sale.run = Concurrent.load(saleClients(), students, i -> {
            beforeHold.accept(i);
            StudentId student = StudentId.of("s" + i);
            HoldResult r = engine.hold(tenant, HoldRequest.of(RequestId.of("r" + i), slot, student));
            sale.operations.increment();
            if (r instanceof Full) {
                return;
            }
            if (!(r instanceof Held h)) {
                throw new AssertionError("unexpected answer " + r);
            }
            sale.told.put(h.booking(), BookingStatus.HELD);
            if (i % 3 == 0) {
                ConfirmResult c = engine.confirm(tenant, h.booking().bookingId(), student);
                sale.operations.increment();
                if (!(c instanceof Confirmed)) {
                    throw new AssertionError("confirm answered " + c);
                }
                sale.told.put(h.booking(), BookingStatus.CONFIRMED);
            }
            if (i % 10 == 0) {
                CancelResult c = engine.cancel(tenant, h.booking().bookingId(), student);
                sale.operations.increment();
                if (!(c instanceof Cancelled)) {
                    throw new AssertionError("cancel answered " + c);
                }
                sale.told.put(h.booking(), BookingStatus.CANCELLED);
            }
        }, fault);
        return sale;
    }

    private static final class MixedSale {
        final Map<Booking, BookingStatus> told = new ConcurrentHashMap<>();
        final LongAdder operations = new LongAdder();
        Concurrent.Load run;

        void check(RedisFaultScenarios suite, SlotId slot, int capacity, Violations v) {
            v.check(run.thrownTotal() == 0, "clients saw exceptions: %s %s", run.thrown(), run.samples());
            Invariants inv = suite.invariants();
            Instant now = suite.clock.instant();
            inv.checkSlot(slot, capacity, now, v);
            inv.checkOccupancy(now, v);
            for (BookingStatus status : BookingStatus.values()) {
                List<Booking> answered = told.entrySet().stream().filter(e -> e.getValue() == status)
                        .map(Map.Entry::getKey).toList();
                inv.checkAnswered(answered, EnumSet.of(status), v);
            }
            long liveAnswered = told.values().stream().filter(s -> s != BookingStatus.CANCELLED).count();
            List<Booking> live = inv.liveBookings(slot, now);
            v.check(live.size() == liveAnswered, "%d live bookings, but clients were told %d", live.size(),
                    liveAnswered);
            if (live.size() < capacity) {
                // A gate rebuilt from a ledger read that a concurrent cancel overtook can count a
                // released holder until reconciliation drops it (only once it is older than the
                // in-flight grace). Repair as a deployment would, then sell what is left.
                suite.reconcileAsADeploymentWould(slot);
                for (int extra = 0; extra < capacity; extra++) {
                    HoldResult r = suite.engine.hold(suite.tenant,
                            HoldRequest.of(RequestId.of("top-up-" + extra), slot, StudentId.of("top-up-" + extra)));
                    if (!(r instanceof Held)) {
                        break;
                    }
                }
                live = inv.liveBookings(slot, suite.clock.instant());
            }
            v.check(live.size() == capacity, "the slot did not sell out, even after reconcile: %d of %d", live.size(),
                    capacity);
        }
    }

    /** A sale in which every fifth request dies between its gate hold and its commit; those use {@code doomedPolicy}. */
    private CrashedSale crashedSale(String name, HoldPolicy doomedPolicy) {
        CrashedSale sale = new CrashedSale();
        sale.capacity = 200;
        sale.slot = schedule(name, sale.capacity);
        CrashingStore crashing = new CrashingStore(store);
        BookingEngine crashy = engine(crashing, gate, POLICY);
        BookingEngine doomedEngine = engine(crashing, gate, doomedPolicy);
        sale.run = Concurrent.load(THREADS, 600, i -> {
            StudentId student = StudentId.of("s" + i);
            HoldRequest request = HoldRequest.of(RequestId.of("r" + i), sale.slot, student);
            sale.operations.increment();
            if (i % 5 == 0) {
                sale.doomed.add(request.requestId().value());
                try {
                    HoldResult r = CrashingStore.doom(() -> doomedEngine.hold(tenant, request));
                    if (!(r instanceof Full)) {
                        throw new AssertionError("a doomed request answered " + r);
                    }
                } catch (CrashingStore.ProcessDeath death) {
                    sale.deaths.increment();
                }
                return;
            }
            HoldResult r = crashy.hold(tenant, request);
            if (r instanceof Held h) {
                // confirmed seats are pinned: they stay through the clock moves below
                ConfirmResult c = crashy.confirm(tenant, h.booking().bookingId(), student);
                sale.operations.increment();
                if (!(c instanceof Confirmed confirmed)) {
                    throw new AssertionError("confirm answered " + c);
                }
                sale.confirmed.add(confirmed.booking());
            } else if (!(r instanceof Full)) {
                throw new AssertionError("unexpected answer " + r);
            }
        });
        return sale;
    }

    private final class CrashedSale {
        final Set<String> doomed = ConcurrentHashMap.newKeySet();
        final ConcurrentLinkedQueue<Booking> confirmed = new ConcurrentLinkedQueue<>();
        final LongAdder operations = new LongAdder();
        final LongAdder deaths = new LongAdder();
        SlotId slot;
        int capacity;
        Concurrent.Load run;

        /** Newcomers take the seats the dead requests' gate holds had blocked; then everything is checked. */
        void secondWave(Violations v) {
            v.check(run.thrownTotal() == 0, "clients saw exceptions: %s %s", run.thrown(), run.samples());
            v.check(deaths.sum() > 0, "no request died between gate and commit");
            v.check(confirmed.size() < capacity, "the dead requests' gate holds blocked nothing");
            ConcurrentLinkedQueue<Booking> late = new ConcurrentLinkedQueue<>();
            Concurrent.Load wave = Concurrent.load(THREADS, capacity, i -> {
                HoldResult r = engine.hold(tenant, HoldRequest.of(RequestId.of("late-" + i), slot,
                        StudentId.of("late-" + i)));
                operations.increment();
                if (r instanceof Held h) {
                    late.add(h.booking());
                } else if (!(r instanceof Full)) {
                    throw new AssertionError("unexpected answer " + r);
                }
            });
            v.check(wave.thrownTotal() == 0, "second wave saw exceptions: %s", wave.thrown());
            Invariants inv = invariants();
            Instant now = clock.instant();
            v.check(late.size() == capacity - confirmed.size(), "second wave got %d seats, %d were left",
                    late.size(), capacity - confirmed.size());
            inv.checkSlot(slot, capacity, now, v);
            inv.checkOccupancy(now, v);
            inv.checkAnswered(confirmed, EnumSet.of(BookingStatus.CONFIRMED), v);
            inv.checkAnswered(late, EnumSet.of(BookingStatus.HELD), v);
            long sold = doomed.stream().filter(r -> inv.hasBooking(RequestId.of(r))).count();
            v.check(sold == 0, "%d seats were sold to requests that died before their commit", sold);
            v.check(inv.liveBookings(slot, now).size() == capacity, "not sold out after the reclaim");
            clock.advance(POLICY.inFlightGrace().plusSeconds(1));
            engine.reconcile(tenant, slot);
            inv.checkGate(slot, capacity, clock.instant(), v);
        }
    }

    private List<HoldResult> concurrentHolds(SlotId slot, int count, java.util.function.IntFunction<String> who,
                                             LongAdder ops) {
        List<HoldResult> results = java.util.Collections.synchronizedList(new ArrayList<>());
        Concurrent.Load run = Concurrent.load(Math.min(count, THREADS), count, i -> {
            String name = who.apply(i);
            results.add(engine.hold(tenant, HoldRequest.of(RequestId.of("r-" + name), slot, StudentId.of(name))));
            ops.increment();
        });
        if (run.thrownTotal() > 0) {
            throw new AssertionError("holds threw: " + run.thrown() + " " + run.samples());
        }
        return results;
    }

    private static void join(Thread t) {
        try {
            t.join(30_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }

}
