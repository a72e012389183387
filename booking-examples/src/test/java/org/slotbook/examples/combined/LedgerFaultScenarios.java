package org.slotbook.examples.combined;

import java.time.DayOfWeek;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.temporal.ChronoUnit;
import java.time.temporal.TemporalAdjusters;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.Test;
import org.slotbook.core.AlreadyCancelled;
import org.slotbook.core.Booking;
import org.slotbook.core.BookingEngine;
import org.slotbook.core.BookingStatus;
import org.slotbook.core.CancelResult;
import org.slotbook.core.Cancelled;
import org.slotbook.core.CoachId;
import org.slotbook.core.ConfirmResult;
import org.slotbook.core.Confirmed;
import org.slotbook.core.Conflict;
import org.slotbook.core.Full;
import org.slotbook.core.Held;
import org.slotbook.core.HoldExpired;
import org.slotbook.core.HoldRequest;
import org.slotbook.core.HoldResult;
import org.slotbook.core.RequestId;
import org.slotbook.core.RoomId;
import org.slotbook.core.ScheduleResult;
import org.slotbook.core.Scheduled;
import org.slotbook.core.Slot;
import org.slotbook.core.SlotId;
import org.slotbook.core.SlotSpec;
import org.slotbook.core.StudentId;
import org.slotbook.core.TimeRange;
import org.slotbook.core.spi.LiveSlot;
import org.slotbook.core.tck.Concurrent;
import org.slotbook.core.tck.Fixtures;
import org.slotbook.core.tck.faults.SlowStore;
import org.slotbook.core.tck.faults.Violations;
import org.slotbook.jdbc.JdbcDialect;

/**
 * The scenarios whose faults are in the clients and the clock rather than in Redis: duplicate and
 * concurrent cancels (4), a hold retried after a client timeout (5), and the edges of time (7). They
 * run on every database, with the suite's Redis gate in front.
 */
abstract class LedgerFaultScenarios extends SqlFaultSuite {

    // ------------------------------------------------------------------ 4: duplicate, concurrent cancels

    @Test
    void scenario4DuplicateConcurrentCancelsGiveOneSeatBack() {
        int capacity = 20;
        SlotId slot = schedule("cancels", capacity);
        List<Booking> sold = new ArrayList<>();
        for (int i = 0; i < capacity; i++) {
            StudentId student = StudentId.of("s" + i);
            Held held = (Held) engine.hold(tenant, HoldRequest.of(RequestId.of("r" + i), slot, student));
            if (i < 10) {
                engine.confirm(tenant, held.booking().bookingId(), student);
            }
            sold.add(held.booking());
        }
        // three confirmed and two held bookings, each cancel delivered 100 times from 10 threads
        List<Booking> targets = List.of(sold.get(0), sold.get(1), sold.get(2), sold.get(15), sold.get(16));
        List<Booking> deliveries = new ArrayList<>();
        for (Booking b : targets) {
            deliveries.addAll(Collections.nCopies(100, b));
        }
        Random random = Fixtures.random("scenario 4 delivery order");
        Collections.shuffle(deliveries, random);
        Map<Booking, AtomicInteger> cancelled = new ConcurrentHashMap<>();
        LongAdder already = new LongAdder();
        List<CancelResult> odd = Collections.synchronizedList(new ArrayList<>());
        Concurrent.Load run = Concurrent.load(10, deliveries.size(), i -> {
            Booking b = deliveries.get(i);
            CancelResult r = engine.cancel(tenant, b.bookingId(), b.studentId());
            if (r instanceof Cancelled) {
                cancelled.computeIfAbsent(b, k -> new AtomicInteger()).incrementAndGet();
            } else if (r instanceof AlreadyCancelled) {
                already.increment();
            } else {
                odd.add(r);
            }
        });
        Violations v = new Violations();
        v.check(run.thrownTotal() == 0, "cancels threw: %s %s", run.thrown(), run.samples());
        v.check(odd.isEmpty(), "unexpected cancel answers: %s", odd);
        for (Booking b : targets) {
            int n = cancelled.getOrDefault(b, new AtomicInteger()).get();
            v.check(n == 1, "booking of %s answered Cancelled %d times in 100 deliveries", b.studentId(), n);
        }
        v.check(already.sum() == deliveries.size() - targets.size(), "AlreadyCancelled %d times", already.sum());
        SqlInvariants inv = invariants();
        Instant now = clock.instant();
        v.check(inv.count(slot, now).taken() == capacity - targets.size(), "seats taken after the cancels: %d",
                inv.count(slot, now).taken());
        long free = inv.single("SELECT COUNT(*) FROM " + db.table("slot_seat")
                + " WHERE tenant_id = ? AND slot_id = ? AND status = 'FREE'", slot);
        v.check(free == targets.size(), "%d free seat rows after %d cancels", free, targets.size());
        inv.checkAnswered(targets, EnumSet.of(BookingStatus.CANCELLED), v);
        // the gate got exactly these seats back, without a reconcile
        inv.checkGate(slot, capacity, now, v);
        // a late redelivery changes nothing
        for (Booking b : targets) {
            CancelResult late = engine.cancel(tenant, b.bookingId(), b.studentId());
            v.check(late instanceof AlreadyCancelled, "a late redelivery answered %s", late);
        }
        // the freed seats go to exactly as many newcomers
        List<HoldResult> newcomers = Collections.synchronizedList(new ArrayList<>());
        Concurrent.load(10, 10, i -> newcomers.add(engine.hold(tenant,
                HoldRequest.of(RequestId.of("new-" + i), slot, StudentId.of("new-" + i)))));
        long got = newcomers.stream().filter(r -> r instanceof Held).count();
        v.check(got == targets.size(), "%d newcomers got a seat, %d were freed", got, targets.size());
        inv.checkSlot(slot, capacity, now, v);
        inv.checkOccupancy(clock.instant(), v);
        inv.checkGate(slot, capacity, now, v);
        report(4, "duplicate-concurrent-cancels/" + db.name(), deliveries.size() + targets.size() + 10L,
                deliveries.size() - targets.size(), v);
    }

