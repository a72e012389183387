package org.slotbook.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.slotbook.core.tck.Concurrent;
import org.slotbook.jdbc.testing.TestDatabases;
import org.slotbook.jdbc.testing.TestDatabases.TestDatabase;

/**
 * The booking rules of the MariaDB procedures, called with plain JDBC (CALL on autocommit connections),
 * every verdict read back from the tables: buffers, the cancel policy, limits, the waitlist and its
 * promotion, and two races (one student against his limit, cancels against new holds on a waitlisted slot).
 */
class MariaDbRulesTest {
    private static final long LONGEST = 24L * 3600 * 1_000_000; // 24 h in microseconds
    private static final long HOLD = 10L * 60 * 1_000_000; // 10 min
    private static final LocalDateTime T0 = LocalDateTime.of(2030, 1, 1, 8, 0);
    private static final LocalDateTime S10 = LocalDateTime.of(2030, 1, 2, 10, 0);
    private static final LocalDateTime WEEK = LocalDateTime.of(2029, 12, 31, 0, 0);

    private static TestDatabase db;
    private String t;

    @BeforeAll
    static void open() {
        db = TestDatabases.mariadb();
    }

    @AfterAll
    static void close() {
        if (db != null) {
            db.close();
        }
    }

    @BeforeEach
    void tenant(TestInfo info) {
        t = info.getTestMethod().orElseThrow().getName().substring(0, 12) + "-" + UUID.randomUUID().toString()
                .substring(0, 8);
    }

    @Test
    void aBufferPadsTheCoachAndRoomAndTheStudentOnlyWhenAsked() throws Exception {
        assertThat(tag(schedule("s1", "c1", "r1", S10, S10.plusHours(1), 2, 900, null, null))).isEqualTo("SCHEDULED");
        assertThat(strings("SELECT CONCAT(resource_kind, ':', ends_at) FROM " + db.table("occupancy")
                + " WHERE tenant_id = ? ORDER BY resource_kind", t))
                .containsExactly("COACH:2030-01-02 11:15:00.000000", "ROOM:2030-01-02 11:15:00.000000");
        // inside the buffer: the coach clashes; after it: free
        assertThat(tag(schedule("s2", "c1", "r2", S10.plusMinutes(70), S10.plusMinutes(130), 1, 0, null, null)))
                .isEqualTo("CONFLICT");
        assertThat(tag(schedule("s3", "c1", "r2", S10.plusMinutes(75), S10.plusMinutes(135), 1, 0, null, null)))
                .isEqualTo("SCHEDULED");
        hold("s1", "b1", "q1", "st1", T0, false, 0, 0);
        assertThat(strings("SELECT ends_at FROM " + db.table("occupancy") + " WHERE tenant_id = ?"
                + " AND resource_kind = 'STUDENT'", t)).containsExactly("2030-01-02 11:00:00.000000");
        // a slot whose buffer applies to its students too: the student is taken until the end plus the buffer
        List<String> padded = schedule("s4", "c4", "r4", S10, S10.plusHours(1), 2, 900, null, null, true);
        assertThat(padded).extracting(row -> row.split("\\|")[4]).containsExactly("STUDENTS");
        hold("s4", "b4", "q4", "st4", T0, false, 0, 0);
        assertThat(strings("SELECT CONCAT(s.buffer_students, ':', o.ends_at) FROM " + db.table("occupancy") + " o JOIN "
                + db.table("slot") + " s ON s.tenant_id = o.tenant_id AND s.slot_id = o.slot_id WHERE o.tenant_id = ?"
                + " AND o.resource_kind = 'STUDENT' AND o.active AND o.booking_id = 'b4'", t))
                .containsExactly("1:2030-01-02 11:15:00.000000");
        // a waiter promoted into such a slot is taken for the padded time as well
        schedule("s5", "c5", "r5", S10.plusDays(1), S10.plusDays(1).plusHours(1), 1, 600, null, null, true);
        hold("s5", "b5", "q5", "st5", T0, false, 0, 0);
        assertThat(tag(hold("s5", "b6", "q6", "st6", T0, true, 0, 0))).isEqualTo("WAITLISTED");
        assertThat(cancel("b5", "st5", T0.plusMinutes(1), "FREE", null)).extracting(MariaDbRulesTest::tagOf)
                .containsExactly("CANCELLED", "EV_CANCELLED", "EV_PROMOTED");
        assertThat(strings("SELECT ends_at FROM " + db.table("occupancy") + " WHERE tenant_id = ?"
                + " AND resource_kind = 'STUDENT' AND active AND booking_id = 'b6'", t))
                .containsExactly("2030-01-03 11:10:00.000000");
    }

