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
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.slotbook.core.spi.BookingStore;
import org.slotbook.core.tck.BookingEngineContract;
import org.slotbook.core.tck.BookingStoreContract;
import org.slotbook.core.tck.Concurrent;
import org.slotbook.jdbc.H2Test.Routines.Fact;
import org.slotbook.jdbc.internal.H2Routines;
import org.slotbook.jdbc.testing.TestDatabases;
import org.slotbook.jdbc.testing.TestDatabases.TestDatabase;

/**
 * Every suite on H2 (in memory), one {@code @Nested} class each: the engine and store contracts on one
 * database opened for the class, every other suite on a database of its own.
 */
class H2Test {
    /** The database of the engine and store contracts, which work in fresh tenants and so may share it. */
    private static TestDatabase shared;
    private static JdbcStore sharedStore;

    @BeforeAll
    static void openShared() {
        shared = TestDatabases.h2();
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
         * on) run H2's own claim and delivery statements.
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
            return TestDatabases.h2();
        }

        /** Every key holds the tenant; an earlier schema keyed by its identity alone gets such keys in place. */
        @Test
        void everyKeyHoldsTheTenantAndAnEarlierSchemaGetsSuchKeysInPlace() throws SQLException {
            String prefix = TestDatabases.freshPrefix();
            try (Connection c = db.dataSource().getConnection(); Statement st = c.createStatement()) {
                JdbcSchema.create(db.dataSource(), prefix);
                String keysWithoutTenant = "SELECT COUNT(*) FROM INFORMATION_SCHEMA.TABLE_CONSTRAINTS k"
                        + " WHERE k.CONSTRAINT_TYPE IN ('PRIMARY KEY', 'UNIQUE') AND LEFT(k.TABLE_NAME, "
                        + prefix.length() + ") = UPPER(?) AND NOT EXISTS (SELECT 1 FROM INFORMATION_SCHEMA.KEY_COLUMN_USAGE u"
                        + " WHERE u.CONSTRAINT_NAME = k.CONSTRAINT_NAME AND u.TABLE_NAME = k.TABLE_NAME"
                        + " AND u.COLUMN_NAME = 'TENANT_ID')";
                assertThat(count(keysWithoutTenant, prefix)).as("keys without tenant_id").isZero();
                st.execute("ALTER TABLE " + prefix + "occupancy DROP CONSTRAINT " + prefix + "occupancy_tenant_pk");
                st.execute("ALTER TABLE " + prefix + "occupancy ADD CONSTRAINT " + prefix + "occupancy_pk PRIMARY KEY (id)");
                st.execute("ALTER TABLE " + prefix + "credit_entry DROP CONSTRAINT " + prefix + "credit_entry_tenant_pk");
                st.execute("ALTER TABLE " + prefix + "credit_entry ADD CONSTRAINT " + prefix + "credit_entry_pk"
                        + " PRIMARY KEY (seq)");
                assertThat(count(keysWithoutTenant, prefix)).as("as before").isEqualTo(2);
                JdbcSchema.create(db.dataSource(), prefix);
                assertThat(count(keysWithoutTenant, prefix)).as("after the upgrade").isZero();
                JdbcSchema.create(db.dataSource(), prefix); // and again: nothing left to do
                assertThat(count(keysWithoutTenant, prefix)).isZero();
            } finally {
                TestDatabases.dropSchema(db.dataSource(), JdbcDialect.H2, prefix);
            }
        }
    }

    @Nested
    class RefusedRequests extends RefusedRequestTests {
        @Override
        protected TestDatabase openDatabase() {
            return TestDatabases.h2();
        }
    }

    @Nested
    class Lessons extends LessonsStoreTests {
        @Override
        protected TestDatabase openDatabase() {
            return TestDatabases.h2();
        }
    }

    @Nested
    class RoundTripBudget extends RoundTripBudgetTests {
        @Override
        protected TestDatabase openDatabase() {
            return TestDatabases.h2();
        }
    }

    @Nested
    class OutboxSql extends OutboxSqlTests {
        @Override
        protected TestDatabase openDatabase() {
            return TestDatabases.h2();
        }
    }

    @Nested
    class AllTenantsUpkeep extends AllTenantsUpkeepTests {
        @Override
        protected TestDatabase openDatabase() {
            return TestDatabases.h2();
        }
    }

    @Nested
    class TenantFence extends TenantFenceTests {
        @Override
        protected TestDatabase openDatabase() {
            return TestDatabases.h2();
        }

        /**
         * Not on H2: its fence is written without waiting for the calls in flight (H2 is one process, where a
         * router over several databases is a test set-up), so a hold that read the fence just before it may
         * still commit after the copy's snapshot. The refusals themselves are checked.
         */
        @Override
        void aStaleNodeKeepsSellingOnTheOldShardDuringAMoveAndNoHeldAnswerIsLost() {
        }
    }

    @Nested
    class SchemaDrop extends JdbcSchemaDropTests {
        @Override
        protected TestDatabase openDatabase() {
            return TestDatabases.h2();
        }

        @Test
        void badInputIsRefusedByNameAndDropsNothing() throws SQLException {
            try (TestDatabase db = openDatabase()) {
                Set<String> tables = tables(db, db.prefix());
                assertThatThrownBy(() -> JdbcSchema.drop(null, db.prefix()))
                        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("dataSource");
                assertThatThrownBy(() -> JdbcSchema.drop(db.dataSource(), "Slot; DROP TABLE x"))
                        .isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining("tablePrefix").hasMessageContaining("Slot; DROP TABLE x");
                assertThatThrownBy(() -> JdbcSchema.drop(db.dataSource(), null))
                        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("tablePrefix");
                assertThat(tables).containsAll(TABLES);
                assertThat(tables(db, db.prefix())).isEqualTo(tables);
            }
        }
    }

    /**
     * The H2 one-call routines through plain JDBC, as the Java side calls them: autocommit on,
     * {@code CALL <prefix>routine('<prefix>', ...)}; answers checked row by row against the fact-row
     * contract, and the tables read back by SQL.
     */
    @Nested
    class Routines extends DirectCalls {
        private static final Instant T0 = Instant.parse("2030-01-01T10:00:00Z");
        private static final Instant NOW = Instant.parse("2030-01-01T08:00:00Z");
        private static final long HOLD = Duration.ofMinutes(10).toNanos() / 1000;
        private static final long LONGEST = Duration.ofHours(24).toNanos() / 1000;
        private static final int H2_LOCK_TIMEOUT = 50200;
        private static final int H2_DEADLOCK = 40001;
        private static final int H2_CONCURRENT_UPDATE = 90131;


        // ------------------------------------------------------------------ columns and call forms

        @Test
        void everyRoutineAnswersTheTwentyContractColumnsUnderBothCallForms() throws SQLException {
            schedule("s1", "c1", "r1", T0, T0.plusSeconds(3600), 3);
            try (Connection c = db.dataSource().getConnection()) {
                for (String sql : List.of("CALL " + db.prefix() + "cancel_slot(?, ?, ?, ?)",
                        "SELECT * FROM " + db.prefix() + "cancel_slot(?, ?, ?, ?)")) {
                    try (PreparedStatement ps = c.prepareStatement(sql)) {
                        bind(ps, db.prefix(), tenant, "missing", at(NOW));
                        try (ResultSet rs = ps.executeQuery()) {
                            ResultSetMetaData md = rs.getMetaData();
                            assertThat(md.getColumnCount()).isEqualTo(20);
                            List<String> names = new ArrayList<>();
                            for (int i = 1; i <= 20; i++) {
                                names.add(md.getColumnLabel(i));
                            }
                            assertThat(names).containsExactly("TAG", "BOOKING_ID", "REQUEST_ID", "SLOT_ID", "STUDENT_ID",
                                    "SEAT", "STATUS", "HELD_UNTIL", "CREATED_AT", "UPDATED_AT", "RES_KIND", "RES_ID",
                                    "STARTS_AT", "ENDS_AT", "COACH_ID", "ROOM_ID", "CAPACITY", "REF_ID", "AMOUNT", "NOTE");
                            assertThat(md.getColumnType(6)).isEqualTo(Types.INTEGER);
                            assertThat(md.getColumnType(18)).isEqualTo(Types.VARCHAR);
                            assertThat(md.getColumnType(19)).isEqualTo(Types.INTEGER);
                            assertThat(md.getColumnType(20)).isEqualTo(Types.VARCHAR);
                            assertThat(md.getColumnType(8)).isEqualTo(Types.TIMESTAMP_WITH_TIMEZONE);
                            assertThat(md.getColumnType(17)).isEqualTo(Types.INTEGER);
                            assertThat(rs.next()).isTrue();
                            assertThat(rs.getString("tag")).isEqualTo("NOT_FOUND");
                            assertThat(rs.next()).isFalse();
                        }
                    }
                }
                // the FROM form runs the routine once: one booking, one seat taken
                try (PreparedStatement ps = c.prepareStatement("SELECT tag, seat FROM " + db.prefix()
                        + "hold(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ORDER BY tag")) {
                    bind(ps, db.prefix(), tenant, "b1", "q1", "s1", "st1", "HELD", at(NOW), HOLD, LONGEST, false, false, 0, 0, 0L,
                            "AT_BOOKING");
                    try (ResultSet rs = ps.executeQuery()) {
                        assertThat(rs.next()).isTrue();
                        assertThat(rs.getString(1)).isEqualTo("EV_HELD");
                        assertThat(rs.next()).isTrue();
                        assertThat(rs.getString(1)).isEqualTo("HELD");
                        assertThat(rs.getInt(2)).isEqualTo(1);
                    }
                }
            }
            assertThat(count("booking", "")).isEqualTo(1);
            assertThat(count("slot_seat", " AND status = 'HELD'")).isEqualTo(1);
        }

        /**
         * The aliases are declared DETERMINISTIC, only so that H2 compiles a statement that calls one
         * once instead of at every execution. H2 never reuses the result of a table function (its
         * data modification id is unknown), so the same statement run again with the same arguments
         * runs the routine again: a second identical hold is answered as a replay, and a hold for
         * another request with otherwise the same arguments takes another seat.
         */
        @Test
        void aDeterministicAliasStillRunsItsRoutineAtEveryExecution() throws SQLException {
            schedule("s1", "c1", "r1", T0, T0.plusSeconds(3600), 3);
            String upper = db.prefix().toUpperCase(java.util.Locale.ROOT);
            assertThat(rows("SELECT routine_name, is_deterministic FROM information_schema.routines"
                    + " WHERE routine_schema = SCHEMA() AND routine_name IN (?, ?)", upper + "HOLD", upper + "CONFIRM"))
                    .hasSize(2).extracting(r -> r.get(1)).containsOnly("YES");
            try (Connection c = db.dataSource().getConnection();
                 PreparedStatement ps = c.prepareStatement("SELECT tag, seat FROM " + db.prefix()
                         + "hold(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) WHERE tag IN ('HELD', 'REPLAY')")) {
                List<String> answers = new ArrayList<>();
                for (String[] call : new String[][] {{"b1", "q1", "st1"}, {"b1", "q1", "st1"}, {"b2", "q2", "st2"}}) {
                    bind(ps, db.prefix(), tenant, call[0], call[1], "s1", call[2], "HELD", at(NOW), HOLD, LONGEST, false,
                            false, 0, 0, 0L, "AT_BOOKING");
                    try (ResultSet rs = ps.executeQuery()) {
                        assertThat(rs.next()).isTrue();
                        answers.add(rs.getString(1) + " " + rs.getInt(2));
                        assertThat(rs.next()).isFalse();
                    }
                }
                assertThat(answers).containsExactly("HELD 1", "REPLAY 1", "HELD 2");
            }
            assertThat(count("booking", "")).isEqualTo(2);
            assertThat(count("slot_seat", " AND status = 'HELD'")).isEqualTo(2);
        }

        // ------------------------------------------------------------------ schedule

        @Test
        void scheduleInsertsSlotSeatsAndOccupationsThenAnswersExistsAndConflicts() throws SQLException {
            Instant end = T0.plusSeconds(3600);
            List<Fact> scheduled = schedule("s1", "c1", "r1", T0, end, 5);
            assertThat(scheduled).containsExactly(Fact.slot("SCHEDULED", "s1", "c1", "r1", T0, end, 5, "OPEN"));
            assertThat(rows("SELECT coach_id, room_id, starts_at, ends_at, capacity, status FROM " + db.table("slot")
                    + " WHERE tenant_id = ?", tenant)).containsExactly(List.of("c1", "r1", T0, end, 5, "OPEN"));
            assertThat(rows("SELECT seq, status, booking_id, student_id, held_until FROM " + db.table("slot_seat")
                    + " WHERE tenant_id = ? ORDER BY seq", tenant)).extracting(r -> r.get(0) + "/" + r.get(1)
                    + "/" + r.get(2) + "/" + r.get(3) + "/" + r.get(4))
                    .containsExactly("1/FREE/null/null/null", "2/FREE/null/null/null", "3/FREE/null/null/null",
                            "4/FREE/null/null/null", "5/FREE/null/null/null");
            assertThat(rows("SELECT resource_kind, resource_id, starts_at, ends_at, slot_id, booking_id, active FROM "
                    + db.table("occupancy") + " WHERE tenant_id = ? ORDER BY resource_kind", tenant))
                    .containsExactly(java.util.Arrays.asList("COACH", "c1", T0, end, "s1", null, true),
                            java.util.Arrays.asList("ROOM", "r1", T0, end, "s1", null, true));

            // the same slot again: EXISTS with the stored slot, even with another spec (the caller compares)
            assertThat(schedule("s1", "c9", "r9", T0, end, 7))
                    .containsExactly(Fact.slot("EXISTS", "s1", "c1", "r1", T0, end, 5, "OPEN"));

            // coach and room both busy: one CONFLICT row each, by kind, and nothing written
            Instant later = T0.plusSeconds(1800);
            assertThat(schedule("s2", "c1", "r1", later, later.plusSeconds(3600), 5)).containsExactly(
                    Fact.conflict("COACH", "c1", "s1", null, T0, end),
                    Fact.conflict("ROOM", "r1", "s1", null, T0, end));
            // the room alone
            assertThat(schedule("s2", "c2", "r1", later, later.plusSeconds(3600), 5))
                    .containsExactly(Fact.conflict("ROOM", "r1", "s1", null, T0, end));
            assertThat(count("slot", " AND slot_id = 's2'")).isZero();
            assertThat(count("slot_seat", " AND slot_id = 's2'")).isZero();
            assertThat(count("occupancy", " AND slot_id = 's2'")).isZero();

            // back to back is no overlap; 100,000 seats are created set-wise
            assertThat(schedule("s3", "c1", "r1", end, end.plusSeconds(3600), 100_000))
                    .extracting(Fact::tag).containsExactly("SCHEDULED");
            assertThat(rows("SELECT COUNT(*), MIN(seq), MAX(seq) FROM " + db.table("slot_seat")
                    + " WHERE tenant_id = ? AND slot_id = 's3' AND status = 'FREE'", tenant))
                    .containsExactly(List.of(100_000L, 1, 100_000));
        }

        @Test
        void scheduleLooksBackOnlyAsFarAsTheLongestSessionAndTheLongestBuffer() throws SQLException {
            schedule("long", "c1", "r1", T0, T0.plus(Duration.ofHours(30)), 1);
            Instant start = T0.plus(Duration.ofHours(26));
            // an occupation that started more than "longest" + the longest buffer (24 h) before is not looked
            // at (the caller's bound)
            assertThat(call("schedule", tenant, "s2", "c1", "r2", at(start), at(start.plusSeconds(600)), 1,
                    Duration.ofHours(1).toNanos() / 1000, null, null, 0, null, null, null, null, false, null, 0, null)).extracting(Fact::tag).containsExactly("SCHEDULED");
            assertThat(schedule("s3", "c1", "r3", start.plusSeconds(1200), start.plusSeconds(1800), 1))
                    .extracting(Fact::tag).containsExactly("CONFLICT");
        }

        // ------------------------------------------------------------------ hold

        @Test
        void holdWritesSeatBookingAndOccupation() throws SQLException {
            Instant end = T0.plusSeconds(3600);
            schedule("s1", "c1", "r1", T0, end, 3);
            Instant until = NOW.plus(Duration.ofMinutes(10));
            Fact held = Fact.booking("HELD", "b1", "q1", "s1", "st1", 1, "HELD", until, NOW, NOW);
            assertThat(hold("b1", "q1", "s1", "st1", "HELD", NOW)).containsExactly(held, held.as("EV_HELD"));
            assertThat(rows("SELECT seq, status, booking_id, student_id, held_until FROM " + db.table("slot_seat")
                    + " WHERE tenant_id = ? AND status <> 'FREE'", tenant))
                    .containsExactly(List.of(1, "HELD", "b1", "st1", until));
            assertThat(rows("SELECT booking_id, request_id, slot_id, student_id, seat, status, held_until, created_at,"
                    + " updated_at FROM " + db.table("booking") + " WHERE tenant_id = ?", tenant))
                    .containsExactly(List.of("b1", "q1", "s1", "st1", 1, "HELD", until, NOW, NOW));
            assertThat(rows("SELECT resource_id, starts_at, ends_at, slot_id, booking_id, active FROM "
                    + db.table("occupancy") + " WHERE tenant_id = ? AND resource_kind = 'STUDENT'", tenant))
                    .containsExactly(List.of("st1", T0, end, "s1", "b1", true));
            assertThat(rows("SELECT resource_kind, resource_id FROM " + db.table("resource_lock")
                    + " WHERE tenant_id = ? ORDER BY resource_kind", tenant))
                    .containsExactly(List.of("COACH", "c1"), List.of("ROOM", "r1"), List.of("STUDENT", "st1"));

            // book = hold and confirm in one step
            Fact booked = Fact.booking("HELD", "b2", "q2", "s1", "st2", 2, "CONFIRMED", until, NOW, NOW);
            assertThat(hold("b2", "q2", "s1", "st2", "CONFIRMED", NOW)).containsExactly(booked, booked.as("EV_CONFIRMED"));
            assertThat(rows("SELECT status, booking_id FROM " + db.table("slot_seat")
                    + " WHERE tenant_id = ? AND seq = 2", tenant)).containsExactly(List.of("CONFIRMED", "b2"));

            // a replay of the request, and the same student under another request
            Instant later = NOW.plusSeconds(60);
            assertThat(hold("b9", "q1", "s1", "st1", "HELD", later)).containsExactly(held.as("REPLAY"));
            assertThat(hold("b9", "q9", "s1", "st1", "HELD", later)).containsExactly(held.as("ALREADY"));
            // a replay answers whatever slot and student it was for: the caller refuses a mismatch
            assertThat(hold("b9", "q1", "s1", "st7", "HELD", later)).containsExactly(held.as("REPLAY"));
            assertThat(count("booking", "")).isEqualTo(2);
        }

        @Test
        void holdAnswersNotFoundAndNotOpen() throws SQLException {
            assertThat(hold("b1", "q1", "nope", "st1", "HELD", NOW)).containsExactly(Fact.bare("NOT_FOUND"));
            Instant end = T0.plusSeconds(3600);
            schedule("s1", "c1", "r1", T0, end, 3);
            Fact held = hold("b1", "q1", "s1", "st1", "HELD", NOW).get(0);

            // the slot has ended (now >= ends_at): its status is still OPEN
            assertThat(hold("b2", "q2", "s1", "st2", "HELD", end)).containsExactly(Fact.notOpen("s1", "OPEN"));
            assertThat(hold("b2", "q1", "s1", "st1", "HELD", end)).containsExactly(held.as("REPLAY"));

            cancelSlot("s1", NOW);
            assertThat(hold("b2", "q2", "s1", "st2", "HELD", NOW)).containsExactly(Fact.notOpen("s1", "CANCELLED"));
            Fact replay = hold("b2", "q1", "s1", "st1", "HELD", NOW).get(0);
            assertThat(replay.tag()).isEqualTo("REPLAY");
            assertThat(replay.status()).isEqualTo("CANCELLED");
            assertThat(count("booking", "")).isEqualTo(1);
        }

        @Test
        void aFullSlotAnswersFullReplayOrAlready() throws SQLException {
            schedule("s1", "c1", "r1", T0, T0.plusSeconds(3600), 1);
            Fact held = hold("b1", "q1", "s1", "st1", "HELD", NOW).get(0);
            Instant later = NOW.plusSeconds(60);
            assertThat(hold("b2", "q2", "s1", "st2", "HELD", later)).containsExactly(Fact.bare("FULL"));
            assertThat(hold("b2", "q1", "s1", "st1", "HELD", later)).containsExactly(held.as("REPLAY"));
            assertThat(hold("b2", "q2", "s1", "st1", "HELD", later)).containsExactly(held.as("ALREADY"));
            // the gate said "a seat": the claim itself finds none
            assertThat(call("hold", tenant, "b2", "q2", "s1", "st2", "HELD", at(later), HOLD, LONGEST, true, false, 0, 0, 0L, "AT_BOOKING"))
                    .containsExactly(Fact.bare("FULL"));
            assertThat(count("booking", "")).isEqualTo(1);
            assertThat(count("occupancy", " AND resource_kind = 'STUDENT'")).isEqualTo(1);
            // the refused student was locked (step 4) but nothing of his was written
            assertThat(count("resource_lock", " AND resource_id = 'st2'")).isEqualTo(1);
        }

        @Test
        void anOverlappingOccupationOfTheStudentIsAConflict() throws SQLException {
            Instant end = T0.plusSeconds(3600);
            schedule("s1", "c1", "r1", T0, end, 3);
            schedule("s2", "c2", "r2", T0.plusSeconds(1800), end.plusSeconds(1800), 3);
            schedule("s3", "c3", "r3", end, end.plusSeconds(3600), 3);
            hold("b1", "q1", "s1", "st1", "CONFIRMED", NOW);
            assertThat(hold("b2", "q2", "s2", "st1", "HELD", NOW))
                    .containsExactly(Fact.conflict("STUDENT", "st1", "s1", "b1", T0, end));
            assertThat(count("booking", "")).isEqualTo(1);
            assertThat(count("slot_seat", " AND slot_id = 's2' AND status <> 'FREE'")).isZero();
            // back to back is fine
            assertThat(hold("b3", "q3", "s3", "st1", "HELD", NOW)).extracting(Fact::tag)
                    .containsExactly("HELD", "EV_HELD");
        }

        @Test
        void deadHoldsBlockNothingAndAreRetiredByTheNextHold() throws SQLException {
            Instant end = T0.plusSeconds(3600);
            schedule("s1", "c1", "r1", T0, end, 3);
            schedule("s2", "c2", "r2", T0.plusSeconds(1800), end.plusSeconds(1800), 3);
            Fact first = hold("b1", "q1", "s1", "st1", "HELD", NOW).get(0);
            Instant later = NOW.plus(Duration.ofMinutes(11));
            Instant until = later.plus(Duration.ofMinutes(10));
            Fact second = Fact.booking("HELD", "b2", "q2", "s2", "st1", 1, "HELD", until, later, later);
            assertThat(hold("b2", "q2", "s2", "st1", "HELD", later)).containsExactly(second,
                    first.as("EV_EXPIRED").with("EXPIRED", later), second.as("EV_HELD"));
            assertThat(rows("SELECT status, updated_at FROM " + db.table("booking")
                    + " WHERE tenant_id = ? AND booking_id = 'b1'", tenant)).containsExactly(List.of("EXPIRED", later));
            assertThat(count("slot_seat", " AND slot_id = 's1' AND status = 'FREE'")).isEqualTo(3);
            assertThat(rows("SELECT booking_id FROM " + db.table("occupancy")
                    + " WHERE tenant_id = ? AND resource_kind = 'STUDENT' AND active", tenant))
                    .containsExactly(List.of("b2"));

            // the student's own dead hold of the slot: retired, and a new booking in its place
            Instant third = later.plus(Duration.ofMinutes(11));
            List<Fact> again = hold("b3", "q3", "s2", "st1", "HELD", third);
            assertThat(again).extracting(Fact::tag).containsExactly("HELD", "EV_EXPIRED", "EV_HELD");
            assertThat(again.get(1)).isEqualTo(second.as("EV_EXPIRED").with("EXPIRED", third));
            assertThat(again.get(0).bookingId()).isEqualTo("b3");
            assertThat(rows("SELECT booking_id, status FROM " + db.table("booking")
                    + " WHERE tenant_id = ? ORDER BY booking_id", tenant)).containsExactly(
                    List.of("b1", "EXPIRED"), List.of("b2", "EXPIRED"), List.of("b3", "HELD"));
        }

        @Test
        void aClaimTakesOverAnExpiredSeat() throws SQLException {
            schedule("s1", "c1", "r1", T0, T0.plusSeconds(3600), 1);
            Fact first = hold("b1", "q1", "s1", "st1", "HELD", NOW).get(0);
            Instant later = NOW.plus(Duration.ofMinutes(10)); // held_until <= now: dead
            List<Fact> facts = hold("b2", "q2", "s1", "st2", "HELD", later);
            assertThat(facts).extracting(Fact::tag).containsExactly("HELD", "EV_EXPIRED", "EV_HELD");
            assertThat(facts.get(0).seat()).isEqualTo(1);
            assertThat(facts.get(1)).isEqualTo(first.as("EV_EXPIRED").with("EXPIRED", later));
            assertThat(rows("SELECT status, booking_id, student_id FROM " + db.table("slot_seat")
                    + " WHERE tenant_id = ?", tenant)).containsExactly(List.of("HELD", "b2", "st2"));
            assertThat(rows("SELECT booking_id, status FROM " + db.table("booking")
                    + " WHERE tenant_id = ? ORDER BY booking_id", tenant))
                    .containsExactly(List.of("b1", "EXPIRED"), List.of("b2", "HELD"));
            assertThat(rows("SELECT booking_id, active FROM " + db.table("occupancy")
                    + " WHERE tenant_id = ? AND resource_kind = 'STUDENT' ORDER BY booking_id", tenant))
                    .containsExactly(List.of("b1", false), List.of("b2", true));
        }

        @Test
        void aUniqueViolationPropagatesAndLeavesNothingBehind() throws SQLException {
            schedule("s1", "c1", "r1", T0, T0.plusSeconds(3600), 3);
            hold("b1", "q1", "s1", "st1", "HELD", NOW);
            // a booking id that is taken: the booking insert fails after the seat was claimed
            assertThatThrownBy(() -> hold("b1", "q2", "s1", "st2", "HELD", NOW))
                    .isInstanceOfSatisfying(SQLException.class, e -> assertThat(e.getSQLState()).isEqualTo("23505"));
            assertThat(rows("SELECT seq, status, booking_id FROM " + db.table("slot_seat")
                    + " WHERE tenant_id = ? AND status <> 'FREE'", tenant)).containsExactly(List.of(1, "HELD", "b1"));
            assertThat(count("booking", "")).isEqualTo(1);
            assertThat(count("occupancy", " AND resource_kind = 'STUDENT'")).isEqualTo(1);
            // and the routine still works afterwards
            assertThat(hold("b2", "q2", "s1", "st2", "HELD", NOW)).extracting(Fact::tag).containsExactly("HELD", "EV_HELD");
        }

        @Test
        void badArgumentsAreRefused() {
            assertThatThrownBy(() -> hold("b1", "q1", "s1", "st1", "CANCELLED", NOW))
                    .isInstanceOfSatisfying(SQLException.class, e -> assertThat(e.getSQLState()).isEqualTo("22023"))
                    .hasMessageContaining("p_status");
            assertThatThrownBy(() -> call("expire_due", tenant, at(NOW), 0, HOLD, LONGEST, 0, 0, 0L, "AT_BOOKING", false, 0L))
                    .isInstanceOfSatisfying(SQLException.class, e -> assertThat(e.getSQLState()).isEqualTo("22023"));
            assertThatThrownBy(() -> callWithPrefix("Bad-Prefix", db.prefix() + "expire_due", tenant, at(NOW), 1, HOLD, LONGEST, 0, 0, 0L,
                    "AT_BOOKING", false, 0L))
                    .isInstanceOfSatisfying(SQLException.class, e -> assertThat(e.getSQLState()).isEqualTo("22023"))
                    .hasMessageContaining("tablePrefix");
        }

        // ------------------------------------------------------------------ credits

        @Test
        void aPaidHoldDrawsItsCostOnceAndACancelRefundsItOnce() throws SQLException {
            for (String slot : List.of("paid", "paid2")) {
                Instant start = slot.equals("paid") ? T0 : T0.plusSeconds(7200);
                call("schedule", tenant, slot, "c-" + slot, "r-" + slot, at(start), at(start.plusSeconds(3600)), 2,
                        LONGEST, null, null, 0, null, null, null, null, false, "yoga", 2, null);
            }
            String hold = "CALL " + db.prefix() + "hold(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";
            // no package: refused, nothing written
            assertThat(rows(hold, db.prefix(), tenant, "b1", "q1", "paid", "st1", "HELD", at(NOW), HOLD, LONGEST, false,
                    false, 0, 0, 0L, "AT_BOOKING")).extracting(r -> r.get(0), r -> r.get(3), r -> r.get(5))
                    .containsExactly(org.assertj.core.groups.Tuple.tuple("INSUFFICIENT_CREDITS", "paid", 2));
            assertThat(count("booking", "")).isZero();
            // a package of another class type pays nothing; one for yoga pays
            Instant from = NOW.minusSeconds(86400);
            Instant until = T0.plusSeconds(86400 * 30L);
            String grant = "CALL " + db.prefix() + "grant_package(?, ?, ?, ?, ?, ?, ?, ?, ?)";
            rows(grant, db.prefix(), tenant, "pilates", "st1", 5, at(from), at(until), "pilates", at(NOW));
            List<List<Object>> granted = rows(grant, db.prefix(), tenant, "p1", "st1", 3, at(from), at(until), "yoga",
                    at(NOW));
            assertThat(granted).extracting(r -> r.get(0), r -> r.get(17), r -> r.get(18), r -> r.get(16), r -> r.get(11))
                    .containsExactly(org.assertj.core.groups.Tuple.tuple("GRANTED", "p1", 3, 3, "yoga"));
            assertThat(rows(grant, db.prefix(), tenant, "p1", "st1", 9, at(from), at(until), "", at(NOW)))
                    .extracting(r -> r.get(0), r -> r.get(16)).containsExactly(
                            org.assertj.core.groups.Tuple.tuple("PACKAGE_EXISTS", 3));
            List<List<Object>> held = rows(hold, db.prefix(), tenant, "b1", "q1", "paid", "st1", "HELD", at(NOW), HOLD,
                    LONGEST, false, false, 0, 0, 0L, "AT_BOOKING");
            assertThat(held).extracting(r -> r.get(0), r -> r.get(17), r -> r.get(18), r -> r.get(19)).containsExactly(
                    org.assertj.core.groups.Tuple.tuple("HELD", "p1", 2, "NONE"),
                    org.assertj.core.groups.Tuple.tuple("EV_HELD", "p1", 2, "NONE"));
            // one credit left: the next paid hold is refused
            assertThat(rows(hold, db.prefix(), tenant, "b2", "q2", "paid2", "st1", "HELD", at(NOW), HOLD, LONGEST, false,
                    false, 0, 0, 0L, "AT_BOOKING")).extracting(r -> r.get(0)).containsExactly("INSUFFICIENT_CREDITS");
            assertThat(rows("SELECT remaining FROM " + db.table("lesson_package") + " WHERE tenant_id = ? AND package_id"
                    + " = 'p1'", tenant)).containsExactly(List.of(1));
            // a cancel refunds, a repeated cancel moves nothing
            assertThat(cancel("b1", "st1", NOW).get(0).tag()).isEqualTo("CANCELLED");
            assertThat(cancel("b1", "st1", NOW).get(0).tag()).isEqualTo("ALREADY_CANCELLED");
            assertThat(rows("SELECT reason, delta, booking_id FROM " + db.table("credit_entry") + " WHERE tenant_id = ?"
                    + " AND package_id = 'p1' ORDER BY seq", tenant)).containsExactly(Arrays.asList("GRANT", 3, null),
                    List.of("DRAW", -2, "b1"), List.of("REFUND", 2, "b1"));
            assertThat(rows("SELECT remaining FROM " + db.table("lesson_package") + " WHERE tenant_id = ? AND package_id"
                    + " = 'p1'", tenant)).containsExactly(List.of(3));
            assertThat(rows("SELECT package_id, credits FROM " + db.table("booking") + " WHERE tenant_id = ?", tenant))
                    .containsExactly(Arrays.asList(null, 0));
        }

        // ------------------------------------------------------------------ confirm

        @Test
        void confirmAnswersEveryState() throws SQLException {
            schedule("s1", "c1", "r1", T0, T0.plusSeconds(3600), 3);
            Fact b1 = hold("b1", "q1", "s1", "st1", "HELD", NOW).get(0);
            Instant later = NOW.plusSeconds(60);
            assertThat(confirm("nope", "st1", later)).containsExactly(Fact.bare("NOT_FOUND"));
            assertThat(confirm("b1", "st2", later)).containsExactly(Fact.bare("NOT_FOUND"));
            Fact confirmed = b1.as("CONFIRMED").with("CONFIRMED", later);
            assertThat(confirm("b1", "st1", later)).containsExactly(confirmed, confirmed.as("EV_CONFIRMED"));
            assertThat(rows("SELECT status FROM " + db.table("slot_seat") + " WHERE tenant_id = ? AND booking_id = 'b1'",
                    tenant)).containsExactly(List.of("CONFIRMED"));
            assertThat(rows("SELECT status, updated_at FROM " + db.table("booking")
                    + " WHERE tenant_id = ? AND booking_id = 'b1'", tenant)).containsExactly(List.of("CONFIRMED", later));
            // again: the same answer, no event
            assertThat(confirm("b1", "st1", later.plusSeconds(1))).containsExactly(confirmed);

            // a hold that ran out expires here
            Fact b2 = hold("b2", "q2", "s1", "st2", "HELD", NOW).get(0);
            Instant deadline = NOW.plus(Duration.ofMinutes(10));
            Fact expired = b2.as("HOLD_EXPIRED").with("EXPIRED", deadline);
            assertThat(confirm("b2", "st2", deadline)).containsExactly(expired, expired.as("EV_EXPIRED"));
            assertThat(rows("SELECT status, booking_id FROM " + db.table("slot_seat") + " WHERE tenant_id = ? AND seq = 2",
                    tenant)).containsExactly(java.util.Arrays.asList("FREE", null));
            assertThat(count("occupancy", " AND booking_id = 'b2' AND active")).isZero();
            assertThat(confirm("b2", "st2", deadline.plusSeconds(1))).containsExactly(expired);

            cancel("b1", "st1", later);
            assertThat(confirm("b1", "st1", later)).containsExactly(Fact.bare("ALREADY_CANCELLED"));
        }

        // ------------------------------------------------------------------ cancel

        @Test
        void cancelAnswersEveryState() throws SQLException {
            schedule("s1", "c1", "r1", T0, T0.plusSeconds(3600), 3);
            Fact b1 = hold("b1", "q1", "s1", "st1", "CONFIRMED", NOW).get(0);
            Instant later = NOW.plusSeconds(60);
            assertThat(cancel("nope", "st1", later)).containsExactly(Fact.bare("NOT_FOUND"));
            assertThat(cancel("b1", "st2", later)).containsExactly(Fact.bare("NOT_FOUND"));
            Fact cancelled = b1.as("CANCELLED").with("CANCELLED", later);
            assertThat(cancel("b1", "st1", later)).containsExactly(cancelled, cancelled.as("EV_CANCELLED"));
            assertThat(rows("SELECT status, booking_id, student_id, held_until FROM " + db.table("slot_seat")
                    + " WHERE tenant_id = ? AND seq = 1", tenant)).containsExactly(java.util.Arrays.asList("FREE", null,
                    null, null));
            assertThat(rows("SELECT status, updated_at FROM " + db.table("booking")
                    + " WHERE tenant_id = ? AND booking_id = 'b1'", tenant)).containsExactly(List.of("CANCELLED", later));
            assertThat(count("occupancy", " AND booking_id = 'b1' AND active")).isZero();
            // every repeat: ALREADY_CANCELLED with the booking
            assertThat(cancel("b1", "st1", later.plusSeconds(5))).containsExactly(cancelled.as("ALREADY_CANCELLED"));

            // a hold that ran out: retired here, still ALREADY_CANCELLED
            Fact b2 = hold("b2", "q2", "s1", "st2", "HELD", NOW).get(0);
            Instant deadline = NOW.plus(Duration.ofMinutes(10));
            Fact expired = b2.with("EXPIRED", deadline);
            assertThat(cancel("b2", "st2", deadline))
                    .containsExactly(expired.as("ALREADY_CANCELLED"), expired.as("EV_EXPIRED"));
            assertThat(cancel("b2", "st2", deadline.plusSeconds(1))).containsExactly(expired.as("ALREADY_CANCELLED"));
            assertThat(count("slot_seat", " AND status = 'FREE'")).isEqualTo(3);

            // a live hold is cancelled
            Fact b3 = hold("b3", "q3", "s1", "st3", "HELD", NOW).get(0);
            assertThat(cancel("b3", "st3", later)).extracting(Fact::tag).containsExactly("CANCELLED", "EV_CANCELLED");
            assertThat(count("booking", " AND status = 'CANCELLED'")).isEqualTo(2);
            assertThat(b3.seat()).isEqualTo(1);
        }

        // ------------------------------------------------------------------ cancel_slot

        @Test
        void cancelSlotClosesSeatsCancelsBookingsAndReleasesOccupations() throws SQLException {
            Instant end = T0.plusSeconds(3600);
            assertThat(cancelSlot("nope", NOW)).containsExactly(Fact.bare("NOT_FOUND"));
            schedule("s1", "c1", "r1", T0, end, 4);
            Fact b1 = hold("b1", "q1", "s1", "st1", "HELD", NOW).get(0);
            Fact b2 = hold("b2", "q2", "s1", "st2", "CONFIRMED", NOW).get(0);
            hold("b3", "q3", "s1", "st3", "HELD", NOW);
            cancel("b3", "st3", NOW);
            Instant later = NOW.plusSeconds(60);
            assertThat(cancelSlot("s1", later)).containsExactly(
                    Fact.slot("SLOT_CANCELLED", "s1", "c1", "r1", T0, end, 4, "CANCELLED"),
                    b1.as("EV_CANCELLED").with("CANCELLED", later),
                    b2.as("EV_CANCELLED").with("CANCELLED", later));
            assertThat(rows("SELECT DISTINCT status, booking_id, student_id, held_until FROM " + db.table("slot_seat")
                    + " WHERE tenant_id = ?", tenant)).containsExactly(java.util.Arrays.asList("CLOSED", null, null, null));
            assertThat(rows("SELECT booking_id, status FROM " + db.table("booking")
                    + " WHERE tenant_id = ? ORDER BY booking_id", tenant)).containsExactly(
                    List.of("b1", "CANCELLED"), List.of("b2", "CANCELLED"), List.of("b3", "CANCELLED"));
            assertThat(count("occupancy", " AND active")).isZero();
            assertThat(rows("SELECT status FROM " + db.table("slot") + " WHERE tenant_id = ?", tenant))
                    .containsExactly(List.of("CANCELLED"));
            assertThat(cancelSlot("s1", later)).containsExactly(Fact.bare("ALREADY_CANCELLED"));
            // coach and room are free again for that time
            assertThat(schedule("s2", "c1", "r1", T0, end, 1)).extracting(Fact::tag).containsExactly("SCHEDULED");
        }

        // ------------------------------------------------------------------ expire_due

        @Test
        void expireDueRetiresHoldsThatRanOutOldestFirst() throws SQLException {
            schedule("s1", "c1", "r1", T0, T0.plusSeconds(3600), 5);
            schedule("s2", "c2", "r2", T0.plusSeconds(7200), T0.plusSeconds(9000), 5);
            Fact b1 = hold("b1", "q1", "s1", "st1", "HELD", NOW.plusSeconds(20)).get(0);
            Fact b2 = hold("b2", "q2", "s2", "st2", "HELD", NOW).get(0);
            Fact b3 = hold("b3", "q3", "s1", "st3", "HELD", NOW.plusSeconds(40)).get(0);
            hold("b4", "q4", "s1", "st4", "HELD", NOW.plus(Duration.ofMinutes(5)));
            hold("b5", "q5", "s1", "st5", "CONFIRMED", NOW);
            Instant sweep = NOW.plus(Duration.ofMinutes(11));
            assertThat(expireDue(sweep, 2)).containsExactly(
                    b2.as("EV_EXPIRED").with("EXPIRED", sweep), b1.as("EV_EXPIRED").with("EXPIRED", sweep));
            assertThat(expireDue(sweep, 10)).containsExactly(b3.as("EV_EXPIRED").with("EXPIRED", sweep));
            assertThat(expireDue(sweep, 10)).isEmpty();
            assertThat(rows("SELECT booking_id, status FROM " + db.table("booking")
                    + " WHERE tenant_id = ? ORDER BY booking_id", tenant)).containsExactly(
                    List.of("b1", "EXPIRED"), List.of("b2", "EXPIRED"), List.of("b3", "EXPIRED"), List.of("b4", "HELD"),
                    List.of("b5", "CONFIRMED"));
            assertThat(count("slot_seat", " AND status = 'FREE'")).isEqualTo(10 - 2);
            assertThat(rows("SELECT booking_id FROM " + db.table("occupancy")
                    + " WHERE tenant_id = ? AND resource_kind = 'STUDENT' AND active ORDER BY booking_id", tenant))
                    .containsExactly(List.of("b4"), List.of("b5"));
        }

        // ------------------------------------------------------------------ the database clock

        @Test
        void aNullNowIsTheDatabaseClockReadOncePerCall() throws SQLException {
            Instant start = Instant.now().plus(Duration.ofHours(1));
            schedule("s1", "c1", "r1", start, start.plusSeconds(3600), 2);
            Instant before = Instant.now().truncatedTo(ChronoUnit.MICROS);
            Fact held = call("hold", tenant, "b1", "q1", "s1", "st1", "HELD", null, HOLD, LONGEST, false, false, 0, 0, 0L, "AT_BOOKING").get(0);
            Instant after = Instant.now();
            assertThat(held.tag()).isEqualTo("HELD");
            assertThat(held.createdAt()).isBetween(before, after).isEqualTo(held.updatedAt());
            assertThat(held.heldUntil()).isEqualTo(held.createdAt().plus(Duration.ofMinutes(10)));
            assertThat(rows("SELECT created_at, updated_at, held_until FROM " + db.table("booking")
                    + " WHERE tenant_id = ?", tenant))
                    .containsExactly(List.of(held.createdAt(), held.createdAt(), held.heldUntil()));

            List<Fact> confirmed = call("confirm", tenant, "b1", "st1", null, HOLD, LONGEST, 0, 0, 0L, "AT_BOOKING");
            assertThat(confirmed).extracting(Fact::tag).containsExactly("CONFIRMED", "EV_CONFIRMED");
            assertThat(confirmed.get(0).updatedAt()).isAfterOrEqualTo(held.createdAt()).isBeforeOrEqualTo(Instant.now());
            // a slot that has not started is open by the database clock; the hold has not run out by it
            assertThat(call("expire_due", tenant, null, 10, HOLD, LONGEST, 0, 0, 0L, "AT_BOOKING", false, 0L)).isEmpty();
            assertThat(call("cancel", tenant, "b1", "st1", null, null, null, HOLD, LONGEST, 0, 0, 0L, "AT_BOOKING")).extracting(Fact::tag)
                    .containsExactly("CANCELLED", "EV_CANCELLED");
            assertThat(call("cancel_slot", tenant, "s1", null)).extracting(Fact::tag).containsExactly("SLOT_CANCELLED");
        }

        // ------------------------------------------------------------------ concurrency

        @Test
        void fiftyConcurrentHoldsSellExactlyTheTenSeats() throws Exception {
            schedule("s1", "c1", "r1", T0, T0.plusSeconds(3600), 10);
            List<List<Fact>> answers = Concurrent.run(50, 50, i -> hold("b" + i, "q" + i, "s1", "st" + i, "HELD", NOW));
            Map<String, Long> tags = answers.stream().map(a -> a.get(0).tag())
                    .collect(Collectors.groupingBy(Function.identity(), Collectors.counting()));
            assertThat(tags).containsExactlyInAnyOrderEntriesOf(Map.of("HELD", 10L, "FULL", 40L));
            assertThat(count("slot_seat", " AND status = 'HELD' AND booking_id IS NOT NULL")).isEqualTo(10);
            assertThat(count("booking", "")).isEqualTo(10);
            assertThat(rows("SELECT COUNT(DISTINCT seat) FROM " + db.table("booking") + " WHERE tenant_id = ?", tenant))
                    .containsExactly(List.of(10L));
            assertThat(count("occupancy", " AND resource_kind = 'STUDENT' AND active")).isEqualTo(10);
        }

        @Test
        void oneStudentRacingIntoTenOverlappingSlotsGetsOne() throws Exception {
            for (int i = 0; i < 10; i++) {
                schedule("s" + i, "c" + i, "r" + i, T0.plusSeconds(60L * i), T0.plusSeconds(3600 + 60L * i), 5);
            }
            List<List<Fact>> answers = Concurrent.run(10, 10, i -> hold("b" + i, "q" + i, "s" + i, "st1", "HELD", NOW));
            assertThat(answers).filteredOn(a -> a.get(0).tag().equals("HELD")).hasSize(1);
            assertThat(answers).filteredOn(a -> a.get(0).tag().equals("CONFLICT")).hasSize(9);
            assertThat(count("occupancy", " AND resource_kind = 'STUDENT' AND resource_id = 'st1' AND active"))
                    .isEqualTo(1);
            assertThat(count("booking", "")).isEqualTo(1);
            assertThat(count("slot_seat", " AND status <> 'FREE'")).isEqualTo(1);
        }

        @Test
        void twentyConcurrentCancelsCancelOnce() throws Exception {
            schedule("s1", "c1", "r1", T0, T0.plusSeconds(3600), 3);
            hold("b1", "q1", "s1", "st1", "CONFIRMED", NOW);
            List<List<Fact>> answers = Concurrent.run(20, 20, i -> cancel("b1", "st1", NOW.plusSeconds(60)));
            Map<String, Long> tags = answers.stream().map(a -> a.get(0).tag())
                    .collect(Collectors.groupingBy(Function.identity(), Collectors.counting()));
            assertThat(tags).containsExactlyInAnyOrderEntriesOf(Map.of("CANCELLED", 1L, "ALREADY_CANCELLED", 19L));
            assertThat(answers.stream().flatMap(List::stream).filter(f -> f.tag().equals("EV_CANCELLED"))).hasSize(1);
            assertThat(count("slot_seat", " AND status = 'FREE'")).isEqualTo(3);
            assertThat(rows("SELECT status FROM " + db.table("booking") + " WHERE tenant_id = ?", tenant))
                    .containsExactly(List.of("CANCELLED"));
        }

        // ------------------------------------------------------------------ plans

        @Test
        void everyStatementUsesItsIndexOnAFreshSchemaAndOnAFullOne() throws SQLException {
            try (TestDatabase fresh = TestDatabases.h2()) {
                checkPlans(fresh);
                try (Connection c = fresh.dataSource().getConnection(); PreparedStatement ps = c.prepareStatement(
                        "CALL " + fresh.prefix() + "schedule(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")) {
                    bind(ps, fresh.prefix(), "t", "s", "c", "r", at(T0), at(T0.plusSeconds(3600)), 2000, LONGEST, null, null, 0, null, null, null, null, false,
                            null, 0, null);
                    ps.executeQuery().close();
                    for (int i = 0; i < 50; i++) {
                        try (PreparedStatement hold = c.prepareStatement(
                                "CALL " + fresh.prefix() + "hold(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")) {
                            bind(hold, fresh.prefix(), "t", "b" + i, "q" + i, "s", "st" + i, "HELD", at(NOW), HOLD,
                                    LONGEST, false, false, 0, 0, 0L, "AT_BOOKING");
                            hold.executeQuery().close();
                        }
                    }
                }
                checkPlans(fresh);
            }
        }

        /** The index each statement must use (its first index in the plan); inserts have none. */
        private static final Map<String, String> INTENDED_INDEX = Map.ofEntries(
                Map.entry("fenceState", "PRIMARY_KEY"),
                Map.entry("lockResource", "PRIMARY_KEY"),
                Map.entry("findSlot", "PRIMARY_KEY"),
                Map.entry("lockSlot", "PRIMARY_KEY"),
                Map.entry("lockSlotRow", "PRIMARY_KEY"),
                Map.entry("updateSlot", "PRIMARY_KEY"),
                Map.entry("slots", "PRIMARY_KEY"),
                Map.entry("seriesSlots", "SLOT_SERIES_IX"),
                Map.entry("freeSeat", "SLOT_SEAT_CLAIM_IX"),
                Map.entry("takeFreeSeat", "PRIMARY_KEY"),
                Map.entry("syncSeat", "PRIMARY_KEY"),
                Map.entry("releaseSeat", "PRIMARY_KEY"),
                Map.entry("closeSeats", "PRIMARY_KEY"),
                Map.entry("seated", "BOOKING_SLOT_IX"),
                Map.entry("findBooking", "PRIMARY_KEY"),
                Map.entry("lockBooking", "PRIMARY_KEY"),
                Map.entry("bookingOfRequest", "BOOKING_REQUEST_UK"),
                Map.entry("findActive", "BOOKING_SLOT_IX"),
                Map.entry("holdProbe", "SLOT_SEAT_CLAIM_IX"),
                Map.entry("holdProbeFenced", "SLOT_SEAT_CLAIM_IX"),
                Map.entry("holdProbeLocked", "SLOT_SEAT_CLAIM_IX"),
                Map.entry("findBookingFenced", "PRIMARY_KEY"),
                Map.entry("oldestDeadHold", "SLOT_SEAT_HELD_IX"),
                Map.entry("updateBooking", "PRIMARY_KEY"),
                Map.entry("lateCancel", "PRIMARY_KEY"),
                Map.entry("dueHolds", "BOOKING_HELD_IX"),
                Map.entry("unattended", "BOOKING_UNATTENDED_IX"),
                Map.entry("bookingsOf", "OCCUPANCY_OVERLAP_IX"),
                Map.entry("overlaps", "OCCUPANCY_OVERLAP_IX"),
                Map.entry("releaseBooking", "OCCUPANCY_BOOKING_IX"),
                Map.entry("releaseSlot", "OCCUPANCY_SLOT_IX"),
                Map.entry("findWaiter", "PRIMARY_KEY"),
                Map.entry("waitingOfSlot", "WAITER_SLOT_IX"),
                Map.entry("setWaiter", "PRIMARY_KEY"),
                Map.entry("findPackage", "PRIMARY_KEY"),
                Map.entry("lockPackage", "PRIMARY_KEY"),
                Map.entry("packagesOf", "LESSON_PACKAGE_STUDENT_IX"),
                Map.entry("movePackage", "PRIMARY_KEY"),
                Map.entry("journal", "CREDIT_ENTRY_PACKAGE_IX"));

        private static final Pattern FIRST_INDEX = Pattern.compile("/\\* PUBLIC\\.(\\S+):");

        private static void checkPlans(TestDatabase database) throws SQLException {
            Map<String, String> statements = H2Routines.statements(database.prefix());
            assertThat(statements.keySet()).containsAll(INTENDED_INDEX.keySet());
            try (Connection c = database.dataSource().getConnection()) {
                for (Map.Entry<String, String> statement : statements.entrySet()) {
                    String intended = INTENDED_INDEX.get(statement.getKey());
                    if (intended == null) {
                        assertThat(statement.getValue()).as(statement.getKey()).matches("(INSERT|MERGE) .*");
                        continue;
                    }
                    String plan = explain(c, statement.getValue());
                    Matcher first = FIRST_INDEX.matcher(plan);
                    assertThat(first.find()).as(statement.getKey() + ": " + plan).isTrue();
                    // H2 names a primary key's index PRIMARY_KEY_n; the others carry the table prefix
                    String expected = intended.equals("PRIMARY_KEY") ? intended
                            : database.prefix().toUpperCase() + intended;
                    assertThat(first.group(1)).as(statement.getKey() + ": " + plan).startsWith(expected);
                    assertThat(plan).as(statement.getKey()).doesNotContainIgnoringCase("tableScan");
                }
                // a hold's probe: the slot by its key, its free seat and its dead hold by their own index, the
                // request's booking, its waitlist entry and the student's booking of the slot, each by its index
                String request = explain(c, statements.get("holdProbe"));
                assertThat(request).contains("PRIMARY_KEY", "SLOT_SEAT_CLAIM_IX", "SLOT_SEAT_HELD_IX",
                        "BOOKING_REQUEST_UK", "BOOKING_SLOT_IX");
                assertThat(request).containsPattern("_WAITER\"\\s*/\\* PUBLIC\\.PRIMARY_KEY");
                // the oldest dead hold: its seat by the held-seat index, its booking by key
                assertThat(explain(c, statements.get("oldestDeadHold"))).contains("SLOT_SEAT_HELD_IX", "PRIMARY_KEY");
            }
        }

        private static String explain(Connection c, String sql) throws SQLException {
            try (PreparedStatement ps = c.prepareStatement("EXPLAIN " + sql)) {
                for (int i = 1; i <= ps.getParameterMetaData().getParameterCount(); i++) {
                    ps.setObject(i, null);
                }
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    return rs.getString(1);
                }
            }
        }

        // ------------------------------------------------------------------ helpers

        private List<Fact> schedule(String slot, String coach, String room, Instant start, Instant end, int capacity)
                throws SQLException {
            return call("schedule", tenant, slot, coach, room, at(start), at(end), capacity, LONGEST, null, null, 0, null, null, null, null, false, null, 0, null);
        }

        private List<Fact> hold(String booking, String request, String slot, String student, String status, Instant now)
                throws SQLException {
            return call("hold", tenant, booking, request, slot, student, status, at(now), HOLD, LONGEST, false, false, 0, 0, 0L, "AT_BOOKING");
        }

        private List<Fact> confirm(String booking, String student, Instant now) throws SQLException {
            return call("confirm", tenant, booking, student, at(now), HOLD, LONGEST, 0, 0, 0L, "AT_BOOKING");
        }

        private List<Fact> cancel(String booking, String student, Instant now) throws SQLException {
            return call("cancel", tenant, booking, student, at(now), null, null, HOLD, LONGEST, 0, 0, 0L, "AT_BOOKING");
        }

        private List<Fact> cancelSlot(String slot, Instant now) throws SQLException {
            return call("cancel_slot", tenant, slot, at(now));
        }

        private List<Fact> expireDue(Instant now, int limit) throws SQLException {
            return call("expire_due", tenant, at(now), limit, HOLD, LONGEST, 0, 0, 0L, "AT_BOOKING", false, 0L);
        }

        /** {@code CALL <prefix>routine('<prefix>', args...)} in autocommit, retried on lock timeouts and deadlocks. */
        private List<Fact> call(String routine, Object... args) throws SQLException {
            return callWithPrefix(db.prefix(), db.prefix() + routine, args);
        }

        private List<Fact> callWithPrefix(String prefix, String alias, Object... args) throws SQLException {
            return H2Test.call(db, prefix, alias, args);
        }

        /** Rows of the tenant's table matching {@code where} (an " AND ..." suffix). */
        private long count(String table, String where) throws SQLException {
            return (Long) rows("SELECT COUNT(*) FROM " + db.table(table) + " WHERE tenant_id = ?" + where, tenant)
                    .get(0).get(0);
        }

        /** Query results as lists of values; timestamps as Instants. */
        private static List<List<Object>> rows(String sql, Object... args) throws SQLException {
            return H2Test.rows(db, sql, args);
        }

        /** One fact row, as the contract lays it out. */
        record Fact(String tag, String bookingId, String requestId, String slotId, String studentId, Integer seat,
                    String status, Instant heldUntil, Instant createdAt, Instant updatedAt, String resKind, String resId,
                    Instant startsAt, Instant endsAt, String coachId, String roomId, Integer capacity) {

            static Fact read(ResultSet rs) throws SQLException {
                return new Fact(rs.getString(1), rs.getString(2), rs.getString(3), rs.getString(4), rs.getString(5),
                        rs.getObject(6, Integer.class), rs.getString(7), time(rs, 8), time(rs, 9), time(rs, 10),
                        rs.getString(11), rs.getString(12), time(rs, 13), time(rs, 14), rs.getString(15),
                        rs.getString(16), rs.getObject(17, Integer.class));
            }

            private static Instant time(ResultSet rs, int column) throws SQLException {
                OffsetDateTime value = rs.getObject(column, OffsetDateTime.class);
                return value == null ? null : value.toInstant();
            }

            static Fact booking(String tag, String bookingId, String requestId, String slotId, String studentId,
                                int seat, String status, Instant heldUntil, Instant createdAt, Instant updatedAt) {
                return new Fact(tag, bookingId, requestId, slotId, studentId, seat, status, heldUntil, createdAt,
                        updatedAt, null, null, null, null, null, null, null);
            }

            static Fact conflict(String kind, String resource, String slotId, String bookingId, Instant start,
                                 Instant end) {
                return new Fact("CONFLICT", bookingId, null, slotId, null, null, null, null, null, null, kind, resource,
                        start, end, null, null, null);
            }

            static Fact slot(String tag, String slotId, String coach, String room, Instant start, Instant end,
                             int capacity, String status) {
                return new Fact(tag, null, null, slotId, null, 0, status, null, null, null, null, null, start, end,
                        coach, room, capacity);
            }

            static Fact notOpen(String slotId, String status) {
                return new Fact("NOT_OPEN", null, null, slotId, null, null, status, null, null, null, null, null, null,
                        null, null, null, null);
            }

            static Fact bare(String tag) {
                return new Fact(tag, null, null, null, null, null, null, null, null, null, null, null, null, null, null,
                        null, null);
            }

            Fact as(String newTag) {
                return new Fact(newTag, bookingId, requestId, slotId, studentId, seat, status, heldUntil, createdAt,
                        updatedAt, resKind, resId, startsAt, endsAt, coachId, roomId, capacity);
            }

            /** The booking row after a transition at {@code now}. */
            Fact with(String newStatus, Instant now) {
                return new Fact(tag, bookingId, requestId, slotId, studentId, seat, newStatus, heldUntil, createdAt, now,
                        resKind, resId, startsAt, endsAt, coachId, roomId, capacity);
            }
        }
    }

    /**
     * The booking rules of the H2 routines (window, buffers, cancel policy, limits, waitlist and
     * promotion), called as the Java side calls them, each verdict read back from the tables by SQL.
     */
    @Nested
    class Rules extends DirectCalls {
        private static final Instant T0 = Instant.parse("2030-01-07T10:00:00Z"); // a Monday
        private static final Instant NOW = Instant.parse("2030-01-06T08:00:00Z");
        private static final Instant WEEK = Instant.parse("2030-01-07T00:00:00Z");
        private static final long HOLD = Duration.ofMinutes(10).toNanos() / 1000;
        private static final long LONGEST = Duration.ofHours(24).toNanos() / 1000;


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
        void aSchemaWithSeparateChecksEndsWithOneCheckPerWrittenTableAndTheSameRules() throws SQLException {
            String prefix = TestDatabases.freshPrefix();
            JdbcSchema.create(db.dataSource(), prefix);
            // the checks as schemas created before had them, one constraint per rule
            try (Connection c = db.dataSource().getConnection(); Statement s = c.createStatement()) {
                for (String check : List.of(
                        "slot_seat ADD CONSTRAINT " + prefix + "slot_seat_status_ck"
                                + " CHECK (status IN ('FREE', 'HELD', 'CONFIRMED', 'CLOSED'))",
                        "booking ADD CONSTRAINT " + prefix + "booking_status_ck"
                                + " CHECK (status IN ('HELD', 'CONFIRMED', 'CANCELLED', 'EXPIRED'))",
                        "booking ADD CONSTRAINT " + prefix + "booking_attendance_ck"
                                + " CHECK (attendance IN ('NONE', 'CHECKED_IN', 'NO_SHOW'))",
                        "booking ADD CONSTRAINT " + prefix + "booking_credits_ck"
                                + " CHECK ((credits > 0) = (package_id IS NOT NULL) AND credits >= 0)",
                        "waiter ADD CONSTRAINT " + prefix + "waiter_status_ck"
                                + " CHECK (status IN ('WAITING', 'PROMOTED', 'LEFT', 'SKIPPED'))",
                        "waiter ADD CONSTRAINT " + prefix + "waiter_reason_ck"
                                + " CHECK (reason IN ('CONFLICT', 'LIMIT', 'ALREADY_BOOKED', 'NO_CREDITS'))",
                        "lesson_package ADD CONSTRAINT " + prefix + "lesson_package_credits_ck CHECK (credits > 0)",
                        "credit_entry ADD CONSTRAINT " + prefix + "credit_entry_reason_ck"
                                + " CHECK (reason IN ('GRANT', 'DRAW', 'REFUND', 'FORFEIT'))")) {
                    s.execute("ALTER TABLE " + prefix + check);
                }
            }
            JdbcSchema.create(db.dataSource(), prefix);
            JdbcSchema.create(db.dataSource(), prefix);
            for (String table : List.of("slot_seat", "booking", "waiter", "lesson_package", "credit_entry")) {
                assertThat(rows("SELECT COUNT(*) FROM INFORMATION_SCHEMA.TABLE_CONSTRAINTS WHERE TABLE_NAME = ?"
                        + " AND CONSTRAINT_TYPE = 'CHECK'", (prefix + table).toUpperCase())).as(table)
                        .containsExactly(List.of(1L));
            }
            // the folded checks refuse what the separate ones did
            try (Connection c = db.dataSource().getConnection(); Statement s = c.createStatement()) {
                s.execute("INSERT INTO " + prefix + "slot_seat (tenant_id, slot_id, seq, status)"
                        + " VALUES ('t', 's', 1, 'FREE')");
                s.execute("INSERT INTO " + prefix + "booking (tenant_id, booking_id, request_id, slot_id, student_id,"
                        + " seat, status, held_until, created_at, updated_at) VALUES ('t', 'b', 'q', 's', 'st', 1,"
                        + " 'HELD', CURRENT_TIMESTAMP, CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)");
                for (String bad : List.of(
                        "UPDATE " + prefix + "slot_seat SET status = 'GONE'",
                        "UPDATE " + prefix + "booking SET status = 'GONE'",
                        "UPDATE " + prefix + "booking SET attendance = 'LATE'",
                        "UPDATE " + prefix + "booking SET credits = 2",
                        "INSERT INTO " + prefix + "waiter (tenant_id, request_id, slot_id, student_id, booking_id,"
                                + " status, reason, joined_at, updated_at) VALUES ('t', 'q', 's', 'st', 'b', 'GONE',"
                                + " NULL, CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)",
                        "INSERT INTO " + prefix + "waiter (tenant_id, request_id, slot_id, student_id, booking_id,"
                                + " status, reason, joined_at, updated_at) VALUES ('t', 'q', 's', 'st', 'b', 'SKIPPED',"
                                + " 'BORED', CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)",
                        "INSERT INTO " + prefix + "lesson_package (tenant_id, package_id, student_id, credits, remaining,"
                                + " valid_from, valid_until, granted_at) VALUES ('t', 'p', 'st', 0, 0,"
                                + " CURRENT_TIMESTAMP, CURRENT_TIMESTAMP + INTERVAL '1' DAY, CURRENT_TIMESTAMP)",
                        "INSERT INTO " + prefix + "credit_entry (tenant_id, package_id, reason, delta, booking_id, at)"
                                + " VALUES ('t', 'p', 'GIFT', 1, 'b', CURRENT_TIMESTAMP)")) {
                    assertThatThrownBy(() -> s.execute(bad)).as(bad).isInstanceOf(SQLException.class)
                            .satisfies(e -> assertThat(((SQLException) e).getSQLState()).isEqualTo("23513"));
                }
            }
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
            return H2Test.call(db, db.prefix(), db.prefix() + routine, args);
        }

        private long count(String table, String where) throws SQLException {
            return (Long) rows("SELECT COUNT(*) FROM " + db.table(table) + " WHERE tenant_id = ?" + where, tenant)
                    .get(0).get(0);
        }

        private static List<List<Object>> rows(String sql, Object... args) throws SQLException {
            return H2Test.rows(db, sql, args);
        }

    }

    // ------------------------------------------------------------------ SQL helpers of Routines and Rules

    /** {@code CALL alias(prefix, args...)} in autocommit, retried on lock timeouts and deadlocks. */
    static List<Fact> call(TestDatabase db, String prefix, String alias, Object... args) throws SQLException {
        Object[] all = new Object[args.length + 1];
        all[0] = prefix;
        System.arraycopy(args, 0, all, 1, args.length);
        String sql = "CALL " + alias + "(" + String.join(", ", java.util.Collections.nCopies(all.length, "?")) + ")";
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
                boolean retry = code == Routines.H2_LOCK_TIMEOUT || code == Routines.H2_DEADLOCK
                        || code == Routines.H2_CONCURRENT_UPDATE;
                if (!retry || attempt >= 20) {
                    throw e;
                }
            }
        }
    }

    static void bind(PreparedStatement ps, Object... args) throws SQLException {
        for (int i = 0; i < args.length; i++) {
            ps.setObject(i + 1, args[i]);
        }
    }

    static OffsetDateTime at(Instant instant) {
        return instant.atOffset(ZoneOffset.UTC);
    }

    /** Query results as lists of values; timestamps as Instants. */
    static List<List<Object>> rows(TestDatabase db, String sql, Object... args) throws SQLException {
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

    /**
     * What the nested classes of direct routine calls share: a database of their own (one nested class
     * at a time), and a fresh tenant per test.
     */
    abstract static class DirectCalls {
        static TestDatabase db;
        String tenant;

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
    }
}
