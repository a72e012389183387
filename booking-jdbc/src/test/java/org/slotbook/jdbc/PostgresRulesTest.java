package org.slotbook.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Callable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slotbook.core.BookingId;
import org.slotbook.core.BookingRules;
import org.slotbook.core.BookingStatus;
import org.slotbook.core.BookingClosed;
import org.slotbook.core.CancellationPolicy;
import org.slotbook.core.Cancelled;
import org.slotbook.core.CoachId;
import org.slotbook.core.Conflict;
import org.slotbook.core.Held;
import org.slotbook.core.HoldRequest;
import org.slotbook.core.HoldResult;
import org.slotbook.core.LimitReached;
import org.slotbook.core.NotOpenYet;
import org.slotbook.core.RequestId;
import org.slotbook.core.RoomId;
import org.slotbook.core.Scheduled;
import org.slotbook.core.Slot;
import org.slotbook.core.SlotId;
import org.slotbook.core.SlotStatus;
import org.slotbook.core.StudentId;
import org.slotbook.core.TenantId;
import org.slotbook.core.TimeRange;
import org.slotbook.core.TooLateToCancel;
import org.slotbook.core.Waitlisted;
import org.slotbook.core.spi.BookingEvent;
import org.slotbook.core.spi.HoldCommand;
import org.slotbook.core.spi.StoreOutcome;
import org.slotbook.core.spi.Terms;
import org.slotbook.core.tck.Concurrent;
import org.slotbook.jdbc.testing.TestDatabases;
import org.slotbook.jdbc.testing.TestDatabases.TestDatabase;

/**
 * The booking rules in PostgreSQL's decision functions, through the store, each verdict read back
 * from the tables with SQL: slot rules and buffers, the booking window, the student limits, the
 * cancellation policy and staff cancels, the waitlist with its promotion, and two races.
 */
class PostgresRulesTest {
    private static final Duration HOLD = Duration.ofMinutes(10);
    private static final Duration LONGEST = Duration.ofHours(24);
    private static final Instant NOW = Instant.now().plus(Duration.ofDays(3)).truncatedTo(ChronoUnit.HOURS);
    private static final Instant T0 = NOW.plus(Duration.ofDays(1));

    private static TestDatabase db;
    private static JdbcStore store;
    private static String p;

    @BeforeAll
    static void open() {
        db = TestDatabases.postgres();
        store = db.store();
        p = db.prefix();
    }

    @AfterAll
    static void close() {
        if (db != null) {
            db.close();
        }
    }

    // ------------------------------------------------------------------ schedule

    @Test
    void aSlotStoresItsRulesAndItsCoachAndRoomAreBusyOverTheBuffer() throws SQLException {
        TenantId t = tenant();
        Slot yoga = new Slot(t, SlotId.of("yoga"), CoachId.of("ana"), RoomId.of("studio"),
                TimeRange.of(T0, Duration.ofHours(1)), 2, SlotStatus.OPEN, NOW.minus(Duration.ofDays(1)),
                T0.minus(Duration.ofHours(1)), Duration.ofMinutes(15), CancellationPolicy.lateWithin(Duration.ofHours(2)));
        assertThat(store.schedule(t, yoga, LONGEST, ZoneOffset.UTC)).isInstanceOf(Scheduled.class);
        assertThat(strings("SELECT opens_at = ? AND closes_at = ? AND buffer_seconds = 900 AND cancel_policy = 'LATE'"
                + " AND cancel_cutoff_seconds = 7200 AND week_start <= starts_at AND week_end > starts_at FROM " + p
                + "slot WHERE tenant_id = ?", NOW.minus(Duration.ofDays(1)), T0.minus(Duration.ofHours(1)), t.value()))
                .containsExactly("t");
        assertThat(strings("SELECT resource_kind || ':' || (ends_at = ?) FROM " + p + "occupancy WHERE tenant_id = ?"
                + " ORDER BY resource_kind", T0.plus(Duration.ofMinutes(75)), t.value()))
                .containsExactly("COACH:true", "ROOM:true");
        // within the coach's turnover: a conflict; at its end: fine
        Slot tooSoon = new Slot(t, SlotId.of("soon"), CoachId.of("ana"), RoomId.of("hall"),
                TimeRange.of(T0.plus(Duration.ofMinutes(70)), Duration.ofHours(1)), 1, SlotStatus.OPEN);
        assertThat(store.schedule(t, tooSoon, LONGEST, ZoneOffset.UTC)).isInstanceOf(Conflict.class);
        Slot after = new Slot(t, SlotId.of("after"), CoachId.of("ana"), RoomId.of("hall"),
                TimeRange.of(T0.plus(Duration.ofMinutes(75)), Duration.ofHours(1)), 1, SlotStatus.OPEN);
        assertThat(store.schedule(t, after, LONGEST, ZoneOffset.UTC)).isInstanceOf(Scheduled.class);
        assertThat(longs("SELECT COUNT(*) FROM " + p + "slot WHERE tenant_id = ?", t.value())).containsExactly(2L);
    }

