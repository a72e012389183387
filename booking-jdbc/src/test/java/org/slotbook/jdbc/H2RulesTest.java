package org.slotbook.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slotbook.core.tck.Concurrent;
import org.slotbook.jdbc.H2RoutinesTest.Fact;
import org.slotbook.jdbc.testing.TestDatabases;
import org.slotbook.jdbc.testing.TestDatabases.TestDatabase;

/**
 * The booking rules of the H2 routines (window, buffers, cancel policy, limits, waitlist and
 * promotion), called as the Java side calls them, each verdict read back from the tables by SQL.
 */
class H2RulesTest {
    private static final Instant T0 = Instant.parse("2030-01-07T10:00:00Z"); // a Monday
    private static final Instant NOW = Instant.parse("2030-01-06T08:00:00Z");
    private static final Instant WEEK = Instant.parse("2030-01-07T00:00:00Z");
    private static final long HOLD = Duration.ofMinutes(10).toNanos() / 1000;
    private static final long LONGEST = Duration.ofHours(24).toNanos() / 1000;
    private static final int H2_LOCK_TIMEOUT = 50200;
    private static final int H2_DEADLOCK = 40001;
    private static final int H2_CONCURRENT_UPDATE = 90131;

    private static TestDatabase db;
    private String tenant;

    @BeforeAll
    static void open() {
        db = TestDatabases.h2();
    }

    @AfterAll
    static void close() {
        if (db != null) {
            db.close();
        }
    }

    @BeforeEach
    void freshTenant() {
        tenant = "tenant-" + UUID.randomUUID();
    }

    // ------------------------------------------------------------------ schedule

    @Test
    void scheduleStoresTheRulesAndOccupiesCoachAndRoomOverThePaddedTime() throws SQLException {
        Instant end = T0.plusSeconds(3600);
        Instant opens = NOW.minusSeconds(3600);
        Instant closes = T0.minusSeconds(600);
        List<Fact> scheduled = call("schedule", tenant, "s1", "c1", "r1", at(T0), at(end), 5, LONGEST, at(opens),
                at(closes), 900, "REFUSE", 7200, at(WEEK), at(WEEK.plus(Duration.ofDays(7))), false, null, 0, null);
        assertThat(scheduled).containsExactly(new Fact("SCHEDULED", null, null, "s1", null, 900, "OPEN", opens,
                closes, null, "REFUSE", "7200", T0, end, "c1", "r1", 5));
        assertThat(rows("SELECT opens_at, closes_at, buffer_seconds, cancel_policy, cancel_cutoff_seconds,"
                + " week_start, week_end FROM " + db.table("slot") + " WHERE tenant_id = ?", tenant))
                .containsExactly(List.of(opens, closes, 900, "REFUSE", 7200, WEEK, WEEK.plus(Duration.ofDays(7))));
        Instant padded = end.plusSeconds(900);
        assertThat(rows("SELECT resource_kind, starts_at, ends_at FROM " + db.table("occupancy")
                + " WHERE tenant_id = ? ORDER BY resource_kind", tenant))
                .containsExactly(List.of("COACH", T0, padded), List.of("ROOM", T0, padded));
        // the coach's next session may start only after the buffer; the same room too
        assertThat(schedule("s2", "c1", "r2", end, end.plusSeconds(3600), 0, null, null)).extracting(Fact::tag)
                .containsExactly("CONFLICT");
        assertThat(schedule("s2", "c2", "r1", end.plusSeconds(600), end.plusSeconds(3600), 0, null, null))
                .extracting(Fact::tag).containsExactly("CONFLICT");
        assertThat(schedule("s2", "c1", "r1", padded, padded.plusSeconds(3600), 0, null, null))
                .extracting(Fact::tag).containsExactly("SCHEDULED");
        // a buffered newcomer must not run into the next session either
        assertThat(schedule("s3", "c3", "r1", T0.minusSeconds(7200), T0.minusSeconds(600), 900, null, null))
                .extracting(Fact::tag).containsExactly("CONFLICT");
        assertThat(count("slot", "")).isEqualTo(2);
        // EXISTS answers the stored rules
        assertThat(call("schedule", tenant, "s1", "c1", "r1", at(T0), at(end), 5, LONGEST, null, null, 0, null, null,
                at(WEEK), at(WEEK.plus(Duration.ofDays(7))), false, null, 0, null)).containsExactly(scheduled.get(0).as("EXISTS"));
    }