    @Test
    void theSlotsOwnCancelPolicyDecidesRefusedAndLateCancels() throws Exception {
        schedule("r", "c1", "r1", S10, S10.plusHours(1), 3, 0, "REFUSE", 3600);
        schedule("l", "c2", "r2", S10, S10.plusHours(1), 3, 0, "LATE", 3600);
        hold("r", "b1", "q1", "st1", T0, false, 0, 0);
        hold("l", "b2", "q2", "st2", T0, false, 0, 0);
        confirmAll();
        LocalDateTime late = S10.minusMinutes(30);
        // refused for the student (nothing changes), a staff cancel goes through as late
        assertThat(cancel("b1", "st1", late, "FREE", null).get(0)).startsWith("TOO_LATE");
        assertThat(strings("SELECT CONCAT(status, ':', late_cancel) FROM " + db.table("booking")
                + " WHERE tenant_id = ? AND booking_id = 'b1'", t)).containsExactly("CONFIRMED:0");
        assertThat(cancel("b1", null, late, "FREE", null)).extracting(MariaDbRulesTest::tagOf)
                .containsExactly("CANCELLED", "EV_LATE_CANCELLED");
        assertThat(cancel("b2", "st2", late, "REFUSE", 7200L * 1_000_000)).extracting(MariaDbRulesTest::tagOf)
                .containsExactly("CANCELLED", "EV_LATE_CANCELLED");
        assertThat(strings("SELECT CONCAT(booking_id, ':', status, ':', late_cancel) FROM " + db.table("booking")
                + " WHERE tenant_id = ? ORDER BY booking_id", t)).containsExactly("b1:CANCELLED:1", "b2:CANCELLED:1");
        assertThat(count("SELECT COUNT(*) FROM " + db.table("slot_seat") + " WHERE tenant_id = ? AND status = 'FREE'", t))
                .isEqualTo(6);
    }

    @Test
    void aFreedSeatSkipsWaitersWhoCannotTakeItAndPromotesTheFirstWhoCan() throws Exception {
        schedule("w", "c1", "r1", S10, S10.plusHours(1), 1, 0, null, null);
        schedule("o", "c2", "r2", S10.plusMinutes(30), S10.plusMinutes(90), 5, 0, null, null);
        schedule("x", "c3", "r3", S10.plusDays(1), S10.plusDays(1).plusHours(1), 5, 0, null, null);
        hold("w", "b0", "q0", "owner", T0, false, 0, 0);
        assertThat(tag(hold("w", "bc", "qc", "clash", T0, true, 0, 0))).isEqualTo("WAITLISTED");
        assertThat(tag(hold("w", "bl", "ql", "limited", T0, true, 0, 0))).isEqualTo("WAITLISTED");
        assertThat(tag(hold("w", "bn", "qn", "next", T0, true, 0, 0))).isEqualTo("WAITLISTED");
        hold("o", "bo", "qo", "clash", T0, false, 0, 0);
        hold("x", "bx", "qx", "limited", T0, false, 0, 0);
        // the owner cancels: clash conflicts, limited is at one upcoming booking, next gets the seat
        List<String> answer = call("cancel", t, "b0", "owner", T0.plusMinutes(1), "FREE", null, HOLD, LONGEST, 1, 0, 0L, "AT_BOOKING");
        assertThat(answer).extracting(MariaDbRulesTest::tagOf)
                .containsExactly("CANCELLED", "EV_CANCELLED", "EV_SKIPPED", "EV_SKIPPED", "EV_PROMOTED");
        assertThat(strings("SELECT CONCAT(request_id, ':', status, ':', COALESCE(reason, '-')) FROM "
                + db.table("waiter") + " WHERE tenant_id = ? ORDER BY seq", t))
                .containsExactly("qc:SKIPPED:CONFLICT", "ql:SKIPPED:LIMIT", "qn:PROMOTED:-");
        assertThat(strings("SELECT CONCAT(s.seq, ':', s.status, ':', s.booking_id, ':', b.request_id, ':', b.status)"
                + " FROM " + db.table("slot_seat") + " s JOIN " + db.table("booking") + " b ON b.tenant_id = s.tenant_id"
                + " AND b.booking_id = s.booking_id WHERE s.tenant_id = ? AND s.slot_id = 'w'", t))
                .containsExactly("1:HELD:bn:qn:HELD");
        assertThat(count("SELECT COUNT(*) FROM " + db.table("occupancy") + " WHERE tenant_id = ? AND active"
                + " AND resource_kind = 'STUDENT' AND resource_id = 'next' AND booking_id = 'bn'", t)).isEqualTo(1);
        // the request's replay is now its booking
        assertThat(tag(hold("w", "bz", "qn", "next", T0.plusMinutes(2), true, 0, 0))).isEqualTo("REPLAY");
    }

