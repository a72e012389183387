package org.slotbook.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Callable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slotbook.core.tck.Concurrent;
import org.slotbook.jdbc.testing.TestDatabases;
import org.slotbook.jdbc.testing.TestDatabases.TestDatabase;

/**
 * The PostgreSQL one-call routines of schema-postgresql.sql, called with plain JDBC in autocommit
 * mode, the way the store calls them: every answer tag, the rows they leave behind, the database
 * clock, concurrency, and the plans of their hot statements on a fresh schema.
 */
class PostgresRoutinesTest {
    private static final List<String> COLUMNS = List.of("tag", "booking_id", "request_id", "slot_id", "student_id",
            "seat", "status", "held_until", "created_at", "updated_at", "res_kind", "res_id", "starts_at", "ends_at",
            "coach_id", "room_id", "capacity", "ref_id", "amount", "note");
    private static final long HOUR_MICROS = Duration.ofHours(1).toNanos() / 1000;
    private static final long HOLD_MICROS = Duration.ofMinutes(10).toNanos() / 1000;
    private static final long LONGEST_MICROS = Duration.ofHours(24).toNanos() / 1000;
    /** The explicit clock of most tests; every slot starts a day later. */
    private static final OffsetDateTime NOW = OffsetDateTime.now(ZoneOffset.UTC).plusDays(3).truncatedTo(ChronoUnit.HOURS);
    private static final OffsetDateTime T0 = NOW.plusDays(1);

    private static TestDatabase db;
    private static String p;

    @BeforeAll
    static void open() {
        db = TestDatabases.postgres();
        p = db.prefix();
    }

    @AfterAll
    static void close() {
        if (db != null) {
            db.close();
        }
    }

    /** One fact row. */
    record Fact(String tag, String bookingId, String requestId, String slotId, String studentId, Integer seat,
                String status, OffsetDateTime heldUntil, OffsetDateTime createdAt, OffsetDateTime updatedAt,
                String resKind, String resId, OffsetDateTime startsAt, OffsetDateTime endsAt, String coachId,
                String roomId, Integer capacity) {
    }

    // ------------------------------------------------------------------ schedule

    @Test
    void scheduleWritesSlotSeatsAndOccupationsThenAnswersExistsAndConflicts() throws SQLException {
        String t = tenant();
        List<Fact> facts = schedule(t, "yoga", "ana", "studio", T0, T0.plusHours(1), 3);
        assertThat(facts).hasSize(1);
        Fact f = facts.get(0);
        assertThat(f).isEqualTo(new Fact("SCHEDULED", null, null, "yoga", null, 0, "OPEN", null, null, null, null,
                null, T0, T0.plusHours(1), "ana", "studio", 3));
        assertThat(longs("SELECT seq FROM " + p + "slot_seat WHERE tenant_id = ? AND slot_id = 'yoga' AND status = 'FREE'"
                + " AND booking_id IS NULL ORDER BY seq", t)).containsExactly(1L, 2L, 3L);
        assertThat(strings("SELECT resource_kind || ':' || resource_id || ':' || active || ':' || COALESCE(booking_id, '-')"
                + " FROM " + p + "occupancy WHERE tenant_id = ? ORDER BY resource_kind", t))
                .containsExactly("COACH:ana:true:-", "ROOM:studio:true:-");
        assertThat(longs("SELECT COUNT(*) FROM " + p + "resource_lock WHERE tenant_id = ?", t)).containsExactly(2L);

        assertThat(schedule(t, "yoga", "ana", "studio", T0, T0.plusHours(1), 3))
                .containsExactly(new Fact("EXISTS", null, null, "yoga", null, 0, "OPEN", null, null, null, null,
                        null, T0, T0.plusHours(1), "ana", "studio", 3));
        // the same id with another spec answers the stored slot too; the caller compares
        assertThat(schedule(t, "yoga", "bo", "hall", T0, T0.plusHours(2), 9)).extracting(Fact::tag, Fact::coachId)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("EXISTS", "ana"));