    @Test
    void anOlderSchemaGetsTheNewColumnsAndTheWaiterTable() throws SQLException {
        String prefix = TestDatabases.freshPrefix();
        try (Connection c = db.dataSource().getConnection(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE " + prefix + "slot (tenant_id VARCHAR(64) NOT NULL, slot_id VARCHAR(64) NOT NULL,"
                    + " coach_id VARCHAR(64) NOT NULL, room_id VARCHAR(64) NOT NULL,"
                    + " starts_at TIMESTAMP(6) WITH TIME ZONE NOT NULL, ends_at TIMESTAMP(6) WITH TIME ZONE NOT NULL,"
                    + " capacity INTEGER NOT NULL, status VARCHAR(16) NOT NULL, PRIMARY KEY (tenant_id, slot_id))");
            s.execute("INSERT INTO " + prefix + "slot VALUES ('t', 'old', 'c', 'r', TIMESTAMP WITH TIME ZONE"
                    + " '2030-01-01 10:00:00+00', TIMESTAMP WITH TIME ZONE '2030-01-01 11:00:00+00', 2, 'OPEN')");
        }
        JdbcSchema.create(db.dataSource(), prefix);
        JdbcSchema.create(db.dataSource(), prefix);
        assertThat(rows("SELECT buffer_seconds, cancel_policy, opens_at FROM " + prefix + "slot")).containsExactly(
                Arrays.asList(0, null, null));
        assertThat(rows("SELECT COUNT(*) FROM INFORMATION_SCHEMA.COLUMNS WHERE TABLE_NAME = ?",
                (prefix + "slot").toUpperCase())).containsExactly(List.of(19L));
        assertThat(rows("SELECT buffer_students FROM " + prefix + "slot")).containsExactly(List.of(false));
        assertThat(rows("SELECT COUNT(*) FROM " + prefix + "waiter")).containsExactly(List.of(0L));
        assertThat(rows("SELECT COUNT(*) FROM INFORMATION_SCHEMA.COLUMNS WHERE TABLE_NAME = ? AND COLUMN_NAME ="
                + " 'LATE_CANCEL'", (prefix + "booking").toUpperCase())).containsExactly(List.of(1L));
    }

    @Test
    void aBufferForStudentsTooEndsTheirOccupationsAfterItAndKeepsTheirNextSessionOut() throws SQLException {
        Instant end = T0.plusSeconds(3600);
        Instant padded = end.plusSeconds(1200);
        List<Fact> scheduled = schedule("swim", "c1", "r1", T0, end, 1, 1200, true, null, null);
        assertThat(scheduled).extracting(Fact::tag, Fact::studentId, Fact::seat)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("SCHEDULED", "STUDENTS", 1200));
        assertThat(rows("SELECT buffer_students FROM " + db.table("slot") + " WHERE tenant_id = ? AND slot_id = 'swim'",
                tenant)).containsExactly(List.of(true));
        assertThat(schedule("plain", "c9", "r9", T0, end, 1, 1200, false, null, null)).extracting(Fact::studentId)
                .containsOnlyNulls();
        schedule("soon", "c2", "r2", end.plusSeconds(600), end.plusSeconds(2400), 2, 0, null, null);
        schedule("later", "c3", "r3", padded, padded.plusSeconds(1800), 0, null, null);

        // st3's hold of "soon" runs out; st3 then takes "swim", retiring it though it overlaps the turnover only
        assertThat(hold("b0", "q0", "soon", "st3", NOW, false, 0, 0).get(0).tag()).isEqualTo("HELD");
        Instant later = NOW.plus(Duration.ofMinutes(10));
        assertThat(hold("b1", "q1", "swim", "st3", later, false, 0, 0)).extracting(Fact::tag)
                .containsExactly("HELD", "EV_EXPIRED", "EV_HELD");
        assertThat(rows("SELECT status FROM " + db.table("booking") + " WHERE tenant_id = ? AND booking_id = 'b0'",
                tenant)).containsExactly(List.of("EXPIRED"));
        // the student's occupation lasts until the end of the buffer, the coach's and room's as before
        assertThat(rows("SELECT resource_kind, starts_at, ends_at FROM " + db.table("occupancy")
                + " WHERE tenant_id = ? AND slot_id = 'swim' AND active ORDER BY resource_kind", tenant))
                .containsExactly(List.of("COACH", T0, padded), List.of("ROOM", T0, padded),
                        List.of("STUDENT", T0, padded));
        // inside the turnover: a conflict with the padded occupation; after it: held
        assertThat(hold("b2", "q2", "soon", "st3", later, false, 0, 0)).containsExactly(new Fact("CONFLICT", "b1",
                null, "swim", null, null, null, null, null, null, "STUDENT", "st3", T0, padded, null, null, null));
        assertThat(hold("b3", "q3", "later", "st3", later, false, 0, 0).get(0).tag()).isEqualTo("HELD");

        // promotion: st4, waiting, then took "soon" inside the turnover and is passed over; st5 gets the seat
        assertThat(hold("b5", "q5", "swim", "st4", later, true, 0, 0)).extracting(Fact::tag)
                .containsExactly("WAITLISTED");
        assertThat(hold("b6", "q6", "swim", "st5", later, true, 0, 0)).extracting(Fact::tag)
                .containsExactly("WAITLISTED");
        assertThat(hold("b4", "q4", "soon", "st4", later, false, 0, 0).get(0).tag()).isEqualTo("HELD");
        assertThat(cancel("b1", "st3", later, null, null)).extracting(Fact::tag)
                .containsExactly("CANCELLED", "EV_CANCELLED", "EV_SKIPPED", "EV_PROMOTED");
        assertThat(rows("SELECT request_id, status, reason FROM " + db.table("waiter")
                + " WHERE tenant_id = ? ORDER BY seq", tenant))
                .containsExactly(List.of("q5", "SKIPPED", "CONFLICT"), Arrays.asList("q6", "PROMOTED", null));
        assertThat(rows("SELECT b.booking_id, o.starts_at, o.ends_at FROM " + db.table("occupancy") + " o JOIN "
                + db.table("booking") + " b ON b.tenant_id = o.tenant_id AND b.booking_id = o.booking_id"
                + " WHERE o.tenant_id = ? AND o.resource_kind = 'STUDENT' AND o.slot_id = 'swim' AND o.active"
                + " AND b.status = 'HELD'", tenant)).containsExactly(List.of("b6", T0, padded));
    }

