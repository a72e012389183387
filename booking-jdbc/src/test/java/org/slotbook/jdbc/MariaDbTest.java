package org.slotbook.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.slotbook.core.spi.BookingStore;
import org.slotbook.core.tck.BookingEngineContract;
import org.slotbook.core.tck.BookingStoreContract;
import org.slotbook.core.tck.Concurrent;
import org.slotbook.jdbc.testing.TestDatabases;
import org.slotbook.jdbc.testing.TestDatabases.TestDatabase;

/**
 * Every suite on MariaDB, one {@code @Nested} class each: the engine and store contracts on one
 * database opened for the class, every other suite on tables of its own (a fresh prefix). The server is
 * the one {@link TestDatabases#mariadb()} finds; without one the class is skipped, or fails when
 * {@code SLOTBOOK_TEST_REQUIRE_SERVICES=true}.
 */
class MariaDbTest {
    /** The database of the engine and store contracts, which work in fresh tenants and so may share it. */
    private static TestDatabase shared;
    private static JdbcStore sharedStore;

    @BeforeAll
    static void openShared() {
        shared = TestDatabases.mariadb();
        sharedStore = shared.store();
    }

    @AfterAll
    static void closeShared() {
        if (shared != null) {
            shared.close();
        }
    }

    @Nested
    class EngineContract extends BookingEngineContract {
        @Override
        protected BookingStore store() {
            return sharedStore;
        }

        /**
         * PostgresTest relays 10,000 events; here 2,000 (five claims of 100 per tenant for the two relays to meet
         * on) run MariaDB's own claim and delivery statements, whose 10,000 decisions alone take 5 to 10 s.
         */
        @Override
        public int relayedEvents() {
            return 2_000;
        }
    }

    @Nested
    class StoreContract extends BookingStoreContract {
        @Override
        protected BookingStore store() {
            return sharedStore;
        }
    }

    @Nested
    class Store extends JdbcStoreTests {
        @Override
        protected TestDatabase openDatabase() {
            return TestDatabases.mariadb();
        }

        @Override
        protected String blockedHoldQuery() {
            return "SELECT ID FROM information_schema.PROCESSLIST WHERE ID <> CONNECTION_ID() AND COMMAND = 'Query'"
                    + " AND INFO LIKE '%" + db.prefix() + "%' AND INFO NOT LIKE '%PROCESSLIST%'";
        }

        @Override
        protected void kill(long id) {
            sql.useHandle(h -> h.execute("KILL " + id));
        }

        /** Every key holds the tenant; an earlier schema keyed by its AUTO_INCREMENT alone gets such keys in place. */
        @Test
        void everyKeyHoldsTheTenantAndAnEarlierSchemaGetsSuchKeysInPlace() throws SQLException {
            String prefix = TestDatabases.freshPrefix();
            try (Connection c = db.dataSource().getConnection(); Statement st = c.createStatement()) {
                JdbcSchema.create(db.dataSource(), prefix);
                String keysWithoutTenant = "SELECT COUNT(*) FROM (SELECT TABLE_NAME, INDEX_NAME"
                        + " FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = DATABASE() AND NON_UNIQUE = 0"
                        + " AND LEFT(TABLE_NAME, " + prefix.length() + ") = ? GROUP BY TABLE_NAME, INDEX_NAME"
                        + " HAVING SUM(COLUMN_NAME = 'tenant_id') = 0) k";
                assertThat(count(keysWithoutTenant, prefix)).as("unique keys without tenant_id").isZero();
                st.execute("ALTER TABLE " + prefix + "occupancy DROP PRIMARY KEY, ADD PRIMARY KEY (id)");
                st.execute("ALTER TABLE " + prefix + "credit_entry DROP PRIMARY KEY, ADD PRIMARY KEY (seq)");
                st.execute("ALTER TABLE " + prefix + "waiter ADD UNIQUE KEY " + prefix + "waiter_seq_uk (seq),"
                        + " DROP INDEX " + prefix + "waiter_seq_tenant_uk");
                assertThat(count(keysWithoutTenant, prefix)).as("as before").isEqualTo(3);
                JdbcSchema.create(db.dataSource(), prefix);
                assertThat(count(keysWithoutTenant, prefix)).as("after the upgrade").isZero();
                JdbcSchema.create(db.dataSource(), prefix); // and again: nothing left to do
                assertThat(count(keysWithoutTenant, prefix)).isZero();
            } finally {
                TestDatabases.dropSchema(db.dataSource(), JdbcDialect.MARIADB, prefix);
            }
        }
    }

    @Nested
    class RefusedRequests extends RefusedRequestTests {
        @Override
        protected TestDatabase openDatabase() {
            return TestDatabases.mariadb();
        }
    }

    @Nested
    class Lessons extends LessonsStoreTests {
        @Override
        protected TestDatabase openDatabase() {
            return TestDatabases.mariadb();
        }

        /** MariaDB keeps UTC instants in DATETIME columns: read the wall-clock value as UTC. */
        @Override
        protected Instant instant(ResultSet rs, int column) throws SQLException {
            return rs.getObject(column, LocalDateTime.class).toInstant(ZoneOffset.UTC);
        }
    }

    @Nested
    class RoundTripBudget extends RoundTripBudgetTests {
        @Override
        protected TestDatabase openDatabase() {
            return TestDatabases.mariadb();
        }
    }

    @Nested
    class OutboxSql extends OutboxSqlTests {
        @Override
        protected TestDatabase openDatabase() {
            return TestDatabases.mariadb();
        }
    }

    @Nested
    class AllTenantsUpkeep extends AllTenantsUpkeepTests {
        @Override
        protected TestDatabase openDatabase() {
            return TestDatabases.mariadb();
        }
    }

    @Nested
    class TenantFence extends TenantFenceTests {
        @Override
        protected TestDatabase openDatabase() {
            return TestDatabases.mariadb();
        }
    }

    @Nested
    class SchemaDrop extends JdbcSchemaDropTests {
        @Override
        protected TestDatabase openDatabase() {
            return TestDatabases.mariadb();
        }
    }

    /**
     * The MariaDB one-call procedures of schema-mariadb.sql, called with plain JDBC on autocommit
     * connections (CALL via executeQuery): every answer tag, the table contents afterwards, the database
     * clock when p_now is NULL, races, and the plans of the hot statements.
     */
    @Nested
    class Routines extends DirectCalls {
        private static final List<String> COLUMNS = List.of("tag", "booking_id", "request_id", "slot_id", "student_id",
                "seat", "status", "held_until", "created_at", "updated_at", "res_kind", "res_id", "starts_at", "ends_at",
                "coach_id", "room_id", "capacity", "ref_id", "amount", "note");
        private static final long LONGEST = 24L * 3600 * 1_000_000; // 24 h in microseconds
        private static final long HOLD = 10L * 60 * 1_000_000; // 10 min
        private static final LocalDateTime T0 = LocalDateTime.of(2030, 1, 1, 8, 0);
        private static final LocalDateTime S10 = LocalDateTime.of(2030, 1, 2, 10, 0);


        /** One fact row, columns in contract order. */
        record Fact(String tag, String bookingId, String requestId, String slotId, String studentId, Integer seat,
                    String status, LocalDateTime heldUntil, LocalDateTime createdAt, LocalDateTime updatedAt,
                    String resKind, String resId, LocalDateTime startsAt, LocalDateTime endsAt, String coachId,
                    String roomId, Integer capacity, String refId, Integer amount, String note) {
        }

        // ------------------------------------------------------------------ schedule