        // coach and room both busy: one row per clash, by kind
        assertThat(schedule(t, "pilates", "ana", "studio", T0.plusMinutes(30), T0.plusMinutes(90), 5)).containsExactly(
                new Fact("CONFLICT", null, null, "yoga", null, null, null, null, null, null, "COACH", "ana", T0,
                        T0.plusHours(1), null, null, null),
                new Fact("CONFLICT", null, null, "yoga", null, null, null, null, null, null, "ROOM", "studio", T0,
                        T0.plusHours(1), null, null, null));
        assertThat(longs("SELECT COUNT(*) FROM " + p + "slot WHERE tenant_id = ?", t)).containsExactly(1L);
        // back to back is no clash
        assertThat(schedule(t, "next", "ana", "studio", T0.plusHours(1), T0.plusHours(2), 1))
                .extracting(Fact::tag).containsExactly("SCHEDULED");
    }

    // ------------------------------------------------------------------ hold

    @Test
    void holdAnswersHeldThenReplayAlreadyAndFull() throws SQLException {
        String t = tenant();
        schedule(t, "s", "c", "r", T0, T0.plusHours(1), 1);
        List<Fact> held = hold(t, "b1", "q1", "s", "li", "HELD", NOW, false);
        Fact booking = new Fact("HELD", "b1", "q1", "s", "li", 1, "HELD", NOW.plusMinutes(10), NOW, NOW, null, null,
                null, null, null, null, null);
        assertThat(held).containsExactly(booking, withTag(booking, "EV_HELD"));
        assertThat(strings("SELECT status || ':' || booking_id || ':' || student_id FROM " + p
                + "slot_seat WHERE tenant_id = ?", t)).containsExactly("HELD:b1:li");
        assertThat(strings("SELECT resource_id || ':' || booking_id || ':' || active FROM " + p
                + "occupancy WHERE tenant_id = ? AND resource_kind = 'STUDENT'", t)).containsExactly("li:b1:true");

        assertThat(hold(t, "b1x", "q1", "s", "li", "HELD", NOW.plusMinutes(1), false))
                .containsExactly(withTag(booking, "REPLAY"));
        // the slot is full: the pre-check answers without locks
        assertThat(hold(t, "b2", "q2", "s", "li", "HELD", NOW.plusMinutes(1), false))
                .containsExactly(withTag(booking, "ALREADY"));
        assertThat(hold(t, "b3", "q3", "s", "mo", "HELD", NOW.plusMinutes(1), false)).containsExactly(bare("FULL"));
        // past the pre-check (the gate said it holds a seat): the same answers under the student's lock
        assertThat(hold(t, "b2", "q2", "s", "li", "HELD", NOW.plusMinutes(1), true))
                .containsExactly(withTag(booking, "ALREADY"));
        assertThat(hold(t, "b3", "q3", "s", "mo", "HELD", NOW.plusMinutes(1), true)).containsExactly(bare("FULL"));
        assertThat(longs("SELECT COUNT(*) FROM " + p + "booking WHERE tenant_id = ?", t)).containsExactly(1L);
        assertThat(hold(t, "b4", "q4", "nope", "li", "HELD", NOW, false)).containsExactly(bare("NOT_FOUND"));
    }

    @Test
    void bookConfirmsAtOnceAndAReusedRequestIdIsAUniqueViolation() throws SQLException {
        String t = tenant();
        schedule(t, "s", "c", "r", T0, T0.plusHours(1), 2);
        Fact booked = new Fact("HELD", "b1", "q1", "s", "li", 1, "CONFIRMED", NOW.plusMinutes(10), NOW, NOW, null,
                null, null, null, null, null, null);
        assertThat(hold(t, "b1", "q1", "s", "li", "CONFIRMED", NOW, false))
                .containsExactly(booked, withTag(booked, "EV_CONFIRMED"));
        assertThat(strings("SELECT status FROM " + p + "slot_seat WHERE tenant_id = ? AND seq = 1", t))
                .containsExactly("CONFIRMED");
        // another student's request under the same id: the answer is a REPLAY the caller refuses ...
        assertThat(hold(t, "b2", "q1", "s", "mo", "HELD", NOW, false)).extracting(Fact::tag, Fact::studentId)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("REPLAY", "li"));
        // ... and a booking id used twice fails on its key
        assertThatThrownBy(() -> hold(t, "b1", "q9", "s", "mo", "HELD", NOW, false))
                .isInstanceOf(SQLException.class).extracting(e -> ((SQLException) e).getSQLState()).isEqualTo("23505");
        assertThat(longs("SELECT COUNT(*) FROM " + p + "booking WHERE tenant_id = ?", t)).containsExactly(1L);
        assertThat(longs("SELECT COUNT(*) FROM " + p + "slot_seat WHERE tenant_id = ? AND status = 'FREE'", t))
                .containsExactly(1L);
        assertThatThrownBy(() -> hold(t, "b3", "q3", "s", "mo", "CANCELLED", NOW, false))
                .isInstanceOf(SQLException.class).extracting(e -> ((SQLException) e).getSQLState()).isEqualTo("22023");
    }

    @Test
    void aSlotThatEndedOrWasCancelledIsNotOpenExceptForAReplay() throws SQLException {
        String t = tenant();
        schedule(t, "s", "c", "r", T0, T0.plusHours(1), 2);
        hold(t, "b1", "q1", "s", "li", "HELD", NOW, false);
        assertThat(hold(t, "b2", "q2", "s", "mo", "HELD", T0.plusHours(1), false))
                .containsExactly(withSlot(bare("NOT_OPEN"), "s", "OPEN"));
        assertThat(hold(t, "b1", "q1", "s", "li", "HELD", T0.plusHours(1), false)).extracting(Fact::tag, Fact::bookingId)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("REPLAY", "b1"));
        cancelSlot(t, "s", NOW);
        assertThat(hold(t, "b2", "q2", "s", "mo", "HELD", NOW, false))
                .containsExactly(withSlot(bare("NOT_OPEN"), "s", "CANCELLED"));
    }

    @Test
    void aStudentsOverlappingBookingIsAConflictButHisDeadHoldIsRetired() throws SQLException {
        String t = tenant();
        schedule(t, "a", "c1", "r1", T0, T0.plusHours(1), 1);
        schedule(t, "b", "c2", "r2", T0.plusMinutes(30), T0.plusMinutes(90), 1);
        hold(t, "ba", "qa", "a", "li", "HELD", NOW, false);
        assertThat(hold(t, "bb", "qb", "b", "li", "HELD", NOW.plusMinutes(5), false)).containsExactly(
                new Fact("CONFLICT", "ba", null, "a", null, null, null, null, null, null, "STUDENT", "li", T0,
                        T0.plusHours(1), null, null, null));
        assertThat(longs("SELECT COUNT(*) FROM " + p + "booking WHERE tenant_id = ?", t)).containsExactly(1L);

        // ten minutes on the hold on slot a is dead: it blocks nothing and is retired by this call
        OffsetDateTime later = NOW.plusMinutes(10);
        List<Fact> facts = hold(t, "bb", "qb", "b", "li", "HELD", later, false);
        assertThat(facts).extracting(Fact::tag, Fact::bookingId, Fact::status).containsExactly(
                org.assertj.core.groups.Tuple.tuple("HELD", "bb", "HELD"),
                org.assertj.core.groups.Tuple.tuple("EV_EXPIRED", "ba", "EXPIRED"),
                org.assertj.core.groups.Tuple.tuple("EV_HELD", "bb", "HELD"));
        assertThat(facts.get(1).updatedAt()).isEqualTo(later);
        assertThat(strings("SELECT slot_id || ':' || status || ':' || COALESCE(booking_id, '-') FROM " + p
                + "slot_seat WHERE tenant_id = ? ORDER BY slot_id", t)).containsExactly("a:FREE:-", "b:HELD:bb");
        assertThat(strings("SELECT booking_id FROM " + p + "occupancy WHERE tenant_id = ? AND resource_kind = 'STUDENT'"
                + " AND active", t)).containsExactly("bb");
    }

    @Test
    void aDeadHoldOfTheSameSlotIsRetiredAndAnotherStudentsDeadHoldIsTakenOver() throws SQLException {
        String t = tenant();
        schedule(t, "s", "c", "r", T0, T0.plusHours(1), 1);
        hold(t, "b1", "q1", "s", "li", "HELD", NOW, false);
        OffsetDateTime later = NOW.plusMinutes(20);
        // li again, his own hold ran out: retired, then the freed seat is his again
        assertThat(hold(t, "b2", "q2", "s", "li", "HELD", later, false)).extracting(Fact::tag, Fact::bookingId)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("HELD", "b2"),
                        org.assertj.core.groups.Tuple.tuple("EV_EXPIRED", "b1"),
                        org.assertj.core.groups.Tuple.tuple("EV_HELD", "b2"));
        // mo takes the seat over once li's second hold ran out
        OffsetDateTime latest = later.plusMinutes(10);
        List<Fact> facts = hold(t, "b3", "q3", "s", "mo", "HELD", latest, false);
        assertThat(facts).extracting(Fact::tag, Fact::bookingId, Fact::status, Fact::seat).containsExactly(
                org.assertj.core.groups.Tuple.tuple("HELD", "b3", "HELD", 1),
                org.assertj.core.groups.Tuple.tuple("EV_EXPIRED", "b2", "EXPIRED", 1),
                org.assertj.core.groups.Tuple.tuple("EV_HELD", "b3", "HELD", 1));
        assertThat(strings("SELECT booking_id || ':' || status FROM " + p + "booking WHERE tenant_id = ?"
                + " ORDER BY booking_id", t)).containsExactly("b1:EXPIRED", "b2:EXPIRED", "b3:HELD");
        assertThat(strings("SELECT booking_id FROM " + p + "occupancy WHERE tenant_id = ? AND resource_kind = 'STUDENT'"
                + " AND active", t)).containsExactly("b3");
    }

    // ------------------------------------------------------------------ confirm / cancel

    @Test
    void confirmAnswersEveryState() throws SQLException {
        String t = tenant();
        schedule(t, "s", "c", "r", T0, T0.plusHours(1), 3);
        hold(t, "b1", "q1", "s", "li", "HELD", NOW, false);
        OffsetDateTime at = NOW.plusMinutes(5);
        Fact confirmed = new Fact("CONFIRMED", "b1", "q1", "s", "li", 1, "CONFIRMED", NOW.plusMinutes(10), NOW, at,
                null, null, null, null, null, null, null);
        assertThat(confirm(t, "b1", "li", at)).containsExactly(confirmed, withTag(confirmed, "EV_CONFIRMED"));
        assertThat(confirm(t, "b1", "li", at.plusMinutes(30))).containsExactly(confirmed);
        assertThat(strings("SELECT status FROM " + p + "slot_seat WHERE tenant_id = ? AND seq = 1", t))
                .containsExactly("CONFIRMED");
        assertThat(confirm(t, "b1", "mo", at)).containsExactly(bare("NOT_FOUND"));
        assertThat(confirm(t, "nope", "li", at)).containsExactly(bare("NOT_FOUND"));

        hold(t, "b2", "q2", "s", "mo", "HELD", NOW, false);
        OffsetDateTime late = NOW.plusMinutes(10);
        Fact expired = new Fact("HOLD_EXPIRED", "b2", "q2", "s", "mo", 2, "EXPIRED", NOW.plusMinutes(10), NOW, late,
                null, null, null, null, null, null, null);
        assertThat(confirm(t, "b2", "mo", late)).containsExactly(expired, withTag(expired, "EV_EXPIRED"));
        assertThat(confirm(t, "b2", "mo", late)).containsExactly(expired);
        assertThat(strings("SELECT status FROM " + p + "slot_seat WHERE tenant_id = ? AND seq = 2", t))
                .containsExactly("FREE");
        assertThat(longs("SELECT COUNT(*) FROM " + p + "occupancy WHERE tenant_id = ? AND booking_id = 'b2' AND active",
                t)).containsExactly(0L);

        hold(t, "b3", "q3", "s", "zoe", "HELD", NOW, false);
        cancel(t, "b3", "zoe", NOW.plusMinutes(1));
        assertThat(confirm(t, "b3", "zoe", NOW.plusMinutes(2))).containsExactly(bare("ALREADY_CANCELLED"));
    }

    @Test
    void cancelAnswersEveryState() throws SQLException {
        String t = tenant();
        schedule(t, "s", "c", "r", T0, T0.plusHours(1), 2);
        hold(t, "b1", "q1", "s", "li", "CONFIRMED", NOW, false);
        OffsetDateTime at = NOW.plusMinutes(1);
        Fact cancelled = new Fact("CANCELLED", "b1", "q1", "s", "li", 1, "CANCELLED", NOW.plusMinutes(10), NOW, at,
                null, null, null, null, null, null, null);
        assertThat(cancel(t, "b1", "mo", at)).containsExactly(bare("NOT_FOUND"));
        assertThat(cancel(t, "b1", "li", at)).containsExactly(cancelled, withTag(cancelled, "EV_CANCELLED"));
        assertThat(cancel(t, "b1", "li", at.plusMinutes(1))).containsExactly(withTag(cancelled, "ALREADY_CANCELLED"));
        assertThat(strings("SELECT status || ':' || COALESCE(booking_id, '-') FROM " + p
                + "slot_seat WHERE tenant_id = ? AND seq = 1", t)).containsExactly("FREE:-");
        assertThat(longs("SELECT COUNT(*) FROM " + p + "occupancy WHERE tenant_id = ? AND booking_id = 'b1' AND active",
                t)).containsExactly(0L);

        hold(t, "b2", "q2", "s", "mo", "HELD", NOW, false);
        OffsetDateTime late = NOW.plusMinutes(15);
        Fact expired = new Fact("ALREADY_CANCELLED", "b2", "q2", "s", "mo", 1, "EXPIRED", NOW.plusMinutes(10), NOW,
                late, null, null, null, null, null, null, null);
        assertThat(cancel(t, "b2", "mo", late)).containsExactly(expired, withTag(expired, "EV_EXPIRED"));
        assertThat(cancel(t, "b2", "mo", late)).containsExactly(expired);
    }

    // ------------------------------------------------------------------ cancel_slot / expire_due

    @Test
    void cancelSlotClosesSeatsCancelsBookingsAndReleasesEveryOccupation() throws SQLException {
        String t = tenant();
        schedule(t, "s", "c", "r", T0, T0.plusHours(1), 3);
        hold(t, "b1", "q1", "s", "li", "HELD", NOW, false);
        hold(t, "b2", "q2", "s", "mo", "CONFIRMED", NOW, false);
        OffsetDateTime at = NOW.plusMinutes(1);
        List<Fact> facts = cancelSlot(t, "s", at);
        assertThat(facts.get(0)).isEqualTo(new Fact("SLOT_CANCELLED", null, null, "s", null, 0, "CANCELLED", null,
                null, null, null, null, T0, T0.plusHours(1), "c", "r", 3));
        assertThat(facts.subList(1, facts.size())).extracting(Fact::tag, Fact::bookingId, Fact::seat, Fact::status)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("EV_CANCELLED", "b1", 1, "CANCELLED"),
                        org.assertj.core.groups.Tuple.tuple("EV_CANCELLED", "b2", 2, "CANCELLED"));
        assertThat(facts.get(1).updatedAt()).isEqualTo(at);
        assertThat(strings("SELECT DISTINCT status FROM " + p + "slot_seat WHERE tenant_id = ? AND booking_id IS NULL",
                t)).containsExactly("CLOSED");
        assertThat(longs("SELECT COUNT(*) FROM " + p + "occupancy WHERE tenant_id = ? AND active", t))
                .containsExactly(0L);
        assertThat(cancelSlot(t, "s", at)).containsExactly(bare("ALREADY_CANCELLED"));
        assertThat(cancelSlot(t, "nope", at)).containsExactly(bare("NOT_FOUND"));
        // coach and room are free again
        assertThat(schedule(t, "again", "c", "r", T0, T0.plusHours(1), 1)).extracting(Fact::tag)
                .containsExactly("SCHEDULED");
    }

    @Test
    void expireDueExpiresTheOldestDeadHoldsUpToTheLimit() throws SQLException {
        String t = tenant();
        schedule(t, "s", "c", "r", T0, T0.plusHours(1), 4);
        hold(t, "b1", "q1", "s", "li", "HELD", NOW.plusMinutes(2), false);
        hold(t, "b2", "q2", "s", "mo", "HELD", NOW, false);
        hold(t, "b3", "q3", "s", "zoe", "CONFIRMED", NOW, false);
        hold(t, "b4", "q4", "s", "ada", "HELD", NOW.plusMinutes(30), false);
        OffsetDateTime at = NOW.plusMinutes(15);
        List<Fact> first = expireDue(t, at, 1);
        assertThat(first).extracting(Fact::tag, Fact::bookingId, Fact::status).containsExactly(
                org.assertj.core.groups.Tuple.tuple("EV_EXPIRED", "b2", "EXPIRED"));
        assertThat(first.get(0).updatedAt()).isEqualTo(at);
        assertThat(expireDue(t, at, 10)).extracting(Fact::bookingId).containsExactly("b1");
        assertThat(expireDue(t, at, 10)).isEmpty();
        assertThat(strings("SELECT booking_id || ':' || status FROM " + p + "booking WHERE tenant_id = ?"
                + " ORDER BY booking_id", t)).containsExactly("b1:EXPIRED", "b2:EXPIRED", "b3:CONFIRMED", "b4:HELD");
        assertThat(longs("SELECT COUNT(*) FROM " + p + "slot_seat WHERE tenant_id = ? AND status = 'FREE'", t))
                .containsExactly(2L);
        assertThat(strings("SELECT booking_id FROM " + p + "occupancy WHERE tenant_id = ? AND resource_kind = 'STUDENT'"
                + " AND active ORDER BY booking_id", t)).containsExactly("b3", "b4");
        assertThatThrownBy(() -> expireDue(t, at, 0)).isInstanceOf(SQLException.class);
    }

    // ------------------------------------------------------------------ the database clock

    @Test
    void aNullNowIsTheDatabaseClockReadOnce() throws SQLException {
        String t = tenant();
        OffsetDateTime start = OffsetDateTime.now(ZoneOffset.UTC).plusDays(2).truncatedTo(ChronoUnit.HOURS);
        schedule(t, "s", "c", "r", start, start.plusHours(1), 2);
        OffsetDateTime before = dbClock();
        List<Fact> held = hold(t, "b1", "q1", "s", "li", "HELD", null, false);
        OffsetDateTime after = dbClock();
        Fact b = held.get(0);
        assertThat(b.tag()).isEqualTo("HELD");
        assertThat(b.createdAt()).isBetween(before, after).isEqualTo(b.updatedAt());
        assertThat(b.heldUntil()).isEqualTo(b.createdAt().plusMinutes(10));

        before = dbClock();
        List<Fact> confirmed = confirm(t, "b1", "li", null);
        after = dbClock();
        assertThat(confirmed.get(0).updatedAt()).isBetween(before, after);
        before = dbClock();
        List<Fact> cancelled = cancel(t, "b1", "li", null);
        after = dbClock();
        assertThat(cancelled).extracting(Fact::tag).containsExactly("CANCELLED", "EV_CANCELLED");
        assertThat(cancelled.get(0).updatedAt()).isBetween(before, after);

        // a hold of zero length is dead at once by the database clock
        hold(t, "b2", "q2", "s", "mo", "HELD", null, false, 0);
        assertThat(expireDue(t, null, 10)).extracting(Fact::bookingId).containsExactly("b2");
        hold(t, "b3", "q3", "s", "zoe", "HELD", null, false);
        assertThat(cancelSlot(t, "s", null)).extracting(Fact::tag).containsExactly("SLOT_CANCELLED", "EV_CANCELLED");
    }

    // ------------------------------------------------------------------ concurrency

    @Test
    void fiftyConcurrentHoldsOnTenSeatsTakeExactlyTenSeats() throws Exception {
        String t = tenant();
        schedule(t, "hot", "c", "r", T0, T0.plusHours(1), 10);
        List<Callable<List<Fact>>> calls = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            int n = i;
            calls.add(() -> hold(t, "b" + n, "q" + n, "hot", "st" + n, "HELD", NOW, false));
        }
        List<List<Fact>> answers = Concurrent.call(calls);
        assertThat(answers.stream().filter(a -> a.get(0).tag().equals("HELD")).count()).isEqualTo(10);
        assertThat(answers.stream().filter(a -> a.get(0).tag().equals("FULL")).count()).isEqualTo(40);
        assertThat(longs("SELECT COUNT(*) FROM " + p + "slot_seat WHERE tenant_id = ? AND status = 'HELD'", t))
                .containsExactly(10L);
        assertThat(longs("SELECT COUNT(DISTINCT booking_id) FROM " + p + "slot_seat WHERE tenant_id = ?", t))
                .containsExactly(10L);
        assertThat(longs("SELECT COUNT(*) FROM " + p + "booking WHERE tenant_id = ?", t)).containsExactly(10L);
        assertThat(longs("SELECT COUNT(*) FROM " + p + "booking b JOIN " + p + "slot_seat s ON s.tenant_id = b.tenant_id"
                + " AND s.slot_id = b.slot_id AND s.seq = b.seat AND s.booking_id = b.booking_id WHERE b.tenant_id = ?", t))
                .containsExactly(10L);
    }

    @Test
    void oneStudentRacingIntoTenOverlappingSlotsGetsOne() throws Exception {
        String t = tenant();
        List<Callable<List<Fact>>> calls = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            OffsetDateTime start = T0.plusMinutes(5L * i);
            schedule(t, "s" + i, "c" + i, "r" + i, start, start.plusHours(1), 5);
            int n = i;
            calls.add(() -> hold(t, "b" + n, "q" + n, "s" + n, "li", "HELD", NOW, false));
        }
        List<List<Fact>> answers = Concurrent.call(calls);
        assertThat(answers.stream().filter(a -> a.get(0).tag().equals("HELD")).count()).isEqualTo(1);
        assertThat(answers.stream().filter(a -> a.get(0).tag().equals("CONFLICT")).count()).isEqualTo(9);
        assertThat(longs("SELECT COUNT(*) FROM " + p + "occupancy WHERE tenant_id = ? AND resource_kind = 'STUDENT'"
                + " AND resource_id = 'li' AND active", t)).containsExactly(1L);
        assertThat(longs("SELECT COUNT(*) FROM " + p + "booking WHERE tenant_id = ?", t)).containsExactly(1L);
        assertThat(longs("SELECT COUNT(*) FROM " + p + "slot_seat WHERE tenant_id = ? AND student_id = 'li'", t))
                .containsExactly(1L);
    }

    @Test
    void twentyConcurrentCancelsCancelOnceAndFreeTheSeatOnce() throws Exception {
        String t = tenant();
        schedule(t, "s", "c", "r", T0, T0.plusHours(1), 3);
        hold(t, "b1", "q1", "s", "li", "CONFIRMED", NOW, false);
        List<Callable<List<Fact>>> calls = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            calls.add(() -> cancel(t, "b1", "li", NOW.plusMinutes(1)));
        }
        List<List<Fact>> answers = Concurrent.call(calls);
        assertThat(answers.stream().filter(a -> a.get(0).tag().equals("CANCELLED")).count()).isEqualTo(1);
        assertThat(answers.stream().filter(a -> a.get(0).tag().equals("ALREADY_CANCELLED")).count()).isEqualTo(19);
        assertThat(answers.stream().flatMap(List::stream).filter(f -> f.tag().startsWith("EV_")))
                .extracting(Fact::tag).containsExactly("EV_CANCELLED");
        assertThat(longs("SELECT COUNT(*) FROM " + p + "slot_seat WHERE tenant_id = ? AND status = 'FREE'", t))
                .containsExactly(3L);
        assertThat(strings("SELECT status FROM " + p + "booking WHERE tenant_id = ?", t)).containsExactly("CANCELLED");
        assertThat(longs("SELECT COUNT(*) FROM " + p + "occupancy WHERE tenant_id = ? AND resource_kind = 'STUDENT'"
                + " AND active", t)).containsExactly(0L);
    }

    // ------------------------------------------------------------------ plans

    @Test
    void theHotStatementsUseTheirIndexOnAFreshSchemaCustomAndGeneric() throws SQLException {
        try (TestDatabase fresh = TestDatabases.postgres(); Connection c = fresh.dataSource().getConnection()) {
            String f = fresh.prefix();
            // as in the functions (varchar parameters, the same text)
            expectIndex(c, f + "booking_request_ux", "SELECT b.booking_id FROM " + f + "booking b"
                    + " WHERE b.tenant_id = $1 AND b.request_id = $2", "varchar", "varchar");
            expectIndex(c, f + "booking_pk", "SELECT b.slot_id, b.seat FROM " + f + "booking b"
                    + " WHERE b.tenant_id = $1 AND b.booking_id = $2 AND b.student_id = $3", "varchar", "varchar", "varchar");
            expectIndex(c, f + "booking_pk", "UPDATE " + f + "booking b SET status = 'EXPIRED', updated_at = $3"
                    + " WHERE b.tenant_id = $1 AND b.booking_id = $2", "varchar", "varchar", "timestamptz");
            expectIndex(c, f + "booking_live_ix", "SELECT b.booking_id FROM " + f + "booking b"
                    + " WHERE b.tenant_id = $1 AND b.slot_id = $2 AND b.student_id = $3"
                    + " AND (b.status = 'CONFIRMED' OR (b.status = 'HELD' AND $4 < b.held_until)) LIMIT 1",
                    "varchar", "varchar", "varchar", "timestamptz");
            expectIndex(c, f + "booking_live_ix", "UPDATE " + f + "booking b SET status = 'CANCELLED', updated_at = $3"
                    + " WHERE b.tenant_id = $1 AND b.slot_id = $2 AND b.status IN ('HELD', 'CONFIRMED')",
                    "varchar", "varchar", "timestamptz");
            expectIndex(c, f + "booking_held_ix", "SELECT d.booking_id FROM " + f + "booking d"
                    + " WHERE d.tenant_id = $1 AND d.status = 'HELD' AND d.held_until <= $2 ORDER BY d.held_until LIMIT $3",
                    "varchar", "timestamptz", "int");
            String overlap = "SELECT o.booking_id FROM " + f + "occupancy o LEFT JOIN LATERAL (SELECT d.status,"
                    + " d.held_until FROM " + f + "booking d WHERE d.tenant_id = $1 AND d.booking_id = o.booking_id"
                    + " OFFSET 0) d ON TRUE WHERE o.tenant_id = $1 AND o.resource_kind = 'STUDENT' AND o.resource_id = $2"
                    + " AND o.active AND o.starts_at < $4 AND o.ends_at > $3 AND o.starts_at > $5"
                    + " AND NOT COALESCE(d.status = 'HELD' AND d.held_until <= $6, FALSE)"
                    + " ORDER BY o.resource_kind, o.resource_id, o.starts_at";
            String[] overlapTypes = {"varchar", "varchar", "timestamptz", "timestamptz", "timestamptz", "timestamptz"};
            expectIndex(c, f + "occupancy_overlap_ix", overlap, overlapTypes);
            expectIndex(c, f + "booking_pk", overlap, overlapTypes);
            String retire = "SELECT m.booking_id AS id, m.slot_id AS slot, m.seat AS seq FROM (SELECT l.booking_id,"
                    + " l.slot_id, l.seat, l.status, l.held_until FROM " + f + "booking l WHERE l.tenant_id = $1"
                    + " AND l.slot_id = $3 AND l.student_id = $2 AND l.status IN ('HELD', 'CONFIRMED') OFFSET 0) m"
                    + " WHERE m.status = 'HELD' AND m.held_until <= $7 UNION ALL SELECT d.booking_id, d.slot_id, d.seat FROM (SELECT o.booking_id"
                    + " FROM " + f + "occupancy o WHERE o.tenant_id = $1 AND o.resource_kind = 'STUDENT'"
                    + " AND o.resource_id = $2 AND o.active AND o.starts_at < $5 AND o.ends_at > $4 AND o.starts_at > $6"
                    + " ORDER BY o.resource_kind, o.resource_id, o.starts_at) o CROSS JOIN LATERAL (SELECT k.booking_id,"
                    + " k.slot_id, k.seat, k.status, k.held_until FROM " + f + "booking k WHERE k.tenant_id = $1"
                    + " AND k.booking_id = o.booking_id OFFSET 0) d WHERE d.status = 'HELD' AND d.held_until <= $7";
            String[] retireTypes = {"varchar", "varchar", "varchar", "timestamptz", "timestamptz", "timestamptz",
                "timestamptz"};
            expectIndex(c, f + "booking_live_ix", retire, retireTypes);
            expectIndex(c, f + "occupancy_overlap_ix", retire, retireTypes);
            expectIndex(c, f + "booking_pk", retire, retireTypes);
            expectIndex(c, f + "occupancy_overlap_ix", "SELECT c.slot_id FROM " + f + "occupancy c"
                    + " WHERE c.tenant_id = $1 AND c.resource_kind = 'COACH' AND c.resource_id = $2 AND c.active"
                    + " AND c.starts_at < $4 AND c.ends_at > $3 AND c.starts_at > $5"
                    + " ORDER BY c.resource_kind, c.resource_id, c.starts_at",
                    "varchar", "varchar", "timestamptz", "timestamptz", "timestamptz");
            expectIndex(c, f + "occupancy_release_booking_ix", "UPDATE " + f + "occupancy o SET active = FALSE"
                    + " WHERE o.tenant_id = $1 AND o.booking_id = $2 AND o.active IS NOT FALSE", "varchar", "varchar");
            expectIndex(c, f + "occupancy_release_slot_ix", "UPDATE " + f + "occupancy o SET active = FALSE"
                    + " WHERE o.tenant_id = $1 AND o.slot_id = $2 AND o.active IS NOT FALSE", "varchar", "varchar");
            expectIndex(c, f + "slot_seat_free_ix", "SELECT s.seq FROM " + f + "slot_seat s WHERE s.tenant_id = $1"
                    + " AND s.slot_id = $2 AND s.status = 'FREE' ORDER BY s.seq LIMIT 1 FOR UPDATE SKIP LOCKED",
                    "varchar", "varchar");
            expectIndex(c, f + "slot_seat_held_ix", "SELECT s.seq, s.booking_id FROM " + f + "slot_seat s"
                    + " WHERE s.tenant_id = $1 AND s.slot_id = $2 AND s.status = 'HELD' AND s.held_until <= $3"
                    + " ORDER BY s.held_until LIMIT 1 FOR UPDATE SKIP LOCKED", "varchar", "varchar", "timestamptz");
            expectIndex(c, f + "slot_seat_free_ix", "SELECT EXISTS (SELECT 1 FROM " + f + "slot_seat x"
                    + " WHERE x.tenant_id = $1 AND x.slot_id = $2 AND x.status = 'FREE')", "varchar", "varchar");
            expectIndex(c, f + "slot_seat_pk", "SELECT s.status, s.booking_id FROM " + f + "slot_seat s"
                    + " WHERE s.tenant_id = $1 AND s.slot_id = $2 AND s.seq = $3 FOR UPDATE", "varchar", "varchar", "int");
            expectIndex(c, f + "slot_seat_pk", "UPDATE " + f + "slot_seat s SET status = 'FREE', booking_id = NULL,"
                    + " student_id = NULL, held_until = NULL WHERE s.tenant_id = $1 AND s.slot_id = $2 AND s.seq = $3",
                    "varchar", "varchar", "int");
            expectIndex(c, f + "resource_lock_pk", "SELECT 1 FROM " + f + "resource_lock l WHERE l.tenant_id = $1"
                    + " AND l.resource_kind = 'STUDENT' AND l.resource_id = $2 FOR UPDATE", "varchar", "varchar");
            expectIndex(c, f + "slot_pk", "SELECT s.starts_at FROM " + f + "slot s WHERE s.tenant_id = $1"
                    + " AND s.slot_id = $2", "varchar", "varchar");
            // the booking rules: the slot lock of every seat freeing, the waitlist, the student limits
            expectIndex(c, f + "slot_pk", "SELECT 1 FROM " + f + "slot s WHERE s.tenant_id = $1 AND s.slot_id = $2"
                    + " FOR UPDATE", "varchar", "varchar");
            expectIndex(c, f + "waiter_waiting_ix", "SELECT x.request_id, x.student_id, x.booking_id FROM " + f
                    + "waiter x WHERE x.tenant_id = $1 AND x.slot_id = $2 AND x.status = 'WAITING' ORDER BY x.seq",
                    "varchar", "varchar");
            expectIndex(c, f + "waiter_waiting_ix", "SELECT COUNT(*) FROM " + f + "waiter o WHERE o.tenant_id = $1"
                    + " AND o.slot_id = $2 AND o.status = 'WAITING' AND o.seq <= $3", "varchar", "varchar", "int");
            expectIndex(c, f + "waiter_waiting_ix", "SELECT x.request_id FROM " + f + "waiter x WHERE x.tenant_id = $1"
                    + " AND x.slot_id = $2 AND x.student_id = $3 AND x.status = 'WAITING' LIMIT 1",
                    "varchar", "varchar", "varchar");
            expectIndex(c, f + "waiter_pk", "SELECT x.status FROM " + f + "waiter x WHERE x.tenant_id = $1"
                    + " AND x.request_id = $2 FOR UPDATE", "varchar", "varchar");
            expectIndex(c, f + "booking_live_ix", "SELECT 1 FROM " + f + "booking b WHERE b.tenant_id = $1"
                    + " AND b.slot_id = $2 AND b.student_id = $3 AND b.status IN ('HELD', 'CONFIRMED') LIMIT 1",
                    "varchar", "varchar", "varchar");
            String upcoming = "SELECT COUNT(*) FROM (SELECT o.booking_id FROM " + f + "occupancy o"
                    + " WHERE o.tenant_id = $1 AND o.resource_kind = 'STUDENT' AND o.resource_id = $2"
                    + " AND o.active AND o.ends_at > $3 AND o.starts_at > $4"
                    + " ORDER BY o.resource_kind, o.resource_id, o.starts_at OFFSET 0) o CROSS JOIN LATERAL"
                    + " (SELECT d.status, d.held_until FROM " + f + "booking d WHERE d.tenant_id = $1"
                    + " AND d.booking_id = o.booking_id OFFSET 0) d"
                    + " WHERE d.status = 'CONFIRMED' OR (d.status = 'HELD' AND d.held_until > $3)";
            String[] upcomingTypes = {"varchar", "varchar", "timestamptz", "timestamptz"};
            expectIndex(c, f + "occupancy_overlap_ix", upcoming, upcomingTypes);
            expectIndex(c, f + "booking_pk", upcoming, upcomingTypes);
            String weekly = "SELECT COUNT(*) FROM (SELECT o.booking_id FROM " + f + "occupancy o"
                    + " WHERE o.tenant_id = $1 AND o.resource_kind = 'STUDENT' AND o.resource_id = $2"
                    + " AND o.active AND o.starts_at >= $4 AND o.starts_at < $5"
                    + " ORDER BY o.resource_kind, o.resource_id, o.starts_at OFFSET 0) o CROSS JOIN LATERAL"
                    + " (SELECT d.status, d.held_until FROM " + f + "booking d WHERE d.tenant_id = $1"
                    + " AND d.booking_id = o.booking_id OFFSET 0) d"
                    + " WHERE d.status = 'CONFIRMED' OR (d.status = 'HELD' AND d.held_until > $3)";
            String[] weeklyTypes = {"varchar", "varchar", "timestamptz", "timestamptz", "timestamptz"};
            expectIndex(c, f + "occupancy_overlap_ix", weekly, weeklyTypes);
            expectIndex(c, f + "booking_pk", weekly, weeklyTypes);
        }
    }

    private static void expectIndex(Connection c, String index, String sql, String... types) throws SQLException {
        String name = "p" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        StringBuilder args = new StringBuilder();
        for (int i = 0; i < types.length; i++) {
            args.append(i == 0 ? "" : ", ").append(switch (types[i]) {
                case "timestamptz" -> "'2030-01-01 10:00:00+00'";
                case "int" -> "1";
                default -> "'x" + i + "'";
            });
        }
        try (Statement st = c.createStatement()) {
            st.execute("PREPARE " + name + " (" + String.join(", ", types) + ") AS " + sql);
            try {
                for (String mode : List.of("force_custom_plan", "force_generic_plan")) {
                    st.execute("SET plan_cache_mode = " + mode);
                    StringBuilder plan = new StringBuilder();
                    try (ResultSet rs = st.executeQuery("EXPLAIN (COSTS OFF) EXECUTE " + name + " (" + args + ")")) {
                        while (rs.next()) {
                            plan.append(rs.getString(1)).append('\n');
                        }
                    }
                    assertThat(plan.toString()).as(mode + " plan of " + sql)
                            .contains(" using " + index + " ").doesNotContain("Seq Scan");
                }
            } finally {
                st.execute("RESET plan_cache_mode");
                st.execute("DEALLOCATE " + name);
            }
        }
    }

    // ------------------------------------------------------------------ calls

    private static List<Fact> schedule(String t, String slot, String coach, String room, OffsetDateTime start,
                                       OffsetDateTime end, int capacity) throws SQLException {
        return call("SELECT * FROM " + p + "schedule(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", t,
                slot, coach, room, start, end, capacity, LONGEST_MICROS, null, null, 0, new Null(Types.VARCHAR),
                new Null(Types.INTEGER), null, null, false, new Null(Types.VARCHAR), 0, new Null(Types.VARCHAR));
    }

    private static List<Fact> hold(String t, String booking, String request, String slot, String student,
                                   String status, OffsetDateTime now, boolean gateHeld) throws SQLException {
        return hold(t, booking, request, slot, student, status, now, gateHeld, HOLD_MICROS);
    }

    private static List<Fact> hold(String t, String booking, String request, String slot, String student,
                                   String status, OffsetDateTime now, boolean gateHeld, long holdMicros)
            throws SQLException {
        return call("SELECT * FROM " + p + "hold(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", t, booking, request,
                slot, student, status, now, holdMicros, LONGEST_MICROS, gateHeld, false, 0, 0, 0L, "AT_BOOKING");
    }

    private static List<Fact> confirm(String t, String booking, String student, OffsetDateTime now) throws SQLException {
        return call("SELECT * FROM " + p + "confirm(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", t, booking, student, now,
                HOLD_MICROS, LONGEST_MICROS, 0, 0, 0L, "AT_BOOKING");
    }

    private static List<Fact> cancel(String t, String booking, String student, OffsetDateTime now) throws SQLException {
        return call("SELECT * FROM " + p + "cancel(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", t, booking, student, now,
                "FREE", new Null(Types.BIGINT), HOLD_MICROS, LONGEST_MICROS, 0, 0, 0L, "AT_BOOKING");
    }

    private static List<Fact> cancelSlot(String t, String slot, OffsetDateTime now) throws SQLException {
        return call("SELECT * FROM " + p + "cancel_slot(?, ?, ?)", t, slot, now);
    }

    private static List<Fact> expireDue(String t, OffsetDateTime now, int limit) throws SQLException {
        return call("SELECT * FROM " + p + "expire_due(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", t, now, limit,
                HOLD_MICROS, LONGEST_MICROS, 0, 0, 0L, "AT_BOOKING", false, 0L);
    }

    /** A NULL argument of another type than timestamptz. */
    record Null(int sqlType) {
    }

    /** One call in autocommit mode, as the store makes it; a null argument is a NULL timestamptz. */
    private static List<Fact> call(String sql, Object... args) throws SQLException {
        try (Connection c = db.dataSource().getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
            c.setAutoCommit(true);
            for (int i = 0; i < args.length; i++) {
                if (args[i] == null) {
                    ps.setNull(i + 1, Types.TIMESTAMP_WITH_TIMEZONE);
                } else if (args[i] instanceof Null n) {
                    ps.setNull(i + 1, n.sqlType());
                } else {
                    ps.setObject(i + 1, args[i]);
                }
            }
            List<Fact> facts = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                ResultSetMetaData md = rs.getMetaData();
                List<String> columns = new ArrayList<>();
                for (int i = 1; i <= md.getColumnCount(); i++) {
                    columns.add(md.getColumnLabel(i));
                }
                assertThat(columns).isEqualTo(COLUMNS);
                while (rs.next()) {
                    facts.add(new Fact(rs.getString(1), rs.getString(2), rs.getString(3), rs.getString(4),
                            rs.getString(5), (Integer) rs.getObject(6), rs.getString(7), time(rs, 8), time(rs, 9),
                            time(rs, 10), rs.getString(11), rs.getString(12), time(rs, 13), time(rs, 14),
                            rs.getString(15), rs.getString(16), (Integer) rs.getObject(17)));
                }
            }
            return facts;
        }
    }

    private static OffsetDateTime time(ResultSet rs, int column) throws SQLException {
        OffsetDateTime value = rs.getObject(column, OffsetDateTime.class);
        return value == null ? null : value.withOffsetSameInstant(ZoneOffset.UTC);
    }

    // ------------------------------------------------------------------ helpers

    private static String tenant() {
        return "t-" + UUID.randomUUID();
    }

    private static OffsetDateTime dbClock() throws SQLException {
        try (Connection c = db.dataSource().getConnection(); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT clock_timestamp()")) {
            rs.next();
            return time(rs, 1);
        }
    }

    private static List<String> strings(String sql, String tenant) throws SQLException {
        List<String> values = new ArrayList<>();
        try (Connection c = db.dataSource().getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setString(1, tenant);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    values.add(rs.getString(1));
                }
            }
        }
        return values;
    }

    private static List<Long> longs(String sql, String tenant) throws SQLException {
        List<Long> values = new ArrayList<>();
        for (String s : strings(sql, tenant)) {
            values.add(Long.parseLong(s));
        }
        return values;
    }

    private static Fact bare(String tag) {
        return new Fact(tag, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null,
                null);
    }

    private static Fact withSlot(Fact f, String slot, String status) {
        return new Fact(f.tag(), null, null, slot, null, null, status, null, null, null, null, null, null, null, null,
                null, null);
    }

    private static Fact withTag(Fact f, String tag) {
        return new Fact(tag, f.bookingId(), f.requestId(), f.slotId(), f.studentId(), f.seat(), f.status(),
                f.heldUntil(), f.createdAt(), f.updatedAt(), f.resKind(), f.resId(), f.startsAt(), f.endsAt(),
                f.coachId(), f.roomId(), f.capacity());
    }
}