    @Test
    void aBufferForStudentsKeepsTheBookedAndThePromotedStudentBusyUntilItEnds() throws SQLException {
        TenantId t = tenant();
        Slot swim = new Slot(t, SlotId.of("swim"), CoachId.of("eva"), RoomId.of("pool"),
                TimeRange.of(T0, Duration.ofHours(1)), 1, SlotStatus.OPEN, null, null, Duration.ofMinutes(20), null,
                true);
        assertThat(((Scheduled) store.schedule(t, swim, LONGEST, ZoneOffset.UTC)).slot().bufferStudents()).isTrue();
        schedule(t, "soon", T0.plus(Duration.ofMinutes(70)), 5);
        Held ann = (Held) book(t, "swim", "ann", NOW);
        assertThat(hold(t, "soon", "ann", NOW, BookingRules.defaults(), false)).isInstanceOf(Conflict.class);
        assertThat(hold(t, "swim", "bob", NOW, BookingRules.defaults(), true)).isInstanceOf(Waitlisted.class);
        store.cancel(t, ann.booking().bookingId(), StudentId.of("ann"), NOW, terms(BookingRules.defaults()));
        // the booked (ann, then cancelled) and the promoted (bob) student: [start, end + buffer)
        assertThat(strings("SELECT resource_id || ':' || active || ':' || (starts_at = ?) || ':' || (ends_at = ?)"
                + " FROM " + p + "occupancy WHERE tenant_id = ? AND resource_kind = 'STUDENT' ORDER BY resource_id",
                T0, T0.plus(Duration.ofMinutes(80)), t.value()))
                .containsExactly("ann:false:true:true", "bob:true:true:true");
        assertThat(strings("SELECT slot_id || ':' || buffer_students FROM " + p + "slot WHERE tenant_id = ?"
                + " ORDER BY slot_id", t.value())).containsExactly("soon:false", "swim:true");
    }

    // ------------------------------------------------------------------ window and limits