    // ------------------------------------------------------------------ hold: window and limits

    @Test
    void theWindowAnswersNotOpenYetAndBookingClosedWithTheInstant() throws SQLException {
        Instant opens = NOW.plusSeconds(60);
        Instant closes = NOW.plusSeconds(120);
        call("schedule", tenant, "s1", "c1", "r1", at(T0), at(T0.plusSeconds(3600)), 2, LONGEST, at(opens),
                at(closes), 0, null, null, at(WEEK), at(WEEK.plus(Duration.ofDays(7))), false, null, 0, null);
        assertThat(hold("b1", "q1", "s1", "st1", NOW, false, 0, 0)).containsExactly(instant("NOT_OPEN_YET", opens));
        Fact held = hold("b1", "q1", "s1", "st1", opens, false, 0, 0).get(0);
        assertThat(held.tag()).isEqualTo("HELD");
        assertThat(hold("b2", "q2", "s1", "st2", closes, false, 0, 0)).containsExactly(instant("BOOKING_CLOSED",
                closes));
        // a replay is answered whatever the window says
        assertThat(hold("b9", "q1", "s1", "st1", closes, false, 0, 0)).containsExactly(held.as("REPLAY"));
        assertThat(hold("b9", "q1", "s1", "st1", NOW, false, 0, 0)).containsExactly(held.as("REPLAY"));
        assertThat(count("booking", "")).isEqualTo(1);
    }

    @Test
    void limitsCountTheStudentsLiveBookingsUpcomingFirstThenInTheSlotsWeek() throws SQLException {
        for (int i = 0; i < 4; i++) {
            Instant start = T0.plus(Duration.ofDays(i));
            schedule("s" + i, "c" + i, "r" + i, start, start.plusSeconds(3600), 0, null, null);
        }
        Instant nextWeek = T0.plus(Duration.ofDays(7));
        schedule("n", "cn", "rn", nextWeek, nextWeek.plusSeconds(3600), 0, null, null);
        assertThat(hold("b0", "q0", "s0", "st1", NOW, false, 0, 2).get(0).tag()).isEqualTo("HELD");
        assertThat(hold("b1", "q1", "s1", "st1", NOW, false, 0, 2).get(0).tag()).isEqualTo("HELD");
        assertThat(hold("b2", "q2", "s2", "st1", NOW, false, 0, 2)).containsExactly(limit("WEEKLY", 2));
        // another week counts on its own; upcoming is checked first
        assertThat(hold("bn", "qn", "n", "st1", NOW, false, 0, 2).get(0).tag()).isEqualTo("HELD");
        assertThat(hold("b2", "q2", "s2", "st1", NOW, false, 3, 2)).containsExactly(limit("UPCOMING", 3));
        // a dead hold counts nothing: the first hold ran out
        Instant later = NOW.plus(Duration.ofMinutes(10));
        assertThat(hold("b3", "q3", "s3", "st1", later, false, 3, 2).get(0).tag()).isEqualTo("HELD");
        assertThat(rows("SELECT booking_id FROM " + db.table("booking") + " WHERE tenant_id = ? AND student_id = 'st1'"
                + " AND status = 'HELD' AND held_until > ? ORDER BY booking_id", tenant, at(later)))
                .containsExactly(List.of("b3"));
    }