        @Test
        void scheduleAnswersScheduledExistsAndConflictsAndWritesSlotSeatsAndOccupations() throws Exception {
            List<Fact> scheduled = schedule("s1", "c1", "r1", S10, S10.plusHours(1), 12);
            assertThat(scheduled).containsExactly(slotFact("SCHEDULED", "s1", "c1", "r1", S10, S10.plusHours(1), 12, "OPEN"));
            assertThat(longs("SELECT COUNT(*), MIN(seq), MAX(seq), SUM(status = 'FREE' AND booking_id IS NULL) FROM "
                    + db.table("slot_seat") + " WHERE tenant_id = ? AND slot_id = 's1'", t)).containsExactly(12L, 1L, 12L, 12L);
            assertThat(strings("SELECT CONCAT(resource_kind, ':', resource_id, ':', COALESCE(booking_id, '-'), ':', active)"
                    + " FROM " + db.table("occupancy") + " WHERE tenant_id = ? ORDER BY resource_kind", t))
                    .containsExactly("COACH:c1:-:1", "ROOM:r1:-:1");

            // the same id again: the stored slot, whatever the spec asked
            assertThat(schedule("s1", "c9", "r9", S10.plusDays(3), S10.plusDays(3).plusHours(1), 5))
                    .containsExactly(slotFact("EXISTS", "s1", "c1", "r1", S10, S10.plusHours(1), 12, "OPEN"));

            // coach clash only, then coach and room (ordered by kind): nothing written
            assertThat(schedule("s2", "c1", "r2", S10.plusMinutes(30), S10.plusMinutes(90), 3))
                    .containsExactly(conflict("COACH", "c1", "s1", null, S10, S10.plusHours(1)));
            assertThat(schedule("s3", "c1", "r1", S10.minusMinutes(30), S10.plusMinutes(30), 3)).containsExactly(
                    conflict("COACH", "c1", "s1", null, S10, S10.plusHours(1)),
                    conflict("ROOM", "r1", "s1", null, S10, S10.plusHours(1)));
            assertThat(count("SELECT COUNT(*) FROM " + db.table("slot") + " WHERE tenant_id = ?", t)).isEqualTo(1);
            assertThat(count("SELECT COUNT(*) FROM " + db.table("slot_seat") + " WHERE tenant_id = ?", t)).isEqualTo(12);

            // back to back is no clash
            assertThat(schedule("s4", "c1", "r1", S10.plusHours(1), S10.plusHours(2), 1)).extracting(Fact::tag)
                    .containsExactly("SCHEDULED");
        }

        @Test
        void scheduleCreatesAHundredThousandSeatsSetWise() throws Exception {
            assertThat(schedule("big", "c1", "r1", S10, S10.plusHours(1), 100_000)).extracting(Fact::tag)
                    .containsExactly("SCHEDULED");
            assertThat(longs("SELECT COUNT(*), COUNT(DISTINCT seq), MIN(seq), MAX(seq) FROM " + db.table("slot_seat")
                    + " WHERE tenant_id = ? AND slot_id = 'big'", t)).containsExactly(100_000L, 100_000L, 1L, 100_000L);
        }

        // ------------------------------------------------------------------ hold

        @Test
        void holdAnswersHeldReplayAlreadyConflictAndWritesSeatBookingOccupation() throws Exception {
            schedule("s1", "c1", "r1", S10, S10.plusHours(1), 3);
            schedule("s2", "c2", "r2", S10.plusMinutes(30), S10.plusMinutes(90), 3);
            assertThat(hold("nope", "b0", "q0", "st1", "HELD", T0, false)).containsExactly(bare("NOT_FOUND"));

            Fact held = booking("HELD", "b1", "q1", "s1", "st1", 1, "HELD", T0.plusMinutes(10), T0, T0);
            assertThat(hold("s1", "b1", "q1", "st1", "HELD", T0, false)).containsExactly(held, ev("EV_HELD", held));
            assertThat(strings("SELECT CONCAT(seq, ':', status, ':', booking_id, ':', student_id, ':', held_until) FROM "
                    + db.table("slot_seat") + " WHERE tenant_id = ? AND status <> 'FREE'", t))
                    .containsExactly("1:HELD:b1:st1:2030-01-01 08:10:00.000000");
            assertThat(strings("SELECT CONCAT(resource_id, ':', slot_id, ':', booking_id, ':', active, ':', starts_at) FROM "
                    + db.table("occupancy") + " WHERE tenant_id = ? AND resource_kind = 'STUDENT'", t))
                    .containsExactly("st1:s1:b1:1:2030-01-02 10:00:00.000000");

            // the same request: REPLAY (also with another booking id); another request: ALREADY
            assertThat(hold("s1", "bX", "q1", "st1", "HELD", T0.plusMinutes(1), false))
                    .containsExactly(booking("REPLAY", "b1", "q1", "s1", "st1", 1, "HELD", T0.plusMinutes(10), T0, T0));
            assertThat(hold("s1", "bY", "q2", "st1", "HELD", T0.plusMinutes(1), false))
                    .containsExactly(booking("ALREADY", "b1", "q1", "s1", "st1", 1, "HELD", T0.plusMinutes(10), T0, T0));

            // an overlapping slot: CONFLICT with the live hold, nothing written
            assertThat(hold("s2", "b3", "q3", "st1", "HELD", T0.plusMinutes(2), false))
                    .containsExactly(conflict("STUDENT", "st1", "s1", "b1", S10, S10.plusHours(1)));
            assertThat(count("SELECT COUNT(*) FROM " + db.table("booking") + " WHERE tenant_id = ?", t)).isEqualTo(1);

            // book: HELD answer with status CONFIRMED, and EV_CONFIRMED
            Fact booked = booking("HELD", "b4", "q4", "s2", "st2", 1, "CONFIRMED", T0.plusMinutes(13), T0.plusMinutes(3),
                    T0.plusMinutes(3));
            assertThat(hold("s2", "b4", "q4", "st2", "CONFIRMED", T0.plusMinutes(3), true))
                    .containsExactly(booked, ev("EV_CONFIRMED", booked));
            assertThat(strings("SELECT status FROM " + db.table("slot_seat") + " WHERE tenant_id = ? AND booking_id = 'b4'", t))
                    .containsExactly("CONFIRMED");
        }

        @Test
        void holdAnswersFullNotOpenAndReplaysOnAFullOrClosedSlot() throws Exception {
            schedule("s1", "c1", "r1", S10, S10.plusHours(1), 1);
            Fact held = booking("HELD", "b1", "q1", "s1", "st1", 1, "HELD", T0.plusMinutes(10), T0, T0);
            assertThat(hold("s1", "b1", "q1", "st1", "HELD", T0, false)).containsExactly(held, ev("EV_HELD", held));

            // full by committed seats (the pre-check) and full after the claim (gate held: no pre-check)
            assertThat(hold("s1", "b2", "q2", "st2", "HELD", T0.plusMinutes(1), false)).containsExactly(bare("FULL"));
            assertThat(hold("s1", "b2", "q2", "st2", "HELD", T0.plusMinutes(1), true)).containsExactly(bare("FULL"));
            // the pre-check still answers the request's replay and the student's live booking
            assertThat(hold("s1", "b1", "q1", "st1", "HELD", T0.plusMinutes(1), false)).extracting(Fact::tag, Fact::bookingId)
                    .containsExactly(org.assertj.core.groups.Tuple.tuple("REPLAY", "b1"));
            assertThat(hold("s1", "b3", "q3", "st1", "HELD", T0.plusMinutes(1), false)).extracting(Fact::tag, Fact::bookingId)
                    .containsExactly(org.assertj.core.groups.Tuple.tuple("ALREADY", "b1"));
            assertThat(count("SELECT COUNT(*) FROM " + db.table("booking") + " WHERE tenant_id = ?", t)).isEqualTo(1);

            // ended (status stays OPEN), then cancelled: NOT_OPEN, or the replay
            assertThat(hold("s1", "b5", "q5", "st5", "HELD", S10.plusHours(1), false))
                    .containsExactly(notOpen("s1", "OPEN"));
            cancelSlot("s1", T0.plusMinutes(5));
            assertThat(hold("s1", "b5", "q5", "st5", "HELD", T0.plusMinutes(6), true)).containsExactly(notOpen("s1", "CANCELLED"));
            assertThat(hold("s1", "b1", "q1", "st1", "HELD", T0.plusMinutes(6), true)).extracting(Fact::tag, Fact::status)
                    .containsExactly(org.assertj.core.groups.Tuple.tuple("REPLAY", "CANCELLED"));
        }