    @Test
    void theWindowAndTheLimitsRefuseWithoutWritingAnything() throws SQLException {
        TenantId t = tenant();
        // a Tuesday 10:00 (UTC) after T0, so that both sessions fall in one week
        Instant tuesday = T0.atZone(ZoneOffset.UTC).toLocalDate()
                .with(java.time.temporal.TemporalAdjusters.next(java.time.DayOfWeek.TUESDAY)).atTime(10, 0)
                .toInstant(ZoneOffset.UTC);
        Slot early = new Slot(t, SlotId.of("early"), CoachId.of("c1"), RoomId.of("r1"),
                TimeRange.of(tuesday, Duration.ofHours(1)), 5, SlotStatus.OPEN, NOW.plus(Duration.ofHours(1)),
                tuesday.minus(Duration.ofHours(2)), Duration.ZERO, null);
        store.schedule(t, early, LONGEST, ZoneOffset.UTC);
        assertThat(hold(t, "early", "ann", NOW, BookingRules.defaults(), false))
                .isEqualTo(new NotOpenYet(SlotId.of("early"), NOW.plus(Duration.ofHours(1))));
        assertThat(hold(t, "early", "ann", tuesday.minus(Duration.ofHours(2)), BookingRules.defaults(), false))
                .isInstanceOf(BookingClosed.class);
        assertThat(hold(t, "early", "ann", NOW.plus(Duration.ofHours(1)), BookingRules.defaults(), false))
                .isInstanceOf(Held.class);

        BookingRules oneUpcoming = BookingRules.defaults().withMaxUpcoming(1);
        schedule(t, "second", tuesday.plus(Duration.ofHours(3)), 5);
        assertThat(hold(t, "second", "ann", NOW.plus(Duration.ofHours(1)), oneUpcoming, false))
                .isEqualTo(new LimitReached(LimitReached.Limit.UPCOMING, 1));
        BookingRules oneAWeek = BookingRules.defaults().withMaxPerWeek(1, ZoneOffset.UTC);
        assertThat(hold(t, "second", "ann", NOW.plus(Duration.ofHours(1)), oneAWeek, false))
                .isEqualTo(new LimitReached(LimitReached.Limit.WEEKLY, 1));
        // once his first hold ran out, it counts for nothing
        assertThat(hold(t, "second", "ann", NOW.plus(Duration.ofHours(2)), oneUpcoming, false))
                .isInstanceOf(Held.class);
        assertThat(strings("SELECT slot_id || ':' || status FROM " + p + "booking WHERE tenant_id = ? ORDER BY slot_id",
                t.value())).containsExactly("early:HELD", "second:HELD");
        assertThat(longs("SELECT COUNT(*) FROM " + p + "booking WHERE tenant_id = ? AND status IN ('HELD', 'CONFIRMED')"
                + " AND held_until > ?", t.value(), NOW.plus(Duration.ofHours(2)))).containsExactly(1L);
    }

    // ------------------------------------------------------------------ cancellation policy

    @Test
    void aLateCancelIsRefusedToTheStudentButNotToStaffAndIsMarkedLate() throws SQLException {
        TenantId t = tenant();
        Slot s = new Slot(t, SlotId.of("s"), CoachId.of("c"), RoomId.of("r"), TimeRange.of(T0, Duration.ofHours(1)),
                2, SlotStatus.OPEN, null, null, Duration.ZERO, CancellationPolicy.refuseWithin(Duration.ofHours(2)));
        store.schedule(t, s, LONGEST, ZoneOffset.UTC);
        Held ann = (Held) book(t, "s", "ann", NOW);
        Held bob = (Held) book(t, "s", "bob", NOW);
        Instant late = T0.minus(Duration.ofHours(1));
        Terms terms = terms(BookingRules.defaults());
        assertThat(store.cancel(t, ann.booking().bookingId(), StudentId.of("ann"), late, terms).result())
                .isEqualTo(new TooLateToCancel(ann.booking().bookingId(), T0.minus(Duration.ofHours(2))));
        assertThat(strings("SELECT status FROM " + p + "booking WHERE tenant_id = ? AND booking_id = ?", t.value(),
                ann.booking().bookingId().value())).containsExactly("CONFIRMED");
        // staff (no student) may, and it is late
        assertThat(store.cancel(t, ann.booking().bookingId(), null, late, terms).result())
                .isEqualTo(new Cancelled(store.findBooking(t, ann.booking().bookingId()).orElseThrow(), true));
        // in time: not late
        StoreOutcome<?> early = store.cancel(t, bob.booking().bookingId(), StudentId.of("bob"), NOW, terms);
        assertThat(early.events()).extracting(BookingEvent::kind).containsExactly(BookingEvent.Kind.CANCELLED);
        assertThat(strings("SELECT student_id || ':' || status || ':' || late_cancel FROM " + p
                + "booking WHERE tenant_id = ? ORDER BY student_id", t.value()))
                .containsExactly("ann:CANCELLED:true", "bob:CANCELLED:false");
        assertThat(longs("SELECT COUNT(*) FROM " + p + "slot_seat WHERE tenant_id = ? AND status = 'FREE'", t.value()))
                .containsExactly(2L);
    }

    // ------------------------------------------------------------------ waitlist