    // ------------------------------------------------------------------ waitlist and promotion

    @Test
    void aFullSlotPutsWaitersInLineAndACancelPromotesTheFirstWhoCanTakeTheSeat() throws SQLException {
        schedule("s1", "c1", "r1", T0, T0.plusSeconds(3600), 1, 0, null, null);
        // st2 will be busy in an overlapping slot when the seat frees up
        schedule("busy", "c2", "r2", T0.plusSeconds(1800), T0.plusSeconds(5400), 0, null, null);
        Fact b1 = hold("b1", "q1", "s1", "st1", NOW, false, 0, 0).get(0);
        assertThat(hold("b2", "q2", "s1", "st2", NOW, false, 0, 0)).containsExactly(Fact.bare("FULL"));
        Fact w2 = waiter("WAITLISTED", "b2", "q2", "s1", "st2", 1, "WAITING", NOW, null);
        assertThat(hold("b2", "q2", "s1", "st2", NOW, true, 0, 0)).containsExactly(w2);
        assertThat(hold("b3", "q3", "s1", "st3", NOW.plusSeconds(1), true, 0, 0)).containsExactly(
                waiter("WAITLISTED", "b3", "q3", "s1", "st3", 2, "WAITING", NOW.plusSeconds(1), null));
        // the same request, and the same student under another request: the entry as it is
        assertThat(hold("b9", "q2", "s1", "st2", NOW.plusSeconds(2), true, 0, 0))
                .containsExactly(w2.as("WAITLISTED_REPLAY"));
        assertThat(hold("b9", "q9", "s1", "st2", NOW.plusSeconds(2), true, 0, 0))
                .containsExactly(w2.as("WAITLISTED_REPLAY"));
        assertThat(rows("SELECT request_id, student_id, booking_id, status FROM " + db.table("waiter")
                + " WHERE tenant_id = ? ORDER BY seq", tenant))
                .containsExactly(List.of("q2", "st2", "b2", "WAITING"), List.of("q3", "st3", "b3", "WAITING"));

        hold("bx", "qx", "busy", "st2", NOW, false, 0, 0);
        Instant at = NOW.plusSeconds(60);
        List<Fact> cancelled = cancel("b1", "st1", at, null, null);
        Fact promoted = Fact.booking("EV_PROMOTED", "b3", "q3", "s1", "st3", 1, "HELD", at.plus(Duration.ofMinutes(10)),
                at, at);
        assertThat(cancelled).containsExactly(b1.as("CANCELLED").with("CANCELLED", at),
                b1.as("EV_CANCELLED").with("CANCELLED", at),
                waiter("EV_SKIPPED", "b2", "q2", "s1", "st2", 0, "SKIPPED", NOW, "CONFLICT"), promoted);
        assertThat(rows("SELECT request_id, status, reason, updated_at FROM " + db.table("waiter")
                + " WHERE tenant_id = ? ORDER BY seq", tenant)).containsExactly(
                List.of("q2", "SKIPPED", "CONFLICT", at), Arrays.asList("q3", "PROMOTED", null, at));
        assertThat(rows("SELECT seq, status, booking_id, student_id FROM " + db.table("slot_seat")
                + " WHERE tenant_id = ? AND slot_id = 's1'", tenant)).containsExactly(List.of(1, "HELD", "b3", "st3"));
        assertThat(rows("SELECT request_id, status, seat, held_until FROM " + db.table("booking")
                + " WHERE tenant_id = ? AND booking_id = 'b3'", tenant))
                .containsExactly(List.of("q3", "HELD", 1, at.plus(Duration.ofMinutes(10))));
        assertThat(count("occupancy", " AND resource_kind = 'STUDENT' AND booking_id = 'b3' AND active")).isEqualTo(1);
        // the promoted request replays as its booking
        assertThat(hold("b9", "q3", "s1", "st3", at, true, 0, 0)).containsExactly(promoted.as("REPLAY"));
    }