    // ------------------------------------------------------------------ 5: a hold retried after a timeout

    @Test
    void scenario5HoldRetriedAfterTimeoutGetsTheOriginalAnswer() throws Exception {
        int capacity = 30;
        int students = 8;
        SlotId slot = schedule("retry", capacity);
        SlowStore slow = new SlowStore(store, Duration.ofMillis(400));
        BookingEngine slowEngine = engine(slow, gate, POLICY);
        LongAdder timeouts = new LongAdder();
        LongAdder operations = new LongAdder();
        Violations v = new Violations();
        List<Booking> answered = Collections.synchronizedList(new ArrayList<>());
        Concurrent.Load run = Concurrent.load(students, students, k -> {
            StudentId student = StudentId.of("s" + k);
            HoldRequest request = HoldRequest.of(RequestId.of("r" + k), slot, student);
            CountDownLatch written = new CountDownLatch(1);
            CountDownLatch committed = new CountDownLatch(1);
            CompletableFuture<HoldResult> original = new CompletableFuture<>();
            operations.increment();
            // the original on one thread, the client that sent it (and times out, and retries) on the other
            Concurrent.runAll(2, role -> {
                if (role == 0) {
                    try {
                        original.complete(SlowStore.slowly(written::countDown, committed::countDown,
                                () -> slowEngine.hold(tenant, request)));
                    } catch (RuntimeException | Error e) {
                        original.completeExceptionally(e);
                    }
                } else {
                    try {
                        retryAfterTimeout(slowEngine, request, original, written, committed, answered, timeouts,
                                operations, v);
                    } catch (Exception e) {
                        throw new IllegalStateException("the client of " + student + " failed: " + e, e);
                    }
                }
            });
        });
        v.check(run.thrownTotal() == 0, "clients threw: %s %s", run.thrown(), run.samples());
        SqlInvariants inv = invariants();
        Instant now = clock.instant();
        Map<String, SqlInvariants.Row> rows = inv.bookings();
        for (int k = 0; k < students; k++) {
            String request = "r" + k;
            String student = "s" + k;
            long perRequest = rows.values().stream().filter(r -> r.requestId().equals(request)).count();
            long perStudent = rows.values().stream().filter(r -> r.studentId().equals(student)).count();
            v.check(perRequest == 1 && perStudent == 1, "request %s has %d booking rows, student %s %d", request,
                    perRequest, student, perStudent);
        }
        v.check(inv.count(slot, now).taken() == students, "%d seats taken by %d students",
                inv.count(slot, now).taken(), students);
        inv.checkAnswered(answered, EnumSet.of(BookingStatus.HELD), v);
        inv.checkSlot(slot, capacity, now, v);
        inv.checkOccupancy(clock.instant(), v);
        clock.advance(POLICY.inFlightGrace().plusSeconds(1));
        engine.reconcile(tenant, slot);
        inv.checkGate(slot, capacity, clock.instant(), v);
        report(5, "hold-retried-after-timeout/" + db.name(), operations.sum(), timeouts.sum(), v);
    }