    @Test
    void aFreedSeatGoesToTheFirstWaiterWhoCanTakeItTheOthersBeforeHimAreSkipped() throws SQLException {
        TenantId t = tenant();
        schedule(t, "s", T0, 1);
        schedule(t, "other", T0.plus(Duration.ofMinutes(30)), 5);
        Held ann = (Held) book(t, "s", "ann", NOW);
        Waitlisted bob = (Waitlisted) hold(t, "s", "bob", NOW, BookingRules.defaults(), true);
        Waitlisted cat = (Waitlisted) hold(t, "s", "cat", NOW, BookingRules.defaults(), true);
        assertThat(bob.entry().position()).isEqualTo(1);
        assertThat(cat.entry().position()).isEqualTo(2);
        // bob books an overlapping session meanwhile: he cannot take the seat
        book(t, "other", "bob", NOW);

        StoreOutcome<?> out = store.cancel(t, ann.booking().bookingId(), StudentId.of("ann"), NOW.plusSeconds(60),
                terms(BookingRules.defaults()));
        assertThat(out.events()).extracting(BookingEvent::kind)
                .containsExactly(BookingEvent.Kind.CANCELLED, BookingEvent.Kind.PROMOTED);
        assertThat(out.skipped()).extracting(e -> e.studentId().value()).containsExactly("bob");
        assertThat(strings("SELECT student_id || ':' || status || ':' || COALESCE(reason, '-') FROM " + p
                + "waiter WHERE tenant_id = ? ORDER BY seq", t.value()))
                .containsExactly("bob:SKIPPED:CONFLICT", "cat:PROMOTED:-");
        assertThat(strings("SELECT b.student_id || ':' || b.status || ':' || (b.booking_id = w.booking_id) || ':'"
                + " || (b.request_id = w.request_id) || ':' || (b.held_until = ?) FROM " + p + "booking b JOIN " + p
                + "waiter w ON w.tenant_id = b.tenant_id AND w.booking_id = b.booking_id WHERE b.tenant_id = ?",
                NOW.plusSeconds(60).plus(HOLD), t.value())).containsExactly("cat:HELD:true:true:true");
        assertThat(strings("SELECT status || ':' || student_id FROM " + p + "slot_seat WHERE tenant_id = ?"
                + " AND slot_id = 's'", t.value())).containsExactly("HELD:cat");
        assertThat(longs("SELECT COUNT(*) FROM " + p + "occupancy WHERE tenant_id = ? AND resource_id = 'cat' AND active",
                t.value())).containsExactly(1L);

        // cat lets her offer run out: the sweeper frees the seat, and nobody waits any more
        StoreOutcome<Integer> swept = store.expireDue(t, NOW.plus(Duration.ofHours(1)), 10,
                terms(BookingRules.defaults()));
        assertThat(swept.result()).isEqualTo(1);
        assertThat(strings("SELECT status FROM " + p + "slot_seat WHERE tenant_id = ? AND slot_id = 's'", t.value()))
                .containsExactly("FREE");
    }

    // ------------------------------------------------------------------ races

    @Test
    void twentyHoldsOfOneStudentAtOnceStopAtHisUpcomingLimit() throws Exception {
        TenantId t = tenant();
        List<Callable<HoldResult>> calls = new ArrayList<>();
        BookingRules three = BookingRules.defaults().withMaxUpcoming(3);
        for (int i = 0; i < 20; i++) {
            String slot = "s" + i;
            Slot s = new Slot(t, SlotId.of(slot), CoachId.of("c" + i), RoomId.of("r" + i),
                    TimeRange.of(T0.plus(Duration.ofHours(2L * i)), Duration.ofHours(1)), 5, SlotStatus.OPEN);
            store.schedule(t, s, LONGEST, ZoneOffset.UTC);
            calls.add(() -> hold(t, slot, "ann", NOW, three, false));
        }
        Concurrent.call(calls);
        assertThat(longs("SELECT COUNT(*) FROM " + p + "booking WHERE tenant_id = ? AND student_id = 'ann'"
                + " AND (status = 'CONFIRMED' OR (status = 'HELD' AND held_until > ?))", t.value(), NOW))
                .containsExactly(3L);
        assertThat(longs("SELECT COUNT(*) FROM " + p + "occupancy WHERE tenant_id = ? AND resource_kind = 'STUDENT'"
                + " AND active", t.value())).containsExactly(3L);
    }