        @Test
        void holdRetiresDeadHoldsAndTakesOverExpiredSeats() throws Exception {
            schedule("x", "c1", "r1", S10, S10.plusHours(1), 1);
            schedule("y", "c2", "r2", S10.plusMinutes(30), S10.plusMinutes(90), 5);
            schedule("z", "c3", "r3", S10.plusMinutes(45), S10.plusMinutes(100), 5);
            hold("x", "a1", "qa1", "A", "HELD", T0, false);
            LocalDateTime later = T0.plusMinutes(20);

            // B takes over A's ran-out seat: A's booking EXPIRED (EV_EXPIRED), its occupation released
            Fact taken = booking("HELD", "b1", "qb1", "x", "B", 1, "HELD", later.plusMinutes(10), later, later);
            assertThat(hold("x", "b1", "qb1", "B", "HELD", later, false)).containsExactly(taken,
                    booking("EV_EXPIRED", "a1", "qa1", "x", "A", 1, "EXPIRED", T0.plusMinutes(10), T0, later),
                    ev("EV_HELD", taken));
            assertThat(strings("SELECT CONCAT(booking_id, ':', student_id) FROM " + db.table("slot_seat")
                    + " WHERE tenant_id = ? AND slot_id = 'x'", t)).containsExactly("b1:B");
            assertThat(strings("SELECT CONCAT(booking_id, ':', active) FROM " + db.table("occupancy")
                    + " WHERE tenant_id = ? AND resource_kind = 'STUDENT' ORDER BY booking_id", t))
                    .containsExactly("a1:0", "b1:1");

            // A's dead hold in y blocks nothing: holding z (overlapping y) retires it in the same call
            hold("y", "a2", "qa2", "A", "HELD", later, false);
            LocalDateTime evenLater = later.plusMinutes(30);
            Fact z = booking("HELD", "a3", "qa3", "z", "A", 1, "HELD", evenLater.plusMinutes(10), evenLater, evenLater);
            assertThat(hold("z", "a3", "qa3", "A", "HELD", evenLater, false)).containsExactly(z,
                    booking("EV_EXPIRED", "a2", "qa2", "y", "A", 1, "EXPIRED", later.plusMinutes(10), later, evenLater),
                    ev("EV_HELD", z));
            assertThat(strings("SELECT status FROM " + db.table("slot_seat") + " WHERE tenant_id = ? AND slot_id = 'y'", t))
                    .containsOnly("FREE");

            // the student's own dead hold of the slot is retired before he gets a seat again
            LocalDateTime last = evenLater.plusMinutes(30);
            Fact again = booking("HELD", "a4", "qa4", "z", "A", 1, "HELD", last.plusMinutes(10), last, last);
            assertThat(hold("z", "a4", "qa4", "A", "HELD", last, false)).containsExactly(again,
                    booking("EV_EXPIRED", "a3", "qa3", "z", "A", 1, "EXPIRED", evenLater.plusMinutes(10), evenLater, last),
                    ev("EV_HELD", again));
            assertThat(strings("SELECT CONCAT(booking_id, ':', status) FROM " + db.table("booking")
                    + " WHERE tenant_id = ? AND student_id = 'A' ORDER BY booking_id", t))
                    .containsExactly("a1:EXPIRED", "a2:EXPIRED", "a3:EXPIRED", "a4:HELD");
            assertThat(count("SELECT COUNT(*) FROM " + db.table("occupancy")
                    + " WHERE tenant_id = ? AND resource_kind = 'STUDENT' AND resource_id = 'A' AND active", t)).isEqualTo(1);
        }

        // ------------------------------------------------------------------ confirm / cancel

        @Test
        void confirmAnswersConfirmedHoldExpiredAlreadyCancelledAndNotFound() throws Exception {
            schedule("s1", "c1", "r1", S10, S10.plusHours(1), 5);
            hold("s1", "b1", "q1", "st1", "HELD", T0, false);
            LocalDateTime at = T0.plusMinutes(5);
            Fact confirmed = booking("CONFIRMED", "b1", "q1", "s1", "st1", 1, "CONFIRMED", T0.plusMinutes(10), T0, at);
            assertThat(confirm("b1", "st1", at)).containsExactly(confirmed, ev("EV_CONFIRMED", confirmed));
            assertThat(confirm("b1", "st1", at.plusMinutes(30))).containsExactly(confirmed);
            assertThat(strings("SELECT status FROM " + db.table("slot_seat") + " WHERE tenant_id = ? AND booking_id = 'b1'", t))
                    .containsExactly("CONFIRMED");
            assertThat(confirm("b1", "other", at)).containsExactly(bare("NOT_FOUND"));
            assertThat(confirm("nope", "st1", at)).containsExactly(bare("NOT_FOUND"));

            // at held_until exactly the hold has run out
            hold("s1", "b2", "q2", "st2", "HELD", T0, false);
            Fact expired = booking("HOLD_EXPIRED", "b2", "q2", "s1", "st2", 2, "EXPIRED", T0.plusMinutes(10), T0,
                    T0.plusMinutes(10));
            assertThat(confirm("b2", "st2", T0.plusMinutes(10))).containsExactly(expired, ev("EV_EXPIRED", expired));
            assertThat(confirm("b2", "st2", T0.plusMinutes(11))).containsExactly(expired);
            assertThat(count("SELECT COUNT(*) FROM " + db.table("slot_seat")
                    + " WHERE tenant_id = ? AND seq = 2 AND status = 'FREE' AND booking_id IS NULL", t)).isEqualTo(1);
            assertThat(count("SELECT COUNT(*) FROM " + db.table("occupancy") + " WHERE tenant_id = ? AND booking_id = 'b2'"
                    + " AND active", t)).isZero();

            hold("s1", "b3", "q3", "st3", "HELD", T0, false);
            cancel("b3", "st3", T0.plusMinutes(1));
            assertThat(confirm("b3", "st3", T0.plusMinutes(2))).containsExactly(bare("ALREADY_CANCELLED"));
        }

        @Test
        void cancelAnswersCancelledAlreadyCancelledWithTheBookingAndNotFound() throws Exception {
            schedule("s1", "c1", "r1", S10, S10.plusHours(1), 5);
            hold("s1", "b1", "q1", "st1", "CONFIRMED", T0, false);
            LocalDateTime at = T0.plusMinutes(20);
            Fact cancelled = booking("CANCELLED", "b1", "q1", "s1", "st1", 1, "CANCELLED", T0.plusMinutes(10), T0, at);
            assertThat(cancel("b1", "other", at)).containsExactly(bare("NOT_FOUND"));
            assertThat(cancel("b1", "st1", at)).containsExactly(cancelled, ev("EV_CANCELLED", cancelled));
            assertThat(cancel("b1", "st1", at.plusMinutes(1))).containsExactly(
                    booking("ALREADY_CANCELLED", "b1", "q1", "s1", "st1", 1, "CANCELLED", T0.plusMinutes(10), T0, at));
            assertThat(count("SELECT COUNT(*) FROM " + db.table("slot_seat")
                    + " WHERE tenant_id = ? AND status = 'FREE' AND booking_id IS NULL", t)).isEqualTo(5);
            assertThat(count("SELECT COUNT(*) FROM " + db.table("occupancy") + " WHERE tenant_id = ? AND booking_id = 'b1'"
                    + " AND active", t)).isZero();

            // a live hold is cancelled; a ran-out one is retired and answered ALREADY_CANCELLED
            hold("s1", "b2", "q2", "st2", "HELD", T0, false);
            assertThat(cancel("b2", "st2", T0.plusMinutes(9))).extracting(Fact::tag).containsExactly("CANCELLED", "EV_CANCELLED");
            hold("s1", "b3", "q3", "st3", "HELD", T0, false);
            Fact expired = booking("ALREADY_CANCELLED", "b3", "q3", "s1", "st3", 1, "EXPIRED", T0.plusMinutes(10), T0,
                    T0.plusMinutes(10));
            assertThat(cancel("b3", "st3", T0.plusMinutes(10))).containsExactly(expired, ev("EV_EXPIRED", expired));
            assertThat(cancel("b3", "st3", T0.plusMinutes(11))).containsExactly(expired);
            assertThat(cancel("nope", "st3", T0)).containsExactly(bare("NOT_FOUND"));
        }