    @Test
    void twentyConcurrentHoldsOfOneStudentKeepHisUpcomingLimitOfThree() throws Exception {
        for (int i = 0; i < 20; i++) {
            schedule("d" + i, "c" + i, "r" + i, S10.plusDays(i), S10.plusDays(i).plusHours(1), 5, 0, null, null);
        }
        assertThat(Concurrent.run(20, 20, i -> hold("d" + i, "b" + i, "q" + i, "solo", T0, false, 3, 0)))
                .allSatisfy(answer -> assertThat(answer).isNotEmpty());
        assertThat(count("SELECT COUNT(*) FROM " + db.table("booking") + " WHERE tenant_id = ? AND student_id = 'solo'"
                + " AND (status = 'CONFIRMED' OR (status = 'HELD' AND held_until > '2030-01-01 08:00'))", t)).isEqualTo(3);
        assertThat(count("SELECT COUNT(*) FROM " + db.table("slot_seat") + " WHERE tenant_id = ? AND student_id = 'solo'", t))
                .isEqualTo(3);
        assertThat(count("SELECT COUNT(*) FROM " + db.table("occupancy") + " WHERE tenant_id = ? AND active"
                + " AND resource_kind = 'STUDENT' AND resource_id = 'solo'", t)).isEqualTo(3);
    }

    @Test
    void cancelsRacingNewHoldsOnAWaitlistedSlotKeepTheSeatsAndTheQueueInOrder() throws Exception {
        schedule("w", "c1", "r1", S10, S10.plusHours(1), 3, 0, null, null);
        schedule("o", "c2", "r2", S10.plusMinutes(30), S10.plusMinutes(90), 50, 0, null, null);
        List<String> targets = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            hold("w", "f" + i, "qf" + i, "first" + i, T0, false, 0, 0);
            targets.add("f" + i);
        }
        for (int i = 0; i < 20; i++) {
            assertThat(tag(hold("w", "bw" + i, "qw" + i, "waiter" + i, T0, true, 0, 0))).isEqualTo("WAITLISTED");
            targets.add("bw" + i);
        }
        // a few waiters are busy in an overlapping slot: they are skipped, not promoted
        for (int i = 0; i < 20; i += 4) {
            hold("o", "bo" + i, "qo" + i, "waiter" + i, T0, false, 0, 0);
        }
        // 50 threads: staff cancels of the seated and the queued bookings, and new students asking to wait
        assertThat(Concurrent.run(50, 50, i -> i % 2 == 0
                ? cancel(targets.get((i / 2) % targets.size()), null, T0.plusMinutes(1), "FREE", null)
                : hold("w", "bn" + i, "qn" + i, "new" + i, T0.plusMinutes(1), true, 0, 0)))
                .allSatisfy(answer -> assertThat(answer).isNotEmpty());