    @Test
    void expiryByTheSweepOrByAConfirmPromotesAndAWaiterMayLeaveOnce() throws SQLException {
        schedule("s1", "c1", "r1", T0, T0.plusSeconds(3600), 2, 0, null, null);
        Fact b1 = hold("b1", "q1", "s1", "st1", NOW, false, 0, 0).get(0);
        Fact b2 = hold("b2", "q2", "s1", "st2", NOW, false, 0, 0).get(0);
        hold("b3", "q3", "s1", "st3", NOW, true, 0, 0);
        hold("b4", "q4", "s1", "st4", NOW, true, 0, 0);
        hold("b5", "q5", "s1", "st5", NOW, true, 0, 0);
        assertThat(leave("q4", "st3", NOW)).containsExactly(Fact.bare("NOT_FOUND"));
        assertThat(leave("q4", "st4", NOW)).containsExactly(waiter("LEFT", "b4", "q4", "s1", "st4", 0, "LEFT", NOW,
                null));
        assertThat(leave("q4", "st4", NOW)).containsExactly(waiter("NOT_WAITING", "b4", "q4", "s1", "st4", 0, "LEFT",
                NOW, null));
        // st5 is second in line now
        assertThat(hold("b9", "q5", "s1", "st5", NOW, true, 0, 0)).extracting(Fact::seat).containsExactly(2);

        Instant deadline = NOW.plus(Duration.ofMinutes(10));
        List<Fact> confirm = call("confirm", tenant, "b1", "st1", at(deadline), HOLD, LONGEST, 0, 0, 0L, "AT_BOOKING");
        assertThat(confirm).extracting(Fact::tag).containsExactly("HOLD_EXPIRED", "EV_EXPIRED", "EV_PROMOTED");
        assertThat(confirm.get(1)).isEqualTo(b1.as("EV_EXPIRED").with("EXPIRED", deadline));
        assertThat(confirm.get(2).bookingId()).isEqualTo("b3");
        List<Fact> swept = call("expire_due", tenant, at(deadline), 10, HOLD, LONGEST, 0, 0, 0L, "AT_BOOKING", false, 0L);
        assertThat(swept).extracting(Fact::tag, Fact::bookingId).containsExactly(
                org.assertj.core.groups.Tuple.tuple("EV_EXPIRED", "b2"),
                org.assertj.core.groups.Tuple.tuple("EV_PROMOTED", "b5"));
        assertThat(swept.get(0)).isEqualTo(b2.as("EV_EXPIRED").with("EXPIRED", deadline));
        assertThat(rows("SELECT request_id, status FROM " + db.table("waiter") + " WHERE tenant_id = ? ORDER BY seq",
                tenant)).containsExactly(List.of("q3", "PROMOTED"), List.of("q4", "LEFT"), List.of("q5", "PROMOTED"));
        assertThat(rows("SELECT booking_id, seat FROM " + db.table("booking") + " WHERE tenant_id = ? AND status = 'HELD'"
                + " ORDER BY booking_id", tenant)).containsExactly(List.of("b3", 1), List.of("b5", 2));
    }

    @Test
    void noPromotionAndNoJoiningAfterTheWaitlistCutoff() throws SQLException {
        schedule("s1", "c1", "r1", T0, T0.plusSeconds(3600), 1, 0, null, null);
        hold("b1", "q1", "s1", "st1", NOW, false, 0, 0);
        Fact b1 = confirm("b1", "st1", NOW);
        hold("b2", "q2", "s1", "st2", NOW, true, 0, 0);
        long cutoff = Duration.ofHours(2).toNanos() / 1000;
        Instant late = T0.minus(Duration.ofHours(2));
        assertThat(call("hold", tenant, "b3", "q3", "s1", "st3", "HELD", at(late), HOLD, LONGEST, false, true, 0, 0,
                cutoff, "AT_BOOKING")).containsExactly(Fact.bare("FULL"));
        assertThat(call("cancel", tenant, "b1", "st1", at(late), null, null, HOLD, LONGEST, 0, 0, cutoff, "AT_BOOKING"))
                .containsExactly(b1.as("CANCELLED").with("CANCELLED", late), b1.as("EV_CANCELLED").with("CANCELLED",
                        late));
        assertThat(rows("SELECT status FROM " + db.table("waiter") + " WHERE tenant_id = ?", tenant))
                .containsExactly(List.of("WAITING"));
        assertThat(count("slot_seat", " AND status = 'FREE'")).isEqualTo(1);
    }

    // ------------------------------------------------------------------ cancel policy