    @Test
    void cancelsAndHoldsRacingOnAWaitlistedSlotKeepEveryInvariant() throws Exception {
        TenantId t = tenant();
        BookingRules rules = BookingRules.defaults().withWaitlistCutoff(Duration.ofHours(1));
        schedule(t, "s", T0, 3);
        schedule(t, "over", T0.plus(Duration.ofMinutes(30)), 30);
        for (int i = 0; i < 3; i++) {
            book(t, "s", "holder" + i, NOW);
        }
        for (int i = 0; i < 20; i++) {
            assertThat(hold(t, "s", "w" + i, NOW, rules, true)).isInstanceOf(Waitlisted.class);
        }
        Instant at = NOW.plusSeconds(60);
        List<Callable<Object>> calls = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            int n = i;
            if (n % 5 == 0) {
                // a cancel of whichever live booking of the slot comes first for this thread
                calls.add(() -> {
                    List<String> live = strings("SELECT booking_id || ' ' || student_id FROM " + p + "booking"
                            + " WHERE tenant_id = ? AND slot_id = 's' AND status IN ('HELD', 'CONFIRMED')"
                            + " ORDER BY booking_id", t.value());
                    if (live.isEmpty()) {
                        return null;
                    }
                    String[] pick = live.get(n % live.size()).split(" ");
                    return store.cancel(t, BookingId.of(pick[0]), StudentId.of(pick[1]), at, terms(rules)).result();
                });
            } else if (n % 5 == 1 || n % 5 == 2) {
                // a waiter books an overlapping session: he must not get a seat of s as well
                calls.add(() -> hold(t, "over", "w" + (n % 20), at, rules, false));
            } else {
                calls.add(() -> hold(t, "s", "new" + n, at, rules, true));
            }
        }
        Concurrent.call(calls);