    /**
     * The client of one request in scenario 5: it gives up on the slowed {@code original} after 50 ms,
     * retries the same request ten times at once while the original is in flight and five times after,
     * and every answer must name the one booking the request got.
     */
    private void retryAfterTimeout(BookingEngine slowEngine, HoldRequest request, CompletableFuture<HoldResult> original,
                                   CountDownLatch written, CountDownLatch committed, List<Booking> answered,
                                   LongAdder timeouts, LongAdder operations, Violations v) throws Exception {
        StudentId student = request.studentId();
        try {
            original.get(50, TimeUnit.MILLISECONDS);
            v.add("the slowed original of %s answered before the client timed out", student);
        } catch (TimeoutException expected) {
            timeouts.increment();
        }
        // the original holds its gate seat and has not yet made its database call
        v.check(written.await(10, TimeUnit.SECONDS), "the original of %s never reached its store call", student);
        // the client retries the same request, ten times at once, while the original is in flight
        List<HoldResult> retries = Collections.synchronizedList(new ArrayList<>());
        Concurrent.Load concurrent = Concurrent.load(10, 10, i -> retries.add(slowEngine.hold(tenant, request)));
        operations.add(10);
        v.check(concurrent.thrownTotal() == 0, "concurrent retries threw: %s %s", concurrent.thrown(),
                concurrent.samples());
        HoldResult first = original.get(30, TimeUnit.SECONDS);
        v.check(committed.getCount() == 0, "the original of %s answered without its store call", student);
        for (int i = 0; i < 5; i++) {
            retries.add(slowEngine.hold(tenant, request));
            operations.increment();
        }
        if (!(first instanceof Held h)) {
            v.add("the original of %s answered %s", student, first);
            return;
        }
        answered.add(h.booking());
        // Whichever call reached the database first (usually a concurrent retry, since the
        // original waited before its call) stored the booking; every other call is a replay of it.
        int fresh = h.replayed() ? 0 : 1;
        for (HoldResult r : retries) {
            v.check(r instanceof Held retry && retry.booking().bookingId().equals(h.booking().bookingId()),
                    "a retry of %s answered %s, the original answered %s", student, r, h);
            if (r instanceof Held retry && !retry.replayed()) {
                fresh++;
            }
        }
        v.check(fresh == 1, "%d of the answers to %s were not replays, expected exactly one", fresh, student);
    }

    // ------------------------------------------------------------------ 7: clock edges