        // ------------------------------------------------------------------ cancel_slot / expire_due

        @Test
        void cancelSlotCancelsEveryLiveBookingClosesEverySeatAndReleasesEveryOccupation() throws Exception {
            schedule("s1", "c1", "r1", S10, S10.plusHours(1), 4);
            hold("s1", "b1", "q1", "st1", "CONFIRMED", T0, false);
            hold("s1", "b2", "q2", "st2", "HELD", T0, false);
            hold("s1", "b3", "q3", "st3", "HELD", T0, false);
            cancel("b2", "st2", T0.plusMinutes(1)); // cancelled before: no event
            LocalDateTime at = T0.plusMinutes(5);
            assertThat(cancelSlot("s1", at)).containsExactly(
                    slotFact("SLOT_CANCELLED", "s1", "c1", "r1", S10, S10.plusHours(1), 4, "CANCELLED"),
                    booking("EV_CANCELLED", "b1", "q1", "s1", "st1", 1, "CANCELLED", T0.plusMinutes(10), T0, at),
                    booking("EV_CANCELLED", "b3", "q3", "s1", "st3", 3, "CANCELLED", T0.plusMinutes(10), T0, at));
            assertThat(strings("SELECT DISTINCT CONCAT(status, ':', COALESCE(booking_id, '-'), ':', COALESCE(student_id, '-'))"
                    + " FROM " + db.table("slot_seat") + " WHERE tenant_id = ?", t)).containsExactly("CLOSED:-:-");
            assertThat(strings("SELECT status FROM " + db.table("slot") + " WHERE tenant_id = ?", t)).containsExactly("CANCELLED");
            assertThat(count("SELECT COUNT(*) FROM " + db.table("occupancy") + " WHERE tenant_id = ? AND active", t)).isZero();
            assertThat(cancelSlot("s1", at)).containsExactly(bare("ALREADY_CANCELLED"));
            assertThat(cancelSlot("nope", at)).containsExactly(bare("NOT_FOUND"));
            // the coach is free again
            assertThat(schedule("s2", "c1", "r1", S10, S10.plusHours(1), 1)).extracting(Fact::tag).containsExactly("SCHEDULED");
        }

        @Test
        void expireDueExpiresOnlyRanOutHoldsOldestFirstUpToTheLimit() throws Exception {
            schedule("s1", "c1", "r1", S10, S10.plusHours(1), 5);
            hold("s1", "b1", "q1", "st1", "HELD", T0.plusMinutes(2), false);
            hold("s1", "b2", "q2", "st2", "HELD", T0, false);
            hold("s1", "b3", "q3", "st3", "HELD", T0.plusMinutes(1), false);
            hold("s1", "b4", "q4", "st4", "CONFIRMED", T0, false);
            hold("s1", "b5", "q5", "st5", "HELD", T0.plusMinutes(30), false);
            LocalDateTime at = T0.plusMinutes(15);
            assertThat(expireDue(at, 2)).containsExactly(
                    booking("EV_EXPIRED", "b2", "q2", "s1", "st2", 2, "EXPIRED", T0.plusMinutes(10), T0, at),
                    booking("EV_EXPIRED", "b3", "q3", "s1", "st3", 3, "EXPIRED", T0.plusMinutes(11), T0.plusMinutes(1), at));
            assertThat(expireDue(at, 10)).extracting(Fact::bookingId).containsExactly("b1");
            assertThat(expireDue(at, 10)).isEmpty();
            assertThat(strings("SELECT CONCAT(seq, ':', status) FROM " + db.table("slot_seat") + " WHERE tenant_id = ?"
                    + " ORDER BY seq", t)).containsExactly("1:FREE", "2:FREE", "3:FREE", "4:CONFIRMED", "5:HELD");
            assertThat(strings("SELECT booking_id FROM " + db.table("occupancy") + " WHERE tenant_id = ? AND active"
                    + " AND resource_kind = 'STUDENT' ORDER BY booking_id", t)).containsExactly("b4", "b5");
        }

        // ------------------------------------------------------------------ the database clock

        @Test
        void aNullNowIsTheDatabaseClockReadOnceForTheWholeCall() throws Exception {
            LocalDateTime future = dbNow().plusDays(30);
            schedule("s1", "c1", "r1", future, future.plusHours(1), 2);
            LocalDateTime before = dbNow();
            Fact held = hold("s1", "b1", "q1", "st1", "HELD", null, false).get(0);
            LocalDateTime after = dbNow();
            assertThat(held.tag()).isEqualTo("HELD");
            assertThat(held.createdAt()).isBetween(before, after).isEqualTo(held.updatedAt());
            assertThat(held.heldUntil()).isEqualTo(held.createdAt().plusNanos(HOLD * 1000));

            Fact confirmed = confirm("b1", "st1", null).get(0);
            assertThat(confirmed.tag()).isEqualTo("CONFIRMED");
            assertThat(confirmed.updatedAt()).isBetween(after, dbNow());

            // a hold placed an hour ago (explicit clock) has run out by the database clock
            hold("s1", "b2", "q2", "st2", "HELD", dbNow().minusHours(1), false);
            LocalDateTime sweep = dbNow();
            List<Fact> swept = expireDue(null, 10);
            assertThat(swept).extracting(Fact::bookingId).containsExactly("b2");
            assertThat(swept.get(0).updatedAt()).isBetween(sweep, dbNow());

            Fact cancelled = cancel("b1", "st1", null).get(0);
            assertThat(cancelled.tag()).isEqualTo("CANCELLED");
            assertThat(cancelSlot("s1", null)).extracting(Fact::tag).containsExactly("SLOT_CANCELLED");
        }

        // ------------------------------------------------------------------ races

        @Test
        void fiftyConcurrentHoldsOnTenSeatsTakeExactlyTenSeats() throws Exception {
            schedule("hot", "c1", "r1", S10, S10.plusHours(1), 10);
            List<List<Fact>> answers = Concurrent.run(50, 50, i -> hold("hot", "b" + i, "q" + i, "st" + i, "HELD", T0, false));
            Map<String, Integer> tags = new HashMap<>();
            answers.forEach(a -> tags.merge(a.get(0).tag(), 1, Integer::sum));
            assertThat(tags).containsExactlyInAnyOrderEntriesOf(Map.of("HELD", 10, "FULL", 40));
            assertThat(longs("SELECT COUNT(*), COUNT(DISTINCT booking_id), COUNT(DISTINCT student_id) FROM "
                    + db.table("slot_seat") + " WHERE tenant_id = ? AND status = 'HELD'", t)).containsExactly(10L, 10L, 10L);
            assertThat(count("SELECT COUNT(*) FROM " + db.table("booking") + " WHERE tenant_id = ?", t)).isEqualTo(10);
            assertThat(count("SELECT COUNT(*) FROM " + db.table("booking") + " b JOIN " + db.table("slot_seat")
                    + " s ON s.tenant_id = b.tenant_id AND s.slot_id = b.slot_id AND s.seq = b.seat"
                    + " AND s.booking_id = b.booking_id WHERE b.tenant_id = ?", t)).isEqualTo(10);
        }