    @Test
    void aLateCancelIsRefusedToTheStudentAcceptedFromStaffOrMarkedLate() throws SQLException {
        long hour = Duration.ofHours(1).toNanos() / 1000;
        Instant late = T0.minusSeconds(1800);
        schedule("s1", "c1", "r1", T0, T0.plusSeconds(3600), 3, 0, null, null);
        Fact b1 = hold("b1", "q1", "s1", "st1", NOW, false, 0, 0).get(0);
        Fact b2 = hold("b2", "q2", "s1", "st2", NOW, false, 0, 0).get(0);
        call("confirm", tenant, "b1", "st1", at(NOW), HOLD, LONGEST, 0, 0, 0L, "AT_BOOKING");
        call("confirm", tenant, "b2", "st2", at(NOW), HOLD, LONGEST, 0, 0, 0L, "AT_BOOKING");
        assertThat(cancel("b1", "st1", late, "REFUSE", hour)).containsExactly(instant("TOO_LATE", T0.minusSeconds(3600)));
        assertThat(rows("SELECT status FROM " + db.table("booking") + " WHERE tenant_id = ? AND booking_id = 'b1'",
                tenant)).containsExactly(List.of("CONFIRMED"));
        // staff (no student) may still cancel: a late cancel
        List<Fact> staff = cancel("b1", null, late, "REFUSE", hour);
        assertThat(staff).extracting(Fact::tag).containsExactly("CANCELLED", "EV_LATE_CANCELLED");
        assertThat(staff.get(0).resKind()).isEqualTo("LATE");
        // before the cutoff: an ordinary cancel; FREE: never late
        assertThat(cancel("b2", "st2", NOW, "LATE", hour)).extracting(Fact::tag, Fact::resKind).containsExactly(
                org.assertj.core.groups.Tuple.tuple("CANCELLED", null),
                org.assertj.core.groups.Tuple.tuple("EV_CANCELLED", null));
        assertThat(rows("SELECT booking_id, status, late_cancel FROM " + db.table("booking")
                + " WHERE tenant_id = ? ORDER BY booking_id", tenant))
                .containsExactly(List.of("b1", "CANCELLED", true), List.of("b2", "CANCELLED", false));
        assertThat(count("slot_seat", " AND status = 'FREE'")).isEqualTo(3);
    }

    @Test
    void aSlotsOwnPolicyOverridesTheOneGiven() throws SQLException {
        schedule("s1", "c1", "r1", T0, T0.plusSeconds(3600), 0, "LATE", 3600);
        hold("b1", "q1", "s1", "st1", NOW, false, 0, 0);
        Fact b1 = confirm("b1", "st1", NOW);
        Instant late = T0.minusSeconds(60);
        List<Fact> cancelled = cancel("b1", "st1", late, "REFUSE", Duration.ofHours(1).toNanos() / 1000);
        assertThat(cancelled).containsExactly(
                new Fact("CANCELLED", "b1", "q1", "s1", "st1", b1.seat(), "CANCELLED", b1.heldUntil(), NOW, late,
                        "LATE", null, null, null, null, null, null),
                b1.as("EV_LATE_CANCELLED").with("CANCELLED", late));
        assertThat(rows("SELECT late_cancel FROM " + db.table("booking") + " WHERE tenant_id = ?", tenant))
                .containsExactly(List.of(true));
    }

    // ------------------------------------------------------------------ concurrency

    @Test
    void twentyHoldsOfOneStudentAtTwentySlotsEndWithExactlyTheUpcomingLimit() throws Exception {
        for (int i = 0; i < 20; i++) {
            Instant start = T0.plus(Duration.ofHours(2L * i));
            schedule("s" + i, "c" + i, "r" + i, start, start.plusSeconds(3600), 0, null, null);
        }
        List<List<Fact>> answers = Concurrent.run(20, 20, i -> hold("b" + i, "q" + i, "s" + i, "st1", NOW, false, 3, 0));
        Map<String, Long> tags = answers.stream().map(a -> a.get(0).tag())
                .collect(Collectors.groupingBy(Function.identity(), Collectors.counting()));
        assertThat(tags).containsExactlyInAnyOrderEntriesOf(Map.of("HELD", 3L, "LIMIT", 17L));
        assertThat(rows("SELECT COUNT(*) FROM " + db.table("booking") + " b JOIN " + db.table("occupancy")
                + " o ON o.tenant_id = b.tenant_id AND o.booking_id = b.booking_id AND o.active"
                + " WHERE b.tenant_id = ? AND b.student_id = 'st1' AND b.status IN ('HELD', 'CONFIRMED')", tenant))
                .containsExactly(List.of(3L));
        assertThat(count("slot_seat", " AND status = 'HELD'")).isEqualTo(3);
    }