    @Test
    void scenario7HoldExpiresAtExactlyHeldUntil() {
        Violations v = new Violations();
        int ops = 0;
        // confirm at heldUntil: expired, and the seat goes to the next student at once
        SlotId edge = schedule("edge", 1);
        Held a = (Held) engine.hold(tenant, HoldRequest.of(RequestId.of("ra"), edge, StudentId.of("a")));
        Instant heldUntil = a.booking().heldUntil();
        v.check(heldUntil.equals(clock.instant().plus(POLICY.holdTtl())), "heldUntil %s", heldUntil);
        clock.set(heldUntil.minusNanos(1_000));
        v.check(invariants().count(edge, clock.instant()).held() == 1, "the hold is not live 1 µs before heldUntil");
        clock.set(heldUntil);
        v.check(invariants().count(edge, clock.instant()).taken() == 0, "the hold is still live at heldUntil");
        ConfirmResult late = engine.confirm(tenant, a.booking().bookingId(), StudentId.of("a"));
        v.check(late instanceof HoldExpired, "confirm at heldUntil answered %s", late);
        HoldResult b = engine.hold(tenant, HoldRequest.of(RequestId.of("rb"), edge, StudentId.of("b")));
        v.check(b instanceof Held, "the next student got %s for the expired seat", b);
        ops += 3;
        // confirm one microsecond before heldUntil: still in time
        SlotId inTime = schedule("intime", 1);
        Held c = (Held) engine.hold(tenant, HoldRequest.of(RequestId.of("rc"), inTime, StudentId.of("c")));
        clock.set(c.booking().heldUntil().minusNanos(1_000));
        ConfirmResult ok = engine.confirm(tenant, c.booking().bookingId(), StudentId.of("c"));
        v.check(ok instanceof Confirmed, "confirm 1 µs before heldUntil answered %s", ok);
        ops += 2;
        // the sweep at heldUntil expires the hold and frees seat and gate
        SlotId swept = schedule("swept", 1);
        Held d = (Held) engine.hold(tenant, HoldRequest.of(RequestId.of("rd"), swept, StudentId.of("d")));
        clock.set(d.booking().heldUntil());
        int expired = engine.sweepExpired(tenant, 100);
        v.check(expired >= 1, "the sweep at heldUntil expired %d holds", expired);
        HoldResult e = engine.hold(tenant, HoldRequest.of(RequestId.of("re"), swept, StudentId.of("e")));
        v.check(e instanceof Held, "after the sweep the next student got %s", e);
        ops += 3;
        SqlInvariants inv = invariants();
        Map<String, SqlInvariants.Row> rows = inv.bookings();
        v.check("EXPIRED".equals(rows.get(a.booking().bookingId().value()).status()), "a is %s",
                rows.get(a.booking().bookingId().value()).status());
        v.check("EXPIRED".equals(rows.get(d.booking().bookingId().value()).status()), "d is %s",
                rows.get(d.booking().bookingId().value()).status());
        for (SlotId slot : List.of(edge, inTime, swept)) {
            inv.checkSlot(slot, 1, clock.instant(), v);
            inv.checkGate(slot, 1, clock.instant(), v);
        }
        inv.checkOccupancy(clock.instant(), v);
        report(7, "hold-expiry-boundary/" + db.name(), ops, 3, v);
    }

    @Test
    void scenario7SessionsAcrossDaylightSavingChange() {
        ZoneId berlin = ZoneId.of("Europe/Berlin");
        // the last Sunday of October after today: 03:00 CEST becomes 02:00 CET, 02:00-03:00 happens twice
        int year = LocalDate.ofInstant(clock.instant(), berlin).getYear() + 1;
        LocalDate change = LocalDate.of(year, 10, 31).with(TemporalAdjusters.lastInMonth(DayOfWeek.SUNDAY));
        Instant oneCest = ZonedDateTime.of(change.atTime(1, 0), berlin).toInstant();
        Instant twoThirtyCest = ZonedDateTime.ofLocal(change.atTime(2, 30), berlin, null)
                .withEarlierOffsetAtOverlap().toInstant();
        Instant twoThirtyCet = ZonedDateTime.ofLocal(change.atTime(2, 30), berlin, null)
                .withLaterOffsetAtOverlap().toInstant();
        Instant twoCet = ZonedDateTime.ofLocal(change.atTime(2, 0), berlin, null).withLaterOffsetAtOverlap()
                .toInstant();
        Instant threeCet = ZonedDateTime.of(change.atTime(3, 0), berlin).toInstant();
        Instant threeThirtyCet = ZonedDateTime.of(change.atTime(3, 30), berlin).toInstant();
        Violations v = new Violations();
        v.check(Duration.between(twoThirtyCest, twoThirtyCet).equals(Duration.ofHours(1)),
                "02:30 CEST to 02:30 CET is not one hour");
        CoachId coach = CoachId.of("dst-coach");
        // back to back across the change: 01:00-02:30 CEST, then 02:30 CEST-02:30 CET, then 02:30-03:30 CET
        ScheduleResult first = scheduleFor("dst-1", coach, "dst-room-1", new TimeRange(oneCest, twoThirtyCest));
        ScheduleResult second = scheduleFor("dst-2", coach, "dst-room-2", new TimeRange(twoThirtyCest, twoThirtyCet));
        ScheduleResult fourth = scheduleFor("dst-4", coach, "dst-room-4", new TimeRange(twoThirtyCet, threeThirtyCet));
        v.check(first instanceof Scheduled, "01:00-02:30 CEST: %s", first);
        v.check(second instanceof Scheduled, "02:30 CEST-02:30 CET (back to back across the change): %s", second);
        v.check(fourth instanceof Scheduled, "02:30-03:30 CET (back to back): %s", fourth);
        // 02:00-03:00 CET overlaps 02:30 CEST-02:30 CET by half an hour
        ScheduleResult overlapping = scheduleFor("dst-3", coach, "dst-room-3", new TimeRange(twoCet, threeCet));
        v.check(overlapping instanceof Conflict c && c.conflicts().stream()
                        .anyMatch(rc -> rc.slotId().equals(SlotId.of("dst-2"))),
                "02:00-03:00 CET must conflict with the session 02:30 CEST-02:30 CET, got %s", overlapping);
        // the same wall-clock hour read in summer time overlaps both earlier sessions
        Instant twoCest = ZonedDateTime.ofLocal(change.atTime(2, 0), berlin, null).withEarlierOffsetAtOverlap()
                .toInstant();
        ScheduleResult summer = scheduleFor("dst-5", coach, "dst-room-5", new TimeRange(twoCest,
                twoCest.plus(Duration.ofHours(1))));
        v.check(summer instanceof Conflict c && c.conflicts().size() >= 2,
                "02:00-03:00 CEST must conflict with two sessions, got %s", summer);
        // a student takes the three back-to-back sessions; another session at the repeated hour clashes
        StudentId student = StudentId.of("night-owl");
        for (String s : List.of("dst-1", "dst-2", "dst-4")) {
            HoldResult r = engine.hold(tenant, HoldRequest.of(RequestId.of("r-" + s), SlotId.of(s), student));
            v.check(r instanceof Held, "hold of %s answered %s", s, r);
        }
        ScheduleResult other = scheduleFor("dst-6", CoachId.of("dst-coach-6"), "dst-room-6",
                new TimeRange(twoCet, threeCet));
        v.check(other instanceof Scheduled, "another coach at 02:00 CET: %s", other);
        HoldResult clash = engine.hold(tenant, HoldRequest.of(RequestId.of("r-dst-6"), SlotId.of("dst-6"), student));
        v.check(clash instanceof Conflict, "a student in 02:30 CEST-02:30 CET and 02:00-03:00 CET: %s", clash);
        // the stored times are the instants, whatever the zone
        checkStoredTime(SlotId.of("dst-2"), new TimeRange(twoThirtyCest, twoThirtyCet), v);
        SqlInvariants inv = invariants();
        inv.checkOccupancy(clock.instant(), v);
        for (String s : List.of("dst-1", "dst-2", "dst-4", "dst-6")) {
            inv.checkSlot(SlotId.of(s), 5, clock.instant(), v);
        }
        report(7, "sessions-across-dst/" + db.name(), 11, 0, v);
    }