        @Test
        void oneStudentRacingIntoTenOverlappingSlotsGetsExactlyOne() throws Exception {
            for (int i = 0; i < 10; i++) {
                schedule("o" + i, "c" + i, "r" + i, S10.plusMinutes(i), S10.plusMinutes(60 + i), 5);
            }
            List<List<Fact>> answers = Concurrent.run(10, 10, i -> hold("o" + i, "b" + i, "q" + i, "solo", "HELD", T0, false));
            assertThat(answers.stream().filter(a -> a.get(0).tag().equals("HELD")).count()).isEqualTo(1);
            assertThat(answers.stream().filter(a -> a.get(0).tag().equals("CONFLICT")).count()).isEqualTo(9);
            assertThat(count("SELECT COUNT(*) FROM " + db.table("occupancy")
                    + " WHERE tenant_id = ? AND resource_kind = 'STUDENT' AND resource_id = 'solo' AND active", t)).isEqualTo(1);
            assertThat(count("SELECT COUNT(*) FROM " + db.table("booking") + " WHERE tenant_id = ?", t)).isEqualTo(1);
        }

        @Test
        void twentyConcurrentCancelsOfOneBookingCancelItOnce() throws Exception {
            schedule("s1", "c1", "r1", S10, S10.plusHours(1), 3);
            hold("s1", "b1", "q1", "st1", "CONFIRMED", T0, false);
            List<List<Fact>> answers = Concurrent.run(20, 20, i -> cancel("b1", "st1", T0.plusMinutes(1)));
            assertThat(answers.stream().filter(a -> a.get(0).tag().equals("CANCELLED")).count()).isEqualTo(1);
            assertThat(answers.stream().filter(a -> a.get(0).tag().equals("ALREADY_CANCELLED")).count()).isEqualTo(19);
            assertThat(answers.stream().flatMap(List::stream).filter(f -> f.tag().startsWith("EV_")).count()).isEqualTo(1);
            assertThat(count("SELECT COUNT(*) FROM " + db.table("slot_seat")
                    + " WHERE tenant_id = ? AND status = 'FREE' AND booking_id IS NULL", t)).isEqualTo(3);
            assertThat(strings("SELECT status FROM " + db.table("booking") + " WHERE tenant_id = ?", t))
                    .containsExactly("CANCELLED");
        }

        // ------------------------------------------------------------------ plans