        String live = "(b.status = 'CONFIRMED' OR (b.status = 'HELD' AND b.held_until > '2030-01-01 08:01'))";
        assertThat(count("SELECT COUNT(*) FROM " + db.table("slot_seat") + " WHERE tenant_id = ? AND slot_id = 'w'"
                + " AND status IN ('HELD', 'CONFIRMED')", t)).isLessThanOrEqualTo(3);
        assertThat(count("SELECT COUNT(*) FROM " + db.table("booking") + " b WHERE b.tenant_id = ? AND b.slot_id = 'w'"
                + " AND " + live, t)).isLessThanOrEqualTo(3);
        // no student holds two live seats in overlapping sessions
        assertThat(count("SELECT COUNT(*) FROM " + db.table("occupancy") + " o1 JOIN " + db.table("occupancy") + " o2"
                + " ON o2.tenant_id = o1.tenant_id AND o2.resource_kind = 'STUDENT' AND o2.resource_id = o1.resource_id"
                + " AND o2.booking_id > o1.booking_id AND o2.active AND o2.starts_at < o1.ends_at AND o2.ends_at > o1.starts_at"
                + " JOIN " + db.table("booking") + " b ON b.tenant_id = o1.tenant_id AND b.booking_id = o1.booking_id"
                + " JOIN " + db.table("booking") + " b2 ON b2.tenant_id = o2.tenant_id AND b2.booking_id = o2.booking_id"
                + " WHERE o1.tenant_id = ? AND o1.resource_kind = 'STUDENT' AND o1.active AND " + live
                + " AND " + live.replace("b.", "b2."), t)).isZero();
        // nobody waits while a seat is free (the slot is well before its waitlist cutoff)
        long free = count("SELECT COUNT(*) FROM " + db.table("slot_seat") + " WHERE tenant_id = ? AND slot_id = 'w'"
                + " AND status = 'FREE'", t);
        long waiting = count("SELECT COUNT(*) FROM " + db.table("waiter") + " WHERE tenant_id = ? AND slot_id = 'w'"
                + " AND status = 'WAITING'", t);
        assertThat(free == 0 || waiting == 0).as("%s free seats, %s waiting", free, waiting).isTrue();
        // promotions went in join order: among those not skipped or gone, the promoted come first
        String order = String.join("", strings("SELECT LEFT(status, 1) FROM " + db.table("waiter")
                + " WHERE tenant_id = ? AND slot_id = 'w' AND status IN ('WAITING', 'PROMOTED') ORDER BY seq", t));
        assertThat(order).matches("P*W*");
        assertThat(order).contains("P");
        // every promoted waiter got exactly its booking, and a skipped one was busy elsewhere
        assertThat(count("SELECT COUNT(*) FROM " + db.table("waiter") + " w LEFT JOIN " + db.table("booking") + " b"
                + " ON b.tenant_id = w.tenant_id AND b.booking_id = w.booking_id AND b.request_id = w.request_id"
                + " AND b.student_id = w.student_id WHERE w.tenant_id = ? AND w.status = 'PROMOTED' AND b.booking_id IS NULL",
                t)).isZero();
        assertThat(strings("SELECT DISTINCT reason FROM " + db.table("waiter") + " WHERE tenant_id = ? AND status = 'SKIPPED'",
                t)).isSubsetOf("CONFLICT", "ALREADY_BOOKED");
    }

    // ------------------------------------------------------------------ calls

    private List<String> schedule(String slot, String coach, String room, LocalDateTime start, LocalDateTime end,
                                  int capacity, int bufferSeconds, String policy, Integer cutoffSeconds)
            throws SQLException {
        return schedule(slot, coach, room, start, end, capacity, bufferSeconds, policy, cutoffSeconds, false);
    }

    private List<String> schedule(String slot, String coach, String room, LocalDateTime start, LocalDateTime end,
                                  int capacity, int bufferSeconds, String policy, Integer cutoffSeconds,
                                  boolean bufferStudents) throws SQLException {
        return call("schedule", t, slot, coach, room, start, end, capacity, LONGEST, null, null, bufferSeconds, policy,
                cutoffSeconds, WEEK, WEEK.plusWeeks(1), bufferStudents, null, 0, null);
    }

    private List<String> hold(String slot, String booking, String request, String student, LocalDateTime now,
                              boolean waitlist, int maxUpcoming, int maxWeek) throws SQLException {
        return call("hold", t, booking, request, slot, student, "HELD", now, HOLD, LONGEST, false, waitlist,
                maxUpcoming, maxWeek, 0L, "AT_BOOKING");
    }

    private List<String> cancel(String booking, String student, LocalDateTime now, String policy, Long cutoffMicros)
            throws SQLException {
        return call("cancel", t, booking, student, now, policy, cutoffMicros, HOLD, LONGEST, 0, 0, 0L, "AT_BOOKING");
    }

    private void confirmAll() throws SQLException {
        for (String row : strings("SELECT CONCAT(booking_id, ' ', student_id) FROM " + db.table("booking")
                + " WHERE tenant_id = ? AND status = 'HELD'", t)) {
            String[] parts = row.split(" ");
            call("confirm", t, parts[0], parts[1], T0.plusMinutes(1), HOLD, LONGEST, 0, 0, 0L, "AT_BOOKING");
        }
    }

    private static String tag(List<String> rows) {
        return tagOf(rows.get(0));
    }

    private static String tagOf(String row) {
        return row.split("\\|")[0];
    }

    /** CALL prefix+name(args); each row as "tag|booking|request|slot|student|seat|status|held_until"; retried on deadlock. */
    private static List<String> call(String name, Object... args) throws SQLException {
        String sql = "CALL " + db.prefix() + name + "(" + "?, ".repeat(args.length - 1) + "?)";
        for (int attempt = 1; ; attempt++) {
            try (Connection c = db.dataSource().getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
                c.setAutoCommit(true);
                for (int i = 0; i < args.length; i++) {
                    if (args[i] == null) {
                        ps.setNull(i + 1, Types.VARCHAR);
                    } else {
                        ps.setObject(i + 1, args[i]);
                    }
                }
                List<String> rows = new ArrayList<>();
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        StringBuilder row = new StringBuilder(rs.getString(1));
                        for (int col = 2; col <= 8; col++) {
                            row.append('|').append(rs.getString(col));
                        }
                        rows.add(row.toString());
                    }
                }
                return rows;
            } catch (SQLException e) {
                if ((e.getErrorCode() == 1213 || e.getErrorCode() == 1205) && attempt < 50) {
                    continue;
                }
                throw e;
            }
        }
    }

    private static List<String> strings(String sql, String tenant) throws SQLException {
        List<String> out = new ArrayList<>();
        try (Connection c = db.dataSource().getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setString(1, tenant);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(rs.getString(1));
                }
            }
        }
        return out;
    }

    private static long count(String sql, String tenant) throws SQLException {
        try (Connection c = db.dataSource().getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setString(1, tenant);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }
}