    @Test
    void scenario7SubMicrosecondInstantsAreTruncatedConsistently() {
        Violations v = new Violations();
        Instant base = clock.instant().truncatedTo(ChronoUnit.HOURS).plus(Duration.ofDays(2));
        CoachId coach = CoachId.of("nano-coach");
        TimeRange withNanos = new TimeRange(base.plusNanos(500), base.plus(Duration.ofHours(1)).plusNanos(999));
        v.check(withNanos.start().equals(base) && withNanos.end().equals(base.plus(Duration.ofHours(1))),
                "nanos not truncated: %s", withNanos);
        ScheduleResult s1 = scheduleFor("nano-1", coach, "nano-room-1", withNanos);
        v.check(s1 instanceof Scheduled, "nano-1: %s", s1);
        // starts 1 ns after nano-1 ends: truncated to its end, back to back
        ScheduleResult s2 = scheduleFor("nano-2", coach, "nano-room-2", new TimeRange(
                base.plus(Duration.ofHours(1)).plusNanos(1), base.plus(Duration.ofHours(2))));
        v.check(s2 instanceof Scheduled, "nano-2 (back to back after truncation): %s", s2);
        // starts 1 ns before nano-1 ends: truncated to 1 µs before, an overlap of one microsecond
        ScheduleResult s3 = scheduleFor("nano-3", coach, "nano-room-3", new TimeRange(
                base.plus(Duration.ofHours(1)).minusNanos(1), base.plus(Duration.ofHours(3))));
        v.check(s3 instanceof Conflict, "nano-3 overlaps nano-1 by 1 µs: %s", s3);
        // a spec with nanos is the same spec as its truncation: scheduling it again is a replay
        ScheduleResult again = scheduleFor("nano-1", coach, "nano-room-1", new TimeRange(base.plusNanos(1),
                base.plus(Duration.ofHours(1)).plusNanos(7)));
        v.check(again instanceof Scheduled, "the same slot with other nanos: %s", again);
        checkStoredTime(SlotId.of("nano-1"), new TimeRange(base, base.plus(Duration.ofHours(1))), v);
        // a clock with nanos: the engine truncates now as the ledger does
        clock.set(clock.instant().plusNanos(999));
        Held held = (Held) engine.hold(tenant, HoldRequest.of(RequestId.of("r-n1"), SlotId.of("nano-1"),
                StudentId.of("n1")));
        Instant heldUntil = held.booking().heldUntil();
        v.check(heldUntil.getNano() % 1_000 == 0, "heldUntil keeps sub-microsecond digits: %s", heldUntil);
        clock.set(heldUntil.plusNanos(999)); // truncated: exactly heldUntil
        ConfirmResult late = engine.confirm(tenant, held.booking().bookingId(), StudentId.of("n1"));
        v.check(late instanceof HoldExpired, "confirm at heldUntil + 999 ns answered %s", late);
        Held other = (Held) engine.hold(tenant, HoldRequest.of(RequestId.of("r-n2"), SlotId.of("nano-2"),
                StudentId.of("n2")));
        clock.set(other.booking().heldUntil().minusNanos(1)); // truncated: 1 µs before heldUntil
        ConfirmResult inTime = engine.confirm(tenant, other.booking().bookingId(), StudentId.of("n2"));
        v.check(inTime instanceof Confirmed, "confirm at heldUntil - 1 ns answered %s", inTime);
        SqlInvariants inv = invariants();
        inv.checkOccupancy(clock.instant(), v);
        inv.checkSlot(SlotId.of("nano-1"), 5, clock.instant(), v);
        inv.checkSlot(SlotId.of("nano-2"), 5, clock.instant(), v);
        report(7, "sub-microsecond-instants/" + db.name(), 8, 0, v);
    }