        @Test
        void theHotStatementsUseTheirIndexesOnAFreshSchema() throws Exception {
            try (TestDatabase fresh = TestDatabases.mariadb()) {
                String p = fresh.prefix();
                String seat = p + "slot_seat";
                String booking = p + "booking";
                String occupancy = p + "occupancy";
                try (Connection c = fresh.dataSource().getConnection(); Statement s = c.createStatement()) {
                    for (int i = 0; i < 20; i++) {
                        s.executeQuery("CALL " + p + "schedule('t', 'slot" + i + "', 'c" + i + "', 'r" + i
                                + "', '2030-01-02 10:00', '2030-01-02 11:00', 200, " + LONGEST
                                + ", NULL, NULL, 0, NULL, NULL, NULL, NULL, FALSE, NULL, 0, NULL)").close();
                        for (int k = 0; k < 5; k++) {
                            s.executeQuery("CALL " + p + "hold('t', 'b" + i + "-" + k + "', 'q" + i + "-" + k + "', 'slot" + i
                                    + "', 'st" + (i * 5 + k) + "', 'HELD', '2030-01-01 08:00', " + HOLD + ", " + LONGEST
                                    + ", FALSE, FALSE, 0, 0, 0, 'AT_BOOKING')").close();
                        }
                    }
                    String ids = "'[[\"b1-1\", \"slot1\", 2], [\"b2-2\", \"slot2\", 3]]'";
                    String json = "JSON_TABLE(" + ids + ", '$[*]' COLUMNS (bid VARCHAR(64) CHARACTER SET utf8mb4 COLLATE"
                            + " utf8mb4_bin PATH '$[0]', sid VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH"
                            + " '$[1]', sq INT PATH '$[2]')) j";
                    String now = "'2030-01-01 09:00'";

                    // hold_batch: the holds a full slot refuses, found by one read
                    String holds = "(SELECT t.pos, t.request, t.slot, t.student, t.tenant, " + now + " AS at FROM JSON_TABLE("
                            + "'[[\"q1-1\", \"slot1\", \"st6\", \"t\"], [\"qx\", \"slot2\", \"st99\", \"t\"]]', '$[*]'"
                            + " COLUMNS (pos FOR ORDINALITY,"
                            + " request VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[0]',"
                            + " slot VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[1]',"
                            + " student VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[2]',"
                            + " tenant VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[3]')) t) j";
                    assertPlan(s, "SET STATEMENT optimizer_switch = 'exists_to_in=off' FOR ", "SELECT GROUP_CONCAT(j.pos) FROM " + holds + " STRAIGHT_JOIN " + p + "slot s FORCE INDEX"
                            + " (PRIMARY) ON s.tenant_id = j.tenant AND s.slot_id = j.slot WHERE s.status = 'OPEN'"
                            + " AND j.at < s.ends_at"
                            + " AND NOT EXISTS (SELECT 1 FROM " + seat + " f FORCE INDEX (" + p + "slot_seat_claim_ix)"
                            + " WHERE f.tenant_id = j.tenant AND f.slot_id = j.slot AND f.status = 'FREE')"
                            + " AND NOT EXISTS (SELECT 1 FROM " + seat + " h FORCE INDEX (" + p + "slot_seat_held_ix)"
                            + " WHERE h.tenant_id = j.tenant AND h.slot_id = j.slot AND h.status = 'HELD'"
                            + " AND h.held_until <= j.at)"
                            + " AND NOT EXISTS (SELECT 1 FROM " + booking + " r FORCE INDEX (" + p + "booking_request_uk)"
                            + " WHERE r.tenant_id = j.tenant AND r.request_id = j.request)"
                            + " AND NOT EXISTS (SELECT 1 FROM " + p + "waiter w FORCE INDEX (PRIMARY)"
                            + " WHERE w.tenant_id = j.tenant AND w.request_id = j.request)"
                            + " AND NOT EXISTS (SELECT 1 FROM " + booking + " o FORCE INDEX (" + p + "booking_slot_ix)"
                            + " WHERE o.tenant_id = j.tenant AND o.slot_id = j.slot AND o.student_id = j.student"
                            + " AND (o.status = 'CONFIRMED' OR (o.status = 'HELD' AND o.held_until > j.at)))",
                            Map.of("s", "PRIMARY", "f", p + "slot_seat_claim_ix", "h", p + "slot_seat_held_ix",
                                    "r", p + "booking_request_uk", "w", "PRIMARY", "o", p + "booking_slot_ix"));
                    // hold_batch: the plain holds, and which of their students had a lock row
                    String plain = "(SELECT t.*, " + now + " AS at, COUNT(*) OVER (PARTITION BY t.tenant, t.student) AS students"
                            + " FROM JSON_TABLE('[[\"q1-1\", \"slot1\", \"st6\", \"t\"]]', '$[*]' COLUMNS (pos FOR ORDINALITY,"
                            + " request VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[0]',"
                            + " slot VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[1]',"
                            + " student VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[2]',"
                            + " tenant VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[3]')) t) j";
                    assertPlan(s, "SELECT GROUP_CONCAT(j.pos), GROUP_CONCAT(IF(l.resource_id IS NULL, NULL, j.pos)) FROM "
                            + plain + " STRAIGHT_JOIN " + p + "slot s FORCE INDEX (PRIMARY) ON s.tenant_id = j.tenant"
                            + " AND s.slot_id = j.slot LEFT JOIN " + p + "resource_lock l FORCE INDEX (PRIMARY)"
                            + " ON l.tenant_id = j.tenant AND l.resource_kind = 'STUDENT' AND l.resource_id = j.student"
                            + " WHERE j.students = 1 AND s.status = 'OPEN' AND s.cost = 0 AND j.at < s.ends_at",
                            Map.of("s", "PRIMARY", "l", "PRIMARY"));
                    // hold_batch: under the plain holds' locks, those with anything to look at (no slot row read;
                    // the ids read again from the records by position)
                    String records = "JSON_TABLE('[[\"b1-9\", \"q1-1\", \"slot1\", \"st6\", \"HELD\", \"\","
                            + " \"3600000000\", \"1\", \"0\", \"0\", \"0\", \"0\", \"0\", \"AT_BOOKING\", \"t\"],"
                            + " [\"b2-9\", \"qy\", \"slot3\", \"st98\", \"HELD\", \"\", \"3600000000\", \"1\", \"0\","
                            + " \"0\", \"0\", \"0\", \"0\", \"AT_BOOKING\", \"t\"]]', '$[*]' COLUMNS (pos FOR ORDINALITY,"
                            + " booking VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[0]',"
                            + " request VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[1]',"
                            + " slot VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[2]',"
                            + " student VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[3]',"
                            + " status VARCHAR(16) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[4]',"
                            + " tenant VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[14]')) t";
                    String plainRows = "(SELECT p.pos, t.tenant, t.request, t.slot, t.student, p.starts_at, p.student_end,"
                            + " p.lowest FROM JSON_TABLE('[[1, \"2030-01-02 10:00\", \"2030-01-02 11:00\","
                            + " \"2030-01-01 10:00\"]]', '$[*]' COLUMNS (pos INT PATH '$[0]',"
                            + " starts_at DATETIME(6) PATH '$[1]', student_end DATETIME(6) PATH '$[2]',"
                            + " lowest DATETIME(6) PATH '$[3]')) p JOIN " + records + " ON t.pos = p.pos) j";
                    assertPlan(s, "SELECT GROUP_CONCAT(DISTINCT j.pos) FROM " + plainRows
                            + " LEFT JOIN " + booking + " r FORCE INDEX (" + p + "booking_request_uk)"
                            + " ON r.tenant_id = j.tenant AND r.request_id = j.request"
                            + " LEFT JOIN " + p + "waiter w FORCE INDEX (PRIMARY) ON w.tenant_id = j.tenant"
                            + " AND w.request_id = j.request"
                            + " LEFT JOIN " + booking + " o FORCE INDEX (" + p + "booking_slot_ix) ON o.tenant_id = j.tenant"
                            + " AND o.slot_id = j.slot AND o.student_id = j.student AND o.status IN ('HELD', 'CONFIRMED')"
                            + " LEFT JOIN " + occupancy + " c FORCE INDEX (" + p + "occupancy_overlap_ix)"
                            + " ON c.tenant_id = j.tenant AND c.resource_kind = 'STUDENT' AND c.resource_id = j.student"
                            + " AND c.active = TRUE AND c.starts_at < j.student_end AND c.ends_at > j.starts_at"
                            + " AND c.starts_at > j.lowest"
                            + " WHERE r.booking_id IS NOT NULL OR w.request_id IS NOT NULL OR o.booking_id IS NOT NULL"
                            + " OR c.id IS NOT NULL LOCK IN SHARE MODE",
                            Map.of("r", p + "booking_request_uk", "w", "PRIMARY", "o", p + "booking_slot_ix",
                                    "c", p + "occupancy_overlap_ix"));
                    // hold_batch: the plain holds of slots named once take their first free seats together
                    assertPlan(s, "SELECT GROUP_CONCAT(t.pos ORDER BY t.pos), COUNT(*) FROM " + records
                            + " STRAIGHT_JOIN " + seat + " f FORCE INDEX (PRIMARY) ON f.tenant_id = t.tenant"
                            + " AND f.slot_id = t.slot AND f.status = 'FREE' AND f.seq = (SELECT g.seq FROM " + seat
                            + " g FORCE INDEX (" + p + "slot_seat_claim_ix) WHERE g.tenant_id = t.tenant"
                            + " AND g.slot_id = t.slot AND g.status = 'FREE' ORDER BY g.seq LIMIT 1) FOR UPDATE SKIP LOCKED",
                            Map.of("f", "PRIMARY", "g", p + "slot_seat_claim_ix"));
                    // (their seats are written by an insert that meets each seat's row on its primary key: no read to plan)

                    assertPlan(s, "SELECT seq FROM " + seat + " FORCE INDEX (" + p + "slot_seat_claim_ix) WHERE tenant_id = 't'"
                            + " AND slot_id = 'slot3' AND status = 'FREE' ORDER BY seq LIMIT 1 FOR UPDATE SKIP LOCKED",
                            Map.of(seat, p + "slot_seat_claim_ix"));
                    assertPlan(s, "SELECT seq, booking_id FROM " + seat + " FORCE INDEX (" + p + "slot_seat_held_ix)"
                            + " WHERE tenant_id = 't' AND slot_id = 'slot3' AND status = 'HELD' AND held_until <= " + now
                            + " ORDER BY held_until LIMIT 1 FOR UPDATE SKIP LOCKED", Map.of(seat, p + "slot_seat_held_ix"));
                    assertPlan(s, "SELECT 1 FROM DUAL WHERE NOT EXISTS (SELECT 1 FROM " + seat + " FORCE INDEX (" + p
                            + "slot_seat_claim_ix) WHERE tenant_id = 't' AND slot_id = 'slot3' AND status = 'FREE')",
                            Map.of(seat, p + "slot_seat_claim_ix"));
                    assertPlan(s, "SELECT 1 FROM DUAL WHERE NOT EXISTS (SELECT 1 FROM " + seat + " FORCE INDEX (" + p
                            + "slot_seat_held_ix) WHERE tenant_id = 't'"
                            + " AND slot_id = 'slot3' AND status = 'HELD' AND held_until <= " + now + ")",
                            Map.of(seat, p + "slot_seat_held_ix"));
                    assertPlan(s, "SELECT COUNT(*) FROM " + occupancy + " WHERE tenant_id = 't' AND ((resource_kind = 'COACH'"
                            + " AND resource_id = 'c3') OR (resource_kind = 'ROOM' AND resource_id = 'r3')) AND active = TRUE"
                            + " AND starts_at < '2030-01-02 12:00' AND ends_at > '2030-01-02 10:30'"
                            + " AND starts_at > '2030-01-01 10:30'", Map.of(occupancy, p + "occupancy_overlap_ix"));
                    assertPlan(s, "SELECT COUNT(*) FROM " + occupancy + " o WHERE o.tenant_id = 't'"
                            + " AND o.resource_kind = 'STUDENT' AND o.resource_id = 'st7' AND o.active = TRUE"
                            + " AND o.starts_at < '2030-01-02 12:00' AND o.ends_at > '2030-01-02 10:30'"
                            + " AND o.starts_at > '2030-01-01 10:30' AND NOT EXISTS (SELECT 1 FROM " + booking + " b"
                            + " WHERE b.tenant_id = 't' AND b.booking_id = o.booking_id AND b.status = 'HELD'"
                            + " AND b.held_until <= " + now + ")",
                            Map.of("o", p + "occupancy_overlap_ix", "b", "PRIMARY"));
                    assertPlan(s, "SELECT b.booking_id FROM " + occupancy + " o JOIN " + booking + " b ON b.tenant_id ="
                            + " o.tenant_id AND b.booking_id = o.booking_id WHERE o.tenant_id = 't'"
                            + " AND o.resource_kind = 'STUDENT' AND o.resource_id = 'st7' AND o.active = TRUE"
                            + " AND o.starts_at < '2030-01-02 12:00' AND o.ends_at > '2030-01-02 10:30'"
                            + " AND o.starts_at > '2030-01-01 10:30' AND b.status = 'HELD' AND b.held_until <= " + now,
                            Map.of("o", p + "occupancy_overlap_ix", "b", "PRIMARY"));
                    assertPlan(s, "SELECT COUNT(*) FROM " + json + " STRAIGHT_JOIN " + seat + " s ON s.tenant_id = 't'"
                            + " AND s.slot_id = j.sid AND s.seq = j.sq WHERE s.booking_id = j.bid AND s.status = 'HELD'"
                            + " FOR UPDATE", Map.of("s", "PRIMARY"));
                    assertPlan(s, "UPDATE " + json + " STRAIGHT_JOIN " + seat + " s ON s.tenant_id = 't' AND s.slot_id ="
                            + " j.sid AND s.seq = j.sq SET s.status = 'FREE'", Map.of("s", "PRIMARY"));
                    assertPlan(s, "UPDATE " + json + " STRAIGHT_JOIN " + booking + " b ON b.tenant_id = 't'"
                            + " AND b.booking_id = j.bid SET b.status = 'EXPIRED' WHERE b.status = 'HELD'",
                            Map.of("b", "PRIMARY"));
                    assertPlan(s, "UPDATE " + json + " STRAIGHT_JOIN " + occupancy + " o ON o.tenant_id = 't'"
                            + " AND o.booking_id = j.bid SET o.active = FALSE WHERE o.active = TRUE",
                            Map.of("o", p + "occupancy_booking_ix"));
                    assertPlan(s, "SELECT booking_id FROM " + booking + " WHERE tenant_id = 't' AND request_id = 'q3-1'",
                            Map.of(booking, p + "booking_request_uk"));
                    assertPlan(s, "SELECT booking_id FROM " + booking + " WHERE tenant_id = 't' AND slot_id = 'slot3'"
                            + " AND student_id = 'st16' AND status IN ('HELD', 'CONFIRMED') LIMIT 1",
                            Map.of(booking, p + "booking_slot_ix"));
                    assertPlan(s, "SELECT booking_id FROM " + booking + " WHERE tenant_id = 't' AND status = 'HELD'"
                            + " AND held_until <= " + now + " ORDER BY held_until LIMIT 50",
                            Map.of(booking, p + "booking_held_ix"));
                    assertPlan(s, "SELECT COUNT(*) FROM " + booking + " WHERE tenant_id = 't' AND slot_id = 'slot3'"
                            + " AND status IN ('HELD', 'CONFIRMED')", Map.of(booking, p + "booking_slot_ix"));
                    assertPlan(s, "UPDATE " + occupancy + " SET active = FALSE WHERE tenant_id = 't' AND slot_id = 'slot3'"
                            + " AND active = TRUE", Map.of(occupancy, p + "occupancy_slot_ix"));
                    assertPlan(s, "UPDATE " + occupancy + " SET active = FALSE WHERE tenant_id = 't' AND booking_id = 'b3-1'"
                            + " AND active = TRUE", Map.of(occupancy, p + "occupancy_booking_ix"));
                    String waiter = p + "waiter";
                    s.executeQuery("CALL " + p + "schedule('t', 'wl', 'cw', 'rw', '2030-01-03 10:00', '2030-01-03 11:00', 1, "
                            + LONGEST + ", NULL, NULL, 0, NULL, NULL, NULL, NULL, FALSE, NULL, 0, NULL)").close();
                    for (int k = 0; k < 12; k++) {
                        s.executeQuery("CALL " + p + "hold('t', 'bw" + k + "', 'qw" + k + "', 'wl', 'sw" + k
                                + "', 'HELD', '2030-01-01 08:00', " + HOLD + ", " + LONGEST + ", TRUE, TRUE, 0, 0, 0, 'AT_BOOKING')").close();
                    }
                    // the waitlist: the first WAITING entry of a slot (promotion), a position, a student's entry
                    assertPlan(s, "SELECT seq, request_id, student_id, booking_id, joined_at FROM " + waiter + " FORCE INDEX ("
                            + p + "waiter_slot_ix) WHERE tenant_id = 't' AND slot_id = 'wl' AND status = 'WAITING'"
                            + " ORDER BY seq LIMIT 1 FOR UPDATE", Map.of(waiter, p + "waiter_slot_ix"));
                    assertPlan(s, "SELECT COUNT(*) FROM " + waiter + " o FORCE INDEX (" + p + "waiter_slot_ix) WHERE"
                            + " o.tenant_id = 't' AND o.slot_id = 'wl' AND o.status = 'WAITING' AND o.seq <= 7",
                            Map.of("o", p + "waiter_slot_ix"));
                    assertPlan(s, "SELECT request_id FROM " + waiter + " FORCE INDEX (" + p + "waiter_student_ix)"
                            + " WHERE tenant_id = 't' AND slot_id = 'wl' AND student_id = 'sw3' AND status = 'WAITING'"
                            + " LIMIT 1", Map.of(waiter, p + "waiter_student_ix"));
                    assertPlan(s, "SELECT booking_id FROM " + waiter + " WHERE tenant_id = 't' AND request_id = 'qw3'",
                            Map.of(waiter, "PRIMARY"));
                    // the limits: a student's live bookings not ended yet, and those of a week
                    String live = " AND NOT EXISTS (SELECT 1 FROM " + booking + " b WHERE b.tenant_id = 't'"
                            + " AND b.booking_id = o.booking_id AND b.status = 'HELD' AND b.held_until <= " + now + ")";
                    assertPlan(s, "SELECT COUNT(*) FROM " + occupancy + " o"
                            + " WHERE o.tenant_id = 't' AND o.resource_kind = 'STUDENT'"
                            + " AND o.resource_id = 'st7' AND o.active = TRUE AND o.starts_at > '2029-12-31 09:00'"
                            + " AND o.ends_at > " + now + live,
                            Map.of("o", p + "occupancy_overlap_ix", "b", "PRIMARY"));
                    assertPlan(s, "SELECT COUNT(*) FROM " + occupancy + " o"
                            + " WHERE o.tenant_id = 't' AND o.resource_kind = 'STUDENT'"
                            + " AND o.resource_id = 'st7' AND o.active = TRUE AND o.starts_at >= '2029-12-31 00:00'"
                            + " AND o.starts_at < '2030-01-07 00:00'" + live,
                            Map.of("o", p + "occupancy_overlap_ix", "b", "PRIMARY"));
                    // the sweep's candidates, oldest deadline first
                    assertPlan(s, "SELECT booking_id, slot_id, held_until FROM " + booking + " WHERE tenant_id = 't'"
                            + " AND status = 'HELD' AND held_until <= " + now + " ORDER BY held_until, booking_id LIMIT 50",
                            Map.of(booking, p + "booking_held_ix"));
                    assertPlan(s, "UPDATE " + seat + " SET status = 'CLOSED' WHERE tenant_id = 't' AND slot_id = 'slot3'"
                            + " AND status <> 'CLOSED'", Map.of(seat, "PRIMARY|" + p + "slot_seat_(claim|held)_ix"));
                }
            }
        }