    @Test
    void cancelsAndNewHoldsRacingOnAWaitlistedSlotKeepTheLineAndTheSeats() throws Exception {
        Instant end = T0.plusSeconds(3600);
        schedule("s", "c", "r", T0, end, 3, 0, null, null);
        // some waiters are busy at the same time elsewhere: they must be skipped, never seated twice
        schedule("other", "c2", "r2", T0.plusSeconds(600), end, 100, 0, null, null);
        for (int i = 0; i < 3; i++) {
            assertThat(hold("h" + i, "qh" + i, "s", "holder" + i, NOW, false, 0, 0).get(0).tag()).isEqualTo("HELD");
        }
        for (int i = 0; i < 20; i++) {
            assertThat(hold("w" + i, "qw" + i, "s", "waiter" + i, NOW, true, 0, 0).get(0).tag())
                    .isEqualTo("WAITLISTED");
        }
        Instant at = NOW.plusSeconds(60);
        List<List<Fact>> answers = Concurrent.run(50, 50, i -> {
            if (i < 3) {
                return cancel("h" + i, "holder" + i, at, null, null);
            } else if (i < 13) {
                // a waiter may already sit in the slot (promoted): cancel it again; else NOT_FOUND
                return cancel("w" + (i - 3), "waiter" + (i - 3), at, null, null);
            } else if (i < 20) {
                // busy elsewhere at the same time
                return hold("o" + i, "qo" + i, "other", "waiter" + (i - 3), at, false, 0, 0);
            } else if (i < 23) {
                return leave("qw" + (i - 7), "waiter" + (i - 7), at);
            }
            return hold("n" + i, "qn" + i, "s", "new" + i, at, true, 0, 0);
        });
        assertThat(answers).allSatisfy(a -> assertThat(a).isNotEmpty());

        // no oversell: the seats held or confirmed are the slot's live bookings, at most its capacity
        long taken = count("slot_seat", " AND slot_id = 's' AND status IN ('HELD', 'CONFIRMED')");
        assertThat(taken).isLessThanOrEqualTo(3);
        assertThat(count("booking", " AND slot_id = 's' AND status IN ('HELD', 'CONFIRMED')")).isEqualTo(taken);
        // no student in two live bookings at overlapping times
        assertThat(rows("SELECT COUNT(*) FROM " + db.table("occupancy") + " a JOIN " + db.table("occupancy")
                + " b ON b.tenant_id = a.tenant_id AND b.resource_kind = 'STUDENT' AND b.resource_id = a.resource_id"
                + " AND b.active AND b.booking_id < a.booking_id AND b.starts_at < a.ends_at AND b.ends_at > a.starts_at"
                + " WHERE a.tenant_id = ? AND a.resource_kind = 'STUDENT' AND a.active", tenant))
                .containsExactly(List.of(0L));
        // nobody waits while a seat is free (the slot is before its cutoff)
        long free = count("slot_seat", " AND slot_id = 's' AND status = 'FREE'");
        long waiting = count("waiter", " AND slot_id = 's' AND status = 'WAITING'");
        assertThat(free == 0 || waiting == 0).as("free %s, waiting %s", free, waiting).isTrue();
        // every promotion went to the first in line: among those neither left nor skipped, the promoted
        // ones come first in join order
        List<String> line = rows("SELECT status FROM " + db.table("waiter") + " WHERE tenant_id = ? AND slot_id = 's'"
                + " AND status NOT IN ('LEFT', 'SKIPPED') ORDER BY seq", tenant).stream()
                .map(r -> (String) r.get(0)).toList();
        int promoted = (int) line.stream().filter("PROMOTED"::equals).count();
        assertThat(line.subList(0, promoted)).containsOnly("PROMOTED");
        assertThat(line.subList(promoted, line.size())).containsOnly("WAITING");
        assertThat(promoted).isGreaterThanOrEqualTo(1);
        // every promoted waiter got its booking and seat
        assertThat(rows("SELECT COUNT(*) FROM " + db.table("waiter") + " w JOIN " + db.table("booking")
                + " b ON b.tenant_id = w.tenant_id AND b.booking_id = w.booking_id AND b.request_id = w.request_id"
                + " WHERE w.tenant_id = ? AND w.status = 'PROMOTED'", tenant)).containsExactly(List.of((long) promoted));
        // a skipped waiter was busy elsewhere, or already in the slot
        assertThat(rows("SELECT DISTINCT reason FROM " + db.table("waiter") + " WHERE tenant_id = ? AND status = 'SKIPPED'",
                tenant)).allSatisfy(r -> assertThat(r.get(0)).isIn("CONFLICT", "ALREADY_BOOKED"));
    }

    // ------------------------------------------------------------------ helpers

    private List<Fact> schedule(String slot, String coach, String room, Instant start, Instant end, int buffer,
                                String policy, Integer cutoffSeconds) throws SQLException {
        return schedule(slot, coach, room, start, end, 1, buffer, policy, cutoffSeconds);
    }

    /** A slot of the given rules, its week the UTC week (from Monday) of its start. */
    private List<Fact> schedule(String slot, String coach, String room, Instant start, Instant end, int capacity,
                                int buffer, String policy, Integer cutoffSeconds) throws SQLException {
        return schedule(slot, coach, room, start, end, capacity, buffer, false, policy, cutoffSeconds);
    }