    private ScheduleResult scheduleFor(String slot, CoachId coach, String room, TimeRange time) {
        return engine.schedule(tenant, new SlotSpec(SlotId.of(slot), coach, RoomId.of(room), time, 5));
    }

    /** The slot's time as the store returns it and as the table stores it. */
    private void checkStoredTime(SlotId slotId, TimeRange expected, Violations v) {
        Optional<Slot> slot = store.liveSlot(tenant, slotId, clock.instant()).map(LiveSlot::slot);
        v.check(slot.isPresent() && slot.get().time().equals(expected), "slot %s reads back as %s, expected %s",
                slotId, slot.map(Slot::time).orElse(null), expected);
        List<Instant> stored = new ArrayList<>();
        invariants().query("SELECT starts_at, ends_at FROM " + db.table("slot") + " WHERE tenant_id = ? AND slot_id = ?",
                List.of(tenant.value(), slotId.value()), rs -> {
                    stored.add(readInstant(rs, "starts_at"));
                    stored.add(readInstant(rs, "ends_at"));
                });
        v.check(stored.equals(List.of(expected.start(), expected.end())), "slot %s is stored as %s, expected %s",
                slotId, stored, expected);
        // the occupation of coach and room carries the same instants
        List<Instant> occupied = new ArrayList<>();
        invariants().query("SELECT starts_at, ends_at FROM " + db.table("occupancy")
                + " WHERE tenant_id = ? AND slot_id = ? AND booking_id IS NULL",
                List.of(tenant.value(), slotId.value()), rs -> {
                    occupied.add(readInstant(rs, "starts_at"));
                    occupied.add(readInstant(rs, "ends_at"));
                });
        boolean same = !occupied.isEmpty();
        for (int i = 0; i + 1 < occupied.size(); i += 2) {
            same &= occupied.get(i).equals(expected.start()) && occupied.get(i + 1).equals(expected.end());
        }
        v.check(same, "slot %s occupation stored as %s", slotId, occupied);
    }

    /**
     * An instant column read as UTC, independent of the JVM's and the session's time zone: MariaDB's
     * {@code DATETIME(6)} holds the UTC wall clock, the other databases a timestamp with time zone.
     */
    private Instant readInstant(java.sql.ResultSet rs, String column) throws java.sql.SQLException {
        if (db.dialect() == JdbcDialect.MARIADB) {
            LocalDateTime value = rs.getObject(column, LocalDateTime.class);
            return value == null ? null : value.toInstant(ZoneOffset.UTC);
        }
        OffsetDateTime value = rs.getObject(column, OffsetDateTime.class);
        return value == null ? null : value.toInstant();
    }


}