        /** Every table named in {@code keys} is read through the index matching its pattern, never scanned. */
        private static void assertPlan(Statement s, String sql, Map<String, String> keys) throws SQLException {
            assertPlan(s, "", sql, keys);
        }

        /** As {@link #assertPlan(Statement, String, Map)}, the statement explained under {@code setStatement}. */
        private static void assertPlan(Statement s, String setStatement, String sql, Map<String, String> keys)
                throws SQLException {
            Map<String, String> used = new HashMap<>();
            List<String> plan = new ArrayList<>();
            try (ResultSet rs = s.executeQuery(setStatement + "EXPLAIN " + sql)) {
                while (rs.next()) {
                    used.put(rs.getString("table"), rs.getString("type") + " " + rs.getString("key"));
                    plan.add(rs.getString("table") + " " + rs.getString("type") + " " + rs.getString("key") + " "
                            + rs.getString("Extra"));
                }
            }
            keys.forEach((table, key) -> assertThat(used.get(table)).as("plan of %s: %s", sql, plan)
                    .isNotNull().doesNotStartWith("ALL ").doesNotStartWith("index ").matches("\\S+ (" + key + ")"));
            assertThat(plan).as("plan of %s", sql).noneMatch(row -> row.contains("filesort"));
        }

        // ------------------------------------------------------------------ calls