    private List<Fact> schedule(String slot, String coach, String room, Instant start, Instant end, int capacity,
                                int buffer, boolean bufferStudents, String policy, Integer cutoffSeconds)
            throws SQLException {
        java.time.LocalDate day = start.atOffset(ZoneOffset.UTC).toLocalDate();
        Instant week = day.minusDays(day.getDayOfWeek().getValue() - 1L).atStartOfDay(ZoneOffset.UTC).toInstant();
        return call("schedule", tenant, slot, coach, room, at(start), at(end), capacity, LONGEST, null, null, buffer,
                policy, cutoffSeconds, at(week), at(week.plus(Duration.ofDays(7))), bufferStudents, null, 0, null);
    }

    private List<Fact> hold(String booking, String request, String slot, String student, Instant now,
                            boolean waitlist, int maxUpcoming, int maxWeek) throws SQLException {
        return call("hold", tenant, booking, request, slot, student, "HELD", at(now), HOLD, LONGEST, false, waitlist,
                maxUpcoming, maxWeek, 0L, "AT_BOOKING");
    }

    private List<Fact> cancel(String booking, String student, Instant now, String policy, Long cutoffMicros)
            throws SQLException {
        return call("cancel", tenant, booking, student, at(now), policy, cutoffMicros, HOLD, LONGEST, 0, 0, 0L, "AT_BOOKING");
    }

    /** Confirms the student's hold: the CONFIRMED answer. */
    private Fact confirm(String booking, String student, Instant now) throws SQLException {
        Fact confirmed = call("confirm", tenant, booking, student, at(now), HOLD, LONGEST, 0, 0, 0L, "AT_BOOKING").get(0);
        assertThat(confirmed.tag()).isEqualTo("CONFIRMED");
        return confirmed;
    }

    private List<Fact> leave(String request, String student, Instant now) throws SQLException {
        return call("leave_waitlist", tenant, request, student, at(now));
    }

    private static Fact waiter(String tag, String booking, String request, String slot, String student, int position,
                               String status, Instant joined, String reason) {
        return new Fact(tag, booking, request, slot, student, position, status, null, joined, null, reason, null,
                null, null, null, null, null);
    }

    private static Fact instant(String tag, Instant at) {
        return new Fact(tag, null, null, null, null, null, null, at, null, null, null, null, null, null, null, null,
                null);
    }

    private static Fact limit(String kind, int limit) {
        return new Fact("LIMIT", null, null, null, null, limit, null, null, null, null, kind, null, null, null, null,
                null, null);
    }

    /** {@code CALL <prefix>routine('<prefix>', args...)} in autocommit, retried on lock timeouts and deadlocks. */
    private static List<Fact> call(String routine, Object... args) throws SQLException {
        Object[] all = new Object[args.length + 1];
        all[0] = db.prefix();
        System.arraycopy(args, 0, all, 1, args.length);
        String sql = "CALL " + db.prefix() + routine + "(" + String.join(", ", Collections.nCopies(all.length, "?"))
                + ")";
        for (int attempt = 1; ; attempt++) {
            try (Connection c = db.dataSource().getConnection()) {
                c.setAutoCommit(true);
                try (PreparedStatement ps = c.prepareStatement(sql)) {
                    bind(ps, all);
                    try (ResultSet rs = ps.executeQuery()) {
                        List<Fact> facts = new ArrayList<>();
                        while (rs.next()) {
                            facts.add(Fact.read(rs));
                        }
                        return facts;
                    }
                }
            } catch (SQLException e) {
                int code = e.getErrorCode();
                boolean retry = code == H2_LOCK_TIMEOUT || code == H2_DEADLOCK || code == H2_CONCURRENT_UPDATE;
                if (!retry || attempt >= 20) {
                    throw e;
                }
            }
        }
    }

    private static void bind(PreparedStatement ps, Object... args) throws SQLException {
        for (int i = 0; i < args.length; i++) {
            ps.setObject(i + 1, args[i]);
        }
    }

    private static OffsetDateTime at(Instant instant) {
        return instant.atOffset(ZoneOffset.UTC);
    }

    private long count(String table, String where) throws SQLException {
        return (Long) rows("SELECT COUNT(*) FROM " + db.table(table) + " WHERE tenant_id = ?" + where, tenant)
                .get(0).get(0);
    }

    /** Query results as lists of values; timestamps as Instants. */
    private static List<List<Object>> rows(String sql, Object... args) throws SQLException {
        try (Connection c = db.dataSource().getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
            bind(ps, args);
            try (ResultSet rs = ps.executeQuery()) {
                int columns = rs.getMetaData().getColumnCount();
                List<List<Object>> rows = new ArrayList<>();
                while (rs.next()) {
                    List<Object> row = new ArrayList<>();
                    for (int i = 1; i <= columns; i++) {
                        Object value = rs.getObject(i);
                        row.add(value instanceof OffsetDateTime t ? t.toInstant() : value);
                    }
                    rows.add(row);
                }
                return rows;
            }
        }
    }
}