        String v = t.value();
        assertThat(longs("SELECT COUNT(*) FROM " + p + "slot_seat WHERE tenant_id = ? AND slot_id = 's'"
                + " AND status IN ('HELD', 'CONFIRMED')", v).get(0)).isLessThanOrEqualTo(3L);
        assertThat(longs("SELECT COUNT(*) FROM " + p + "booking WHERE tenant_id = ? AND slot_id = 's'"
                + " AND status IN ('HELD', 'CONFIRMED')", v).get(0)).isLessThanOrEqualTo(3L);
        // seats and bookings agree
        assertThat(longs("SELECT COUNT(*) FROM " + p + "slot_seat s LEFT JOIN " + p + "booking b"
                + " ON b.tenant_id = s.tenant_id AND b.booking_id = s.booking_id WHERE s.tenant_id = ?"
                + " AND s.status IN ('HELD', 'CONFIRMED') AND (b.status IS DISTINCT FROM s.status"
                + " OR b.student_id IS DISTINCT FROM s.student_id OR b.seat <> s.seq)", v)).containsExactly(0L);
        // nobody holds two live seats of overlapping sessions
        assertThat(longs("SELECT COUNT(*) FROM " + p + "occupancy a JOIN " + p + "occupancy b"
                + " ON b.tenant_id = a.tenant_id AND b.resource_kind = 'STUDENT' AND b.resource_id = a.resource_id"
                + " AND b.booking_id > a.booking_id AND b.active AND b.starts_at < a.ends_at AND b.ends_at > a.starts_at"
                + " WHERE a.tenant_id = ? AND a.resource_kind = 'STUDENT' AND a.active", v)).containsExactly(0L);
        // no one waits while a seat is free (the slot is before its waitlist cutoff)
        assertThat(longs("SELECT COUNT(*) FROM " + p + "waiter w WHERE w.tenant_id = ? AND w.slot_id = 's'"
                + " AND w.status = 'WAITING' AND EXISTS (SELECT 1 FROM " + p + "slot_seat f WHERE f.tenant_id = w.tenant_id"
                + " AND f.slot_id = w.slot_id AND f.status = 'FREE')", v)).containsExactly(0L);
        // promotion follows the join order: among those neither skipped nor gone, the promoted come first
        List<String> order = strings("SELECT status FROM " + p + "waiter WHERE tenant_id = ? AND slot_id = 's'"
                + " AND status IN ('PROMOTED', 'WAITING') ORDER BY seq", v);
        int firstWaiting = order.indexOf("WAITING");
        if (firstWaiting >= 0) {
            assertThat(order.subList(firstWaiting, order.size())).containsOnly("WAITING");
        }
        // every promoted waiter's booking exists with his ids, and every skipped one had a reason
        assertThat(longs("SELECT COUNT(*) FROM " + p + "waiter w WHERE w.tenant_id = ? AND w.status = 'PROMOTED'"
                + " AND NOT EXISTS (SELECT 1 FROM " + p + "booking b WHERE b.tenant_id = w.tenant_id"
                + " AND b.booking_id = w.booking_id AND b.request_id = w.request_id AND b.student_id = w.student_id)", v))
                .containsExactly(0L);
        assertThat(longs("SELECT COUNT(*) FROM " + p + "waiter WHERE tenant_id = ? AND status = 'SKIPPED'"
                + " AND reason IS NULL", v)).containsExactly(0L);
        // the race did promote and did skip someone (the cancels freed seats, waiters booked elsewhere)
        assertThat(longs("SELECT COUNT(*) FROM " + p + "waiter WHERE tenant_id = ? AND status <> 'WAITING'", v).get(0))
                .isPositive();
    }

    // ------------------------------------------------------------------ helpers

    private static Terms terms(BookingRules rules) {
        return new Terms(rules, HOLD, LONGEST);
    }

    private static void schedule(TenantId t, String slot, Instant start, int capacity) {
        Slot s = new Slot(t, SlotId.of(slot), CoachId.of("coach-" + slot), RoomId.of("room-" + slot),
                TimeRange.of(start, Duration.ofHours(1)), capacity, SlotStatus.OPEN);
        assertThat(store.schedule(t, s, LONGEST, ZoneOffset.UTC)).isInstanceOf(Scheduled.class);
    }

    private static HoldResult hold(TenantId t, String slot, String student, Instant now, BookingRules rules,
                                   boolean waitlist) {
        String id = UUID.randomUUID().toString();
        HoldRequest request = new HoldRequest(RequestId.of("q-" + id), SlotId.of(slot), StudentId.of(student),
                waitlist);
        return store.hold(t, new HoldCommand(BookingId.of("b-" + id), request, BookingStatus.HELD, now, HOLD, LONGEST,
                false, rules)).result();
    }

    private static HoldResult book(TenantId t, String slot, String student, Instant now) {
        String id = UUID.randomUUID().toString();
        HoldRequest request = HoldRequest.of(RequestId.of("q-" + id), SlotId.of(slot), StudentId.of(student));
        HoldResult result = store.hold(t, new HoldCommand(BookingId.of("b-" + id), request, BookingStatus.CONFIRMED,
                now, HOLD, LONGEST, false)).result();
        assertThat(result).isInstanceOf(Held.class);
        return result;
    }

    private static TenantId tenant() {
        return TenantId.of("t-" + UUID.randomUUID());
    }

    /** The first column of every row; an Instant argument binds as timestamptz. */
    private static List<String> strings(String sql, Object... args) throws SQLException {
        List<String> values = new ArrayList<>();
        try (Connection c = db.dataSource().getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
            for (int i = 0; i < args.length; i++) {
                if (args[i] instanceof Instant instant) {
                    ps.setObject(i + 1, instant.atOffset(ZoneOffset.UTC));
                } else {
                    ps.setObject(i + 1, args[i]);
                }
            }
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    values.add(rs.getString(1));
                }
            }
        }
        return values;
    }

    private static List<Long> longs(String sql, Object... args) throws SQLException {
        List<Long> values = new ArrayList<>();
        for (String s : strings(sql, args)) {
            values.add(Long.parseLong(s));
        }
        return values;
    }
}