        private List<Fact> schedule(String slot, String coach, String room, LocalDateTime start, LocalDateTime end,
                                    int capacity) throws SQLException {
            return call("schedule", t, slot, coach, room, start, end, capacity, LONGEST, null, null, 0, null, null, null, null,
                    false, null, 0, null);
        }

        private List<Fact> hold(String slot, String booking, String request, String student, String status,
                                LocalDateTime now, boolean gateHeld) throws SQLException {
            return call("hold", t, booking, request, slot, student, status, now, HOLD, LONGEST, gateHeld, false, 0, 0, 0L, "AT_BOOKING");
        }

        private List<Fact> confirm(String booking, String student, LocalDateTime now) throws SQLException {
            return call("confirm", t, booking, student, now, HOLD, LONGEST, 0, 0, 0L, "AT_BOOKING");
        }

        private List<Fact> cancel(String booking, String student, LocalDateTime now) throws SQLException {
            return call("cancel", t, booking, student, now, "FREE", null, HOLD, LONGEST, 0, 0, 0L, "AT_BOOKING");
        }

        private List<Fact> cancelSlot(String slot, LocalDateTime now) throws SQLException {
            return call("cancel_slot", t, slot, now);
        }

        private List<Fact> expireDue(LocalDateTime now, int limit) throws SQLException {
            return call("expire_due", t, now, limit, HOLD, LONGEST, 0, 0, 0L, "AT_BOOKING", false, 0L);
        }

        /** CALL prefix+name(args) on an autocommit connection; retried on deadlock (1213) and lock wait timeout (1205). */
        private static List<Fact> call(String name, Object... args) throws SQLException {
            String sql = "CALL " + db.prefix() + name + "(" + "?, ".repeat(args.length - 1) + "?)";
            for (int attempt = 1; ; attempt++) {
                try (Connection c = db.dataSource().getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
                    c.setAutoCommit(true);
                    for (int i = 0; i < args.length; i++) {
                        if (args[i] == null) {
                            ps.setNull(i + 1, Types.TIMESTAMP);
                        } else {
                            ps.setObject(i + 1, args[i]);
                        }
                    }
                    try (ResultSet rs = ps.executeQuery()) {
                        ResultSetMetaData md = rs.getMetaData();
                        List<String> labels = new ArrayList<>();
                        for (int i = 1; i <= md.getColumnCount(); i++) {
                            labels.add(md.getColumnLabel(i));
                        }
                        assertThat(labels).as("columns of %s", name).isEqualTo(COLUMNS);
                        List<Fact> facts = new ArrayList<>();
                        while (rs.next()) {
                            facts.add(new Fact(rs.getString(1), rs.getString(2), rs.getString(3), rs.getString(4),
                                    rs.getString(5), rs.getObject(6, Integer.class), rs.getString(7),
                                    rs.getObject(8, LocalDateTime.class), rs.getObject(9, LocalDateTime.class),
                                    rs.getObject(10, LocalDateTime.class), rs.getString(11), rs.getString(12),
                                    rs.getObject(13, LocalDateTime.class), rs.getObject(14, LocalDateTime.class),
                                    rs.getString(15), rs.getString(16), rs.getObject(17, Integer.class),
                                    rs.getString(18), rs.getObject(19, Integer.class), rs.getString(20)));
                        }
                        return facts;
                    }
                } catch (SQLException e) {
                    if ((e.getErrorCode() == 1213 || e.getErrorCode() == 1205) && attempt < 50) {
                        continue;
                    }
                    throw e;
                }
            }
        }

        // ------------------------------------------------------------------ expected rows

        private static Fact bare(String tag) {
            return new Fact(tag, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null,
                    null, null, null, null);
        }

        private static Fact notOpen(String slot, String status) {
            return new Fact("NOT_OPEN", null, null, slot, null, null, status, null, null, null, null, null, null, null,
                    null, null, null, null, null, null);
        }

        private static Fact booking(String tag, String booking, String request, String slot, String student, int seat,
                                    String status, LocalDateTime heldUntil, LocalDateTime created, LocalDateTime updated) {
            return new Fact(tag, booking, request, slot, student, seat, status, heldUntil, created, updated, null, null,
                    null, null, null, null, null, null, 0, "NONE");
        }

        private static Fact ev(String tag, Fact f) {
            return new Fact(tag, f.bookingId(), f.requestId(), f.slotId(), f.studentId(), f.seat(), f.status(),
                    f.heldUntil(), f.createdAt(), f.updatedAt(), null, null, null, null, null, null, null, f.refId(), f.amount(),
                    f.note());
        }

        private static Fact slotFact(String tag, String slot, String coach, String room, LocalDateTime start,
                                     LocalDateTime end, int capacity, String status) {
            return new Fact(tag, null, null, slot, null, 0, status, null, null, null, null, null, start, end, coach,
                    room, capacity, null, 0, null);
        }

        private static Fact conflict(String kind, String id, String slot, String booking, LocalDateTime start,
                                     LocalDateTime end) {
            return new Fact("CONFLICT", booking, null, slot, null, null, null, null, null, null, kind, id, start, end,
                    null, null, null, null, null, null);
        }

        // ------------------------------------------------------------------ reading back

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

        private static List<Long> longs(String sql, String tenant) throws SQLException {
            try (Connection c = db.dataSource().getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
                ps.setString(1, tenant);
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    List<Long> out = new ArrayList<>();
                    for (int i = 1; i <= rs.getMetaData().getColumnCount(); i++) {
                        out.add(rs.getLong(i));
                    }
                    return out;
                }
            }
        }

        private static long count(String sql, String tenant) throws SQLException {
            return longs(sql, tenant).get(0);
        }

        private static LocalDateTime dbNow() throws SQLException {
            try (Connection c = db.dataSource().getConnection(); Statement s = c.createStatement();
                 ResultSet rs = s.executeQuery("SELECT UTC_TIMESTAMP(6)")) {
                rs.next();
                return rs.getObject(1, LocalDateTime.class);
            }
        }
    }

    /**
     * The booking rules of the MariaDB procedures, called with plain JDBC (CALL on autocommit connections),
     * every verdict read back from the tables: buffers, the cancel policy, limits, the waitlist and its
     * promotion, and two races (one student against his limit, cancels against new holds on a waitlisted slot).
     */
    @Nested
    class Rules extends DirectCalls {
        private static final long LONGEST = 24L * 3600 * 1_000_000; // 24 h in microseconds
        private static final long HOLD = 10L * 60 * 1_000_000; // 10 min
        private static final LocalDateTime T0 = LocalDateTime.of(2030, 1, 1, 8, 0);
        private static final LocalDateTime S10 = LocalDateTime.of(2030, 1, 2, 10, 0);
        private static final LocalDateTime WEEK = LocalDateTime.of(2029, 12, 31, 0, 0);


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
            assertThat(cancel("b5", "st5", T0.plusMinutes(1), "FREE", null)).extracting(Rules::tagOf)
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
            assertThat(cancel("b1", null, late, "FREE", null)).extracting(Rules::tagOf)
                    .containsExactly("CANCELLED", "EV_LATE_CANCELLED");
            assertThat(cancel("b2", "st2", late, "REFUSE", 7200L * 1_000_000)).extracting(Rules::tagOf)
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
            assertThat(answer).extracting(Rules::tagOf)
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

    /**
     * What the nested classes of direct procedure calls share: a database of their own (one nested class
     * at a time), and a fresh tenant per test.
     */
    abstract static class DirectCalls {
        static TestDatabase db;
        String t;

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
    }
}
