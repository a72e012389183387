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
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.slotbook.core.Booking;
import org.slotbook.core.BookingClosed;
import org.slotbook.core.BookingEngine;
import org.slotbook.core.BookingId;
import org.slotbook.core.BookingRules;
import org.slotbook.core.BookingStatus;
import org.slotbook.core.BookingStoreException;
import org.slotbook.core.CancelResult;
import org.slotbook.core.CancellationPolicy;
import org.slotbook.core.Cancelled;
import org.slotbook.core.CoachId;
import org.slotbook.core.ConfirmResult;
import org.slotbook.core.Confirmed;
import org.slotbook.core.Conflict;
import org.slotbook.core.Full;
import org.slotbook.core.Held;
import org.slotbook.core.HoldPolicy;
import org.slotbook.core.HoldRequest;
import org.slotbook.core.HoldResult;
import org.slotbook.core.LimitReached;
import org.slotbook.core.NotOpenYet;
import org.slotbook.core.RequestId;
import org.slotbook.core.ResourceKind;
import org.slotbook.core.RoomId;
import org.slotbook.core.Scheduled;
import org.slotbook.core.Slot;
import org.slotbook.core.SlotId;
import org.slotbook.core.SlotSpec;
import org.slotbook.core.SlotStatus;
import org.slotbook.core.StudentId;
import org.slotbook.core.TenantId;
import org.slotbook.core.TimeRange;
import org.slotbook.core.TooLateToCancel;
import org.slotbook.core.Waitlisted;
import org.slotbook.core.memory.InMemorySeatReservation;
import org.slotbook.core.shard.ShardMapping;
import org.slotbook.core.shard.TenantRoutedStore;
import org.slotbook.core.spi.BookingEvent;
import org.slotbook.core.spi.BookingStore;
import org.slotbook.core.spi.HoldCommand;
import org.slotbook.core.spi.StoreOutcome;
import org.slotbook.core.spi.Terms;
import org.slotbook.core.tck.BookingEngineContract;
import org.slotbook.core.tck.BookingStoreContract;
import org.slotbook.core.tck.Concurrent;
import org.slotbook.core.tck.Fixtures;
import org.slotbook.jdbc.internal.SqlDialect;
import org.slotbook.jdbc.internal.Tables;
import org.slotbook.jdbc.testing.LocalPostgresServer;
import org.slotbook.jdbc.testing.TestDatabases;
import org.slotbook.jdbc.testing.TestDatabases.TestDatabase;

/**
 * Every suite on PostgreSQL, one {@code @Nested} class each: the engine and store contracts on one
 * database opened for the class, every other suite on tables of its own (a fresh prefix). The server is
 * the one {@link TestDatabases#postgres()} finds; without one the class is skipped, or fails when
 * {@code SLOTBOOK_TEST_REQUIRE_SERVICES=true}.
 */
class PostgresTest {
    /** The database of the engine and store contracts, which work in fresh tenants and so may share it. */
    private static TestDatabase shared;
    private static JdbcStore sharedStore;

    @BeforeAll
    static void openShared() {
        shared = TestDatabases.postgres();
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
            return TestDatabases.postgres();
        }

        @Override
        protected String blockedHoldQuery() {
            return "SELECT pid FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%" + db.prefix()
                    + "hold(%' AND pid <> pg_backend_pid()";
        }

        @Override
        protected void kill(long id) {
            boolean killed = sql.withHandle(h -> h.createQuery("SELECT pg_terminate_backend(:pid)")
                    .bind("pid", (int) id).mapTo(Boolean.class).one());
            if (!killed) {
                throw new IllegalStateException("backend " + id + " was not terminated");
            }
        }

        @Test
        void createAloneDoesNotAddTheExclusionConstraint() {
            String prefix = TestDatabases.freshPrefix();
            try {
                JdbcSchema.create(db.dataSource(), prefix);
                assertThat(count("SELECT COUNT(*) FROM pg_class WHERE relname = ?", prefix + "occupancy"))
                        .as("tables created").isEqualTo(1);
                assertThat(count("SELECT COUNT(*) FROM pg_constraint WHERE conname = ?", prefix + "occupancy_no_overlap"))
                        .as("no exclusion constraint without asking for it").isZero();
                assertThat(count("SELECT COUNT(*) FROM pg_constraint WHERE contype = 'x' AND conrelid = to_regclass(?)",
                        prefix + "occupancy")).as("no exclusion constraint of any name").isZero();
                JdbcSchema.createExclusionBackstop(db.dataSource(), prefix);
                JdbcSchema.createExclusionBackstop(db.dataSource(), prefix); // idempotent
                assertThat(count("SELECT COUNT(*) FROM pg_constraint WHERE conname = ?", prefix + "occupancy_no_overlap"))
                        .as("added when asked for").isEqualTo(1);
            } finally {
                TestDatabases.dropSchema(db.dataSource(), JdbcDialect.POSTGRESQL, prefix);
            }
        }

        /** Every key holds tenant_id (what Citus needs to distribute a table); an earlier schema gets such keys in place. */
        @Test
        void everyKeyHoldsTheTenantAndAnEarlierSchemaKeyedByItsIdentityGetsSuchKeysInPlace() throws SQLException {
            String prefix = TestDatabases.freshPrefix();
            try (Connection c = db.dataSource().getConnection(); Statement st = c.createStatement()) {
                JdbcSchema.create(db.dataSource(), prefix);
                String keysWithoutTenant = "SELECT COUNT(*) FROM pg_index i JOIN pg_class t ON t.oid = i.indrelid"
                        + " WHERE (i.indisprimary OR i.indisunique) AND LEFT(t.relname, " + prefix.length() + ") = ?"
                        + " AND NOT EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = t.oid"
                        + " AND a.attname = 'tenant_id' AND a.attnum = ANY (i.indkey))";
                assertThat(count(keysWithoutTenant, prefix)).as("primary and unique keys without tenant_id").isZero();
                st.execute("ALTER TABLE " + prefix + "occupancy DROP CONSTRAINT " + prefix + "occupancy_pk,"
                        + " ADD CONSTRAINT " + prefix + "occupancy_pk PRIMARY KEY (id)");
                st.execute("ALTER TABLE " + prefix + "credit_entry DROP CONSTRAINT " + prefix + "credit_entry_pk,"
                        + " ADD CONSTRAINT " + prefix + "credit_entry_pk PRIMARY KEY (seq)");
                assertThat(count(keysWithoutTenant, prefix)).as("as before").isEqualTo(2);
                JdbcSchema.create(db.dataSource(), prefix);
                assertThat(count(keysWithoutTenant, prefix)).as("after the upgrade").isZero();
                JdbcSchema.create(db.dataSource(), prefix); // and again: nothing left to do
                assertThat(count("SELECT COUNT(*) FROM pg_constraint WHERE conname IN (?, ?) AND contype = 'p'",
                        prefix + "occupancy_pk", prefix + "credit_entry_pk")).isEqualTo(2);
            } finally {
                TestDatabases.dropSchema(db.dataSource(), JdbcDialect.POSTGRESQL, prefix);
            }
        }

        @Test
        void theStatusesAreDomainsThatRefuseAnyOtherValueAndAnEarlierSchemaKeepsItsChecks() throws SQLException {
            String prefix = TestDatabases.freshPrefix();
            String earlier = TestDatabases.freshPrefix();
            try (Connection c = db.dataSource().getConnection(); Statement st = c.createStatement()) {
                JdbcSchema.create(db.dataSource(), prefix);
                JdbcSchema.create(db.dataSource(), prefix); // idempotent
                assertThat(count("SELECT COUNT(*) FROM pg_type WHERE typtype = 'd' AND typname IN (?, ?, ?)",
                        prefix + "seat_status", prefix + "booking_status", prefix + "attendance")).isEqualTo(3);
                // the tables keep one check each: the seat's owner, the booking's credits
                for (String table : List.of("slot_seat", "booking")) {
                    assertThat(count("SELECT COUNT(*) FROM pg_constraint WHERE contype = 'c' AND conrelid = to_regclass(?)",
                            prefix + table)).as(table).isEqualTo(1);
                }
                String seat = "INSERT INTO " + prefix + "slot_seat (tenant_id, slot_id, seq, status, booking_id, student_id,"
                        + " held_until) VALUES ('t', 's', %d, '%s', %s, %s, %s)";
                st.execute(String.format(seat, 1, "FREE", "NULL", "NULL", "NULL"));
                st.execute(String.format(seat, 2, "HELD", "'b'", "'u'", "now()"));
                st.execute(String.format(seat, 3, "CLOSED", "NULL", "NULL", "NULL"));
                for (String bad : List.of(String.format(seat, 4, "TAKEN", "NULL", "NULL", "NULL"),
                        String.format(seat, 5, "HELD", "NULL", "NULL", "NULL"),
                        String.format(seat, 6, "FREE", "'b'", "'u'", "now()"),
                        String.format(seat, 7, "HELD", "'b'", "NULL", "now()"),
                        String.format(seat, 8, "CONFIRMED", "'b'", "'u'", "NULL"))) {
                    assertThatThrownBy(() -> st.execute(bad)).as(bad).isInstanceOfSatisfying(SQLException.class,
                            e -> assertThat(e.getSQLState()).isEqualTo("23514"));
                }
                String booking = "INSERT INTO " + prefix + "booking (tenant_id, booking_id, request_id, slot_id, student_id,"
                        + " seat, status, held_until, created_at, updated_at, attendance) VALUES ('t', '%s', '%s', 's', 'u',"
                        + " 1, '%s', now(), now(), now(), '%s')";
                st.execute(String.format(booking, "b1", "r1", "CONFIRMED", "CHECKED_IN"));
                for (String bad : List.of(String.format(booking, "b2", "r2", "PENDING", "NONE"),
                        String.format(booking, "b3", "r3", "HELD", "LATE"))) {
                    assertThatThrownBy(() -> st.execute(bad)).as(bad).isInstanceOfSatisfying(SQLException.class,
                            e -> assertThat(e.getSQLState()).isEqualTo("23514"));
                }
                assertThat(count("SELECT COUNT(*) FROM " + prefix + "slot_seat")).isEqualTo(3);
                assertThat(count("SELECT COUNT(*) FROM " + prefix + "booking")).isEqualTo(1);

                // tables created before the domains: VARCHAR statuses with CHECK constraints, kept as they are
                st.execute("CREATE TABLE " + earlier + "slot_seat (tenant_id VARCHAR(64) COLLATE \"C\" NOT NULL,"
                        + " slot_id VARCHAR(64) COLLATE \"C\" NOT NULL, seq INTEGER NOT NULL, status VARCHAR(16) NOT NULL,"
                        + " booking_id VARCHAR(64) COLLATE \"C\", student_id VARCHAR(64) COLLATE \"C\", held_until TIMESTAMPTZ,"
                        + " CONSTRAINT " + earlier + "slot_seat_pk PRIMARY KEY (tenant_id, slot_id, seq),"
                        + " CONSTRAINT " + earlier + "slot_seat_status_ck CHECK (status IN ('FREE', 'HELD', 'CONFIRMED', 'CLOSED')))");
                JdbcSchema.create(db.dataSource(), earlier);
                JdbcSchema.create(db.dataSource(), earlier);
                assertThat(count("SELECT COUNT(*) FROM pg_constraint WHERE conname = ?", earlier + "slot_seat_status_ck"))
                        .isEqualTo(1);
                st.execute("SELECT tag FROM " + earlier + "schedule('t', 's', 'c', 'r', now() + interval '1 day',"
                        + " now() + interval '25 hours', 2, 86400000000, NULL, NULL, 0, NULL, NULL, NULL, NULL, FALSE, NULL, 0, NULL)");
                try (ResultSet rs = st.executeQuery("SELECT tag FROM " + earlier + "hold('t', 'b1', 'r1', 's', 'u1', 'HELD',"
                        + " NULL, 600000000, 86400000000, FALSE, FALSE, 0, 0, 0, 'AT_BOOKING')")) {
                    assertThat(rs.next()).isTrue();
                    assertThat(rs.getString(1)).isEqualTo("HELD");
                }
                assertThatThrownBy(() -> st.execute("UPDATE " + earlier + "slot_seat SET status = 'TAKEN' WHERE seq = 2"))
                        .isInstanceOfSatisfying(SQLException.class, e -> assertThat(e.getSQLState()).isEqualTo("23514"));
            } finally {
                JdbcSchema.drop(db.dataSource(), prefix);
                JdbcSchema.drop(db.dataSource(), earlier);
            }
            assertThat(count("SELECT COUNT(*) FROM pg_type WHERE typname LIKE ? OR typname LIKE ?", prefix + "%",
                    earlier + "%")).as("domains and types dropped with the schema").isZero();
        }

        @Test
        void theExclusionConstraintRefusesAnOverlapTheLockPathWasToldToMiss() {
            JdbcSchema.createExclusionBackstop(db.dataSource(), db.prefix());
            assertThat(count("SELECT COUNT(*) FROM pg_constraint WHERE conname = ?", db.table("occupancy_no_overlap")))
                    .as("btree_gist exclusion constraint installed").isEqualTo(1);
            TenantId t = tenant();
            Slot longSession = new Slot(t, SlotId.of("long"), CoachId.of("long-sessions"), RoomId.of("r1"),
                    TimeRange.of(T0, Duration.ofHours(5)), 1, SlotStatus.OPEN);
            schedule(longSession);
            // a caller that understates the longest session makes the overlap query start too late
            Slot late = new Slot(t, SlotId.of("short"), CoachId.of("long-sessions"), RoomId.of("r2"),
                    TimeRange.of(T0.plus(Duration.ofHours(3)), HOUR), 1, SlotStatus.OPEN);
            assertThatThrownBy(() -> store.schedule(t, late, HOUR, java.time.ZoneOffset.UTC))
                    .isInstanceOf(BookingStoreException.class).hasMessageContaining("23P01");
            assertThat(activeOccupations(t, ResourceKind.COACH)).isEqualTo(1);
        }
    }

    @Nested
    class RefusedRequests extends RefusedRequestTests {
        @Override
        protected TestDatabase openDatabase() {
            return TestDatabases.postgres();
        }
    }

    @Nested
    class Lessons extends LessonsStoreTests {
        @Override
        protected TestDatabase openDatabase() {
            return TestDatabases.postgres();
        }
    }

    @Nested
    class RoundTripBudget extends RoundTripBudgetTests {
        @Override
        protected TestDatabase openDatabase() {
            return TestDatabases.postgres();
        }
    }

    @Nested
    class OutboxSql extends OutboxSqlTests {
        @Override
        protected TestDatabase openDatabase() {
            return TestDatabases.postgres();
        }
    }

    @Nested
    class AllTenantsUpkeep extends AllTenantsUpkeepTests {
        @Override
        protected TestDatabase openDatabase() {
            return TestDatabases.postgres();
        }

        /**
         * A page of tenants is read along the slot primary key (an index-only scan, no sort), custom and
         * generic plan alike, on 2,000 tenants of 10 slots each after ANALYZE. (On empty tables the
         * planner sorts a sequential scan instead, which costs nothing there.)
         */
        @Test
        void aPageOfTenantsIsReadAlongTheSlotPrimaryKey() throws SQLException {
            try (TestDatabase fresh = TestDatabases.postgres(); Connection c = fresh.dataSource().getConnection();
                 Statement st = c.createStatement()) {
                String slot = fresh.table("slot");
                String index = fresh.table("slot_pk");
                SqlDialect sql = SqlDialect.of(JdbcDialect.POSTGRESQL, new Tables(fresh.prefix()));
                st.execute("INSERT INTO " + slot + " (tenant_id, slot_id, coach_id, room_id, starts_at, ends_at, capacity,"
                        + " status) SELECT 'tenant-' || lpad((g / 10)::text, 5, '0'), 'slot-' || g, 'c', 'r',"
                        + " now() + g * interval '1 hour', now() + g * interval '1 hour' + interval '30 minutes', 1, 'OPEN'"
                        + " FROM generate_series(1, 20000) g");
                st.execute("ANALYZE " + slot);
                expectIndexOnly(st, sql.tenants(true), "'tenant-00099', 500", index);
                expectIndexOnly(st, sql.tenants(false), "500", index);
                assertThat(fresh.store().tenants(org.slotbook.core.TenantId.of("tenant-00099"), 3))
                        .extracting(org.slotbook.core.TenantId::value)
                        .containsExactly("tenant-00100", "tenant-00101", "tenant-00102");
            }
        }

        private static void expectIndexOnly(Statement st, String statement, String args, String index)
                throws SQLException {
            // the store's statement as the driver sends it: a varchar "after" (when there is one), an int limit
            boolean after = statement.contains("tenant_id > ?");
            st.execute("PREPARE page (" + (after ? "varchar, int" : "int") + ") AS "
                    + statement.replaceFirst("\\?", "\\$1").replaceFirst("\\?", "\\$2"));
            try {
                for (String mode : List.of("force_custom_plan", "force_generic_plan")) {
                    st.execute("SET plan_cache_mode = " + mode);
                    StringBuilder plan = new StringBuilder();
                    try (ResultSet rs = st.executeQuery("EXPLAIN (COSTS OFF) EXECUTE page (" + args + ")")) {
                        while (rs.next()) {
                            plan.append(rs.getString(1)).append('\n');
                        }
                    }
                    assertThat(plan.toString()).as(mode + " plan of " + statement)
                            .contains("Index Only Scan using " + index + " ").doesNotContain("Seq Scan").doesNotContain("Sort");
                }
            } finally {
                st.execute("RESET plan_cache_mode");
                st.execute("DEALLOCATE page");
            }
        }
    }

    @Nested
    class TenantFence extends TenantFenceTests {
        @Override
        protected TestDatabase openDatabase() {
            return TestDatabases.postgres();
        }
    }

    @Nested
    class SchemaDrop extends JdbcSchemaDropTests {
        @Override
        protected TestDatabase openDatabase() {
            return TestDatabases.postgres();
        }

        /** A stale overload, as an older release's routine with other parameters would be. */
        @Override
        protected void leaveStaleRoutines(TestDatabase db) throws SQLException {
            try (Connection c = db.dataSource().getConnection(); Statement st = c.createStatement()) {
                st.execute("CREATE FUNCTION " + db.prefix() + "hold(p INTEGER) RETURNS INTEGER LANGUAGE sql AS 'SELECT p'");
            }
        }

        @Test
        void createTwiceKeepsOneFactTypeAndDropRemovesIt() throws SQLException {
            try (TestDatabase db = openDatabase()) {
                String prefix = TestDatabases.freshPrefix();
                JdbcSchema.create(db.dataSource(), prefix);
                JdbcSchema.create(db.dataSource(), prefix);
                assertThat(types(db, prefix)).isEqualTo(prefix + "fact");
                assertThat(answers(db, prefix + "hold")).isEqualTo(prefix + "fact");
                JdbcSchema.drop(db.dataSource(), prefix);
                assertThat(types(db, prefix)).as("types after drop").isNull();
            }
        }

        /** A release whose functions answered a table of their own columns: create replaces them. */
        @Test
        void createReplacesAFunctionThatAnsweredATableOfItsOwn() throws SQLException {
            try (TestDatabase db = openDatabase()) {
                String prefix = TestDatabases.freshPrefix();
                try (Connection c = db.dataSource().getConnection(); Statement st = c.createStatement()) {
                    st.execute("CREATE FUNCTION " + prefix + "cancel_slot(p_tenant VARCHAR, p_slot VARCHAR,"
                            + " p_now TIMESTAMPTZ) RETURNS TABLE (tag VARCHAR, note VARCHAR) LANGUAGE sql"
                            + " AS 'SELECT NULL::VARCHAR, NULL::VARCHAR'");
                }
                try {
                    JdbcSchema.create(db.dataSource(), prefix);
                    assertThat(answers(db, prefix + "cancel_slot")).isEqualTo(prefix + "fact");
                } finally {
                    JdbcSchema.drop(db.dataSource(), prefix);
                }
            }
        }

        /** The row types (not a table's) whose names start with {@code prefix}, comma-separated; null when none. */
        private static String types(TestDatabase db, String prefix) throws SQLException {
            return text(db, "SELECT string_agg(c.relname, ',' ORDER BY c.relname) FROM pg_class c"
                    + " WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind = 'c'"
                    + " AND left(c.relname, length($1)) = $1", prefix);
        }

        /** The result types of the functions named {@code name}, comma-separated. */
        private static String answers(TestDatabase db, String name) throws SQLException {
            return text(db, "SELECT string_agg(DISTINCT p.prorettype::regtype::text, ',') FROM pg_proc p"
                    + " WHERE p.pronamespace = current_schema()::regnamespace AND p.proname = $1", name);
        }

        private static String text(TestDatabase db, String sql, String arg) throws SQLException {
            try (Connection c = db.dataSource().getConnection(); PreparedStatement ps = c.prepareStatement(
                    sql.replace("$1", "?"))) {
                for (int k = 1; k <= ps.getParameterMetaData().getParameterCount(); k++) {
                    ps.setString(k, arg);
                }
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    return rs.getString(1);
                }
            }
        }
    }

    /**
     * A ledger sharded by tenant over two real PostgreSQL servers: the one the tests are pointed at and a
     * second one this class starts on a free loopback port. The engine contract passes through the routed
     * store; a shard that is stopped fails only its own tenants; a tenant moves between the servers with
     * {@link TenantMove}, checked by SQL on both.
     */
    @Nested
    class Sharded {
        private static LocalPostgresServer server;
        private static TestDatabase main;
        private static TestDatabase spare;
        private static final Map<TenantId, String> TABLE = new ConcurrentHashMap<>();
        private static TenantRoutedStore routed;

        @BeforeAll
        static void twoServers() {
            main = TestDatabases.postgres();
            server = LocalPostgresServer.start();
            spare = TestDatabases.at("PostgreSQL (second server)", server.jdbcUrl() + "&connectTimeout=2", 2_000);
            routed = TenantRoutedStore.builder()
                    .shard("main", main.store())
                    .shard("spare", spare.store())
                    .mapping(ShardMapping.table(TABLE, ShardMapping.rendezvous(List.of("main", "spare"))))
                    .shardBackoff(Duration.ofMillis(200))
                    .build();
        }

        @AfterAll
        static void stopServers() {
            if (spare != null) {
                spare.close();
            }
            if (main != null) {
                main.close();
            }
            if (server != null) {
                server.close();
            }
        }

        @Nested
        class EngineContractAcrossTwoServers extends BookingEngineContract {
            @Override
            protected BookingStore store() {
                return routed;
            }

            @Override
            protected int raceThreads() {
                return 8;
            }

            /**
             * Each server runs PostgreSQL's SQL, which {@link EngineContract} relays 10,000 events over; what is
             * proven here is the routing across the two.
             */
            @Override
            public int relayedEvents() {
                return 2_000;
            }
        }

        private final Instant start = Instant.now().truncatedTo(ChronoUnit.HOURS).plus(Duration.ofDays(2));

        private BookingEngine engine(InMemorySeatReservation gate) {
            return BookingEngine.builder().store(routed).reservation(gate).holdPolicy(HoldPolicy.ofDefaults()).build();
        }

        private void schedule(BookingEngine engine, TenantId tenant, SlotId slot, int seats, int hour) {
            engine.schedule(tenant, new SlotSpec(slot, CoachId.of("coach-" + slot.value()), RoomId.of("room-" + slot.value()),
                    TimeRange.of(start.plus(Duration.ofHours(hour)), Duration.ofMinutes(50)), seats));
        }

        private static Booking book(BookingEngine engine, TenantId tenant, SlotId slot, String student) {
            HoldResult result = engine.hold(tenant, HoldRequest.of(RequestId.random(), slot, StudentId.of(student)));
            assertThat(result).as("%s holds %s", student, slot).isInstanceOf(Held.class);
            return ((Held) result).booking();
        }

        @Test
        void withTheSecondServerStoppedItsTenantsFailAndTheOthersAreServedAndNothingIsLost()
                throws InterruptedException {
            TenantId onMain = Fixtures.tenant();
            TenantId onSpare = Fixtures.tenant();
            TABLE.put(onMain, "main");
            TABLE.put(onSpare, "spare");
            BookingEngine engine = engine(InMemorySeatReservation.create());
            SlotId slot = SlotId.of("pilates");
            schedule(engine, onMain, slot, 4, 0);
            schedule(engine, onSpare, slot, 4, 0);
            Booking before = book(engine, onSpare, slot, "before");

            server.stop();
            try {
                book(engine, onMain, slot, "during-1");
                book(engine, onMain, slot, "during-2");
                assertThatThrownBy(() -> engine.hold(onSpare, HoldRequest.of(RequestId.random(), slot,
                        StudentId.of("during")))).isInstanceOf(BookingStoreException.class);
                assertThatThrownBy(() -> engine.availability(onSpare, slot)).isInstanceOf(BookingStoreException.class);
                assertThat(liveCount(main, onMain, slot)).isEqualTo(2);
            } finally {
                server.startAgain();
            }
            // the spare shard failed fast since its calls got no connection: served again once a trial gets through
            long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            while (routed.failingFast("spare") && System.nanoTime() < deadline) {
                try {
                    engine.availability(onSpare, slot);
                } catch (BookingStoreException stillDown) {
                    Thread.sleep(50);
                }
            }
            assertThat(routed.failingFast("spare")).as("served again after the restart").isFalse();

            assertThat(liveCount(spare, onSpare, slot)).as("the booking made before the outage is still there")
                    .isEqualTo(1);
            assertThat(rows(spare, "SELECT booking_id, status FROM %sbooking WHERE tenant_id = ?", onSpare))
                    .containsExactly(List.of(before.bookingId().value(), "HELD"));
            book(engine, onSpare, slot, "after");
            assertThat(liveCount(spare, onSpare, slot)).isEqualTo(2);
            assertThat(liveCount(main, onSpare, slot)).as("nothing of it on the other server").isZero();
            assertThat(liveCount(spare, onMain, slot)).isZero();
        }

        @Test
        void aTenantMovesToTheSecondServerWithNothingLostAndNothingOversold() {
            TenantId tenant = Fixtures.tenant();
            TABLE.put(tenant, "main");
            InMemorySeatReservation gate = InMemorySeatReservation.create();
            BookingEngine engine = engine(gate);
            SlotId small = SlotId.of("small");
            SlotId sold = SlotId.of("sold-out");
            schedule(engine, tenant, small, 5, 0);
            schedule(engine, tenant, sold, 3, 2);
            List<Booking> kept = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                kept.add(book(engine, tenant, small, "s" + i));
            }
            ConfirmResult confirmed = engine.confirm(tenant, kept.get(0).bookingId(), kept.get(0).studentId());
            assertThat(confirmed).isInstanceOf(Confirmed.class);
            CancelResult cancelled = engine.cancel(tenant, kept.get(2).bookingId(), kept.get(2).studentId());
            assertThat(cancelled).isInstanceOf(Cancelled.class);
            for (int i = 0; i < 3; i++) {
                book(engine, tenant, sold, "t" + i);
            }
            String bookings = "SELECT booking_id, request_id, slot_id, student_id, seat, status FROM %sbooking"
                    + " WHERE tenant_id = ? ORDER BY booking_id";
            String seats = "SELECT slot_id, seq, status, booking_id, student_id FROM %sslot_seat"
                    + " WHERE tenant_id = ? ORDER BY slot_id, seq";
            String occupancy = "SELECT resource_kind, resource_id, slot_id, booking_id, active FROM %soccupancy"
                    + " WHERE tenant_id = ? ORDER BY resource_kind, resource_id, slot_id, booking_id";
            List<List<Object>> bookingsBefore = rows(main, bookings, tenant);
            List<List<Object>> seatsBefore = rows(main, seats, tenant);
            List<List<Object>> occupancyBefore = rows(main, occupancy, tenant);

            // 1. copy: the tenant fenced on both servers, copied, the source MOVED and the target opened
            TenantMove move = TenantMove.builder(main.dataSource(), spare.dataSource())
                    .sourcePrefix(main.prefix()).targetPrefix(spare.prefix()).build();
            Map<String, Integer> copied = move.copy(tenant);
            assertThat(copied).containsEntry("slot", 2).containsEntry("slot_seat", 8).containsEntry("booking", 6);
            assertThat(rows(spare, bookings, tenant)).isEqualTo(bookingsBefore);
            assertThat(rows(spare, seats, tenant)).isEqualTo(seatsBefore);
            assertThat(rows(spare, occupancy, tenant)).isEqualTo(occupancyBefore);
            assertThatThrownBy(() -> move.copy(tenant)).as("a second copy is refused")
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("already holds");
            // 2. switch the mapping; 3. reconcile the gate from the ledger it now reads
            TABLE.put(tenant, "spare");
            engine.reconcileAll(tenant);
            assertThat(gate.inspect(tenant, small).orElseThrow().remaining()).isEqualTo(3);
            // 4. the source rows go
            assertThat(move.deleteFromSource(tenant)).isPositive();
            assertThat(rows(main, bookings, tenant)).isEmpty();
            assertThat(rows(main, "SELECT slot_id FROM %sslot WHERE tenant_id = ?", tenant)).isEmpty();

            assertThat(engine.confirm(tenant, kept.get(1).bookingId(), kept.get(1).studentId()))
                    .as("a hold taken before the move is confirmed after it").isInstanceOf(Confirmed.class);
            int took = 0;
            for (int i = 0; i < 6; i++) {
                HoldResult r = engine.hold(tenant, HoldRequest.of(RequestId.random(), small, StudentId.of("late" + i)));
                if (r instanceof Held) {
                    took++;
                } else {
                    assertThat(r).isInstanceOf(Full.class);
                }
            }
            assertThat(took).as("the seat freed by the cancel and the two never sold").isEqualTo(3);
            assertThat(engine.hold(tenant, HoldRequest.of(RequestId.random(), sold, StudentId.of("late"))))
                    .isInstanceOf(Full.class);
            assertThat(liveCount(spare, tenant, small)).isEqualTo(5);
            assertThat(liveCount(spare, tenant, sold)).isEqualTo(3);
            assertThat(rows(spare, "SELECT slot_id, student_id FROM %sbooking WHERE tenant_id = ?"
                    + " AND status IN ('HELD', 'CONFIRMED') GROUP BY slot_id, student_id HAVING COUNT(*) > 1", tenant))
                    .as("no student twice in a slot").isEmpty();
            assertThat(rows(spare, "SELECT s.slot_id FROM %sslot s WHERE s.tenant_id = ? AND s.capacity < (SELECT COUNT(*)"
                    + " FROM " + spare.prefix() + "slot_seat x WHERE x.tenant_id = s.tenant_id AND x.slot_id = s.slot_id"
                    + " AND x.status IN ('HELD', 'CONFIRMED'))", tenant)).as("no slot oversold").isEmpty();
            assertThat(rows(spare, "SELECT booking_id, status FROM %sbooking WHERE tenant_id = ? AND booking_id = ?",
                    tenant, kept.get(0).bookingId().value())).containsExactly(List.of(kept.get(0).bookingId().value(),
                    "CONFIRMED"));
        }

        private static long liveCount(TestDatabase db, TenantId tenant, SlotId slot) {
            return (Long) rows(db, "SELECT COUNT(*) FROM %sbooking WHERE tenant_id = ? AND slot_id = ?"
                    + " AND status IN ('HELD', 'CONFIRMED')", tenant, slot.value()).get(0).get(0);
        }

        private static List<List<Object>> rows(TestDatabase db, String sql, TenantId tenant, String... more) {
            try (Connection c = db.dataSource().getConnection();
                 PreparedStatement ps = c.prepareStatement(String.format(sql, db.prefix()))) {
                ps.setString(1, tenant.value());
                for (int i = 0; i < more.length; i++) {
                    ps.setString(i + 2, more[i]);
                }
                List<List<Object>> out = new ArrayList<>();
                try (ResultSet rs = ps.executeQuery()) {
                    int n = rs.getMetaData().getColumnCount();
                    while (rs.next()) {
                        List<Object> row = new ArrayList<>();
                        for (int i = 1; i <= n; i++) {
                            row.add(rs.getObject(i));
                        }
                        out.add(row);
                    }
                }
                return out;
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
        }
    }

    /**
     * The PostgreSQL one-call routines of schema-postgresql.sql, called with plain JDBC in autocommit
     * mode, the way the store calls them: every answer tag, the rows they leave behind, the database
     * clock, concurrency, and the plans of their hot statements on a fresh schema.
     */
    @Nested
    class Routines {
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

        // ------------------------------------------------------------------ checks

        /** The seat and booking checks, stored as array constants, refuse every row the IN (...) form refused. */
        @Test
        void theSeatAndBookingChecksRefuseEveryRowOutsideTheirRules() throws SQLException {
            try (TestDatabase fresh = TestDatabases.postgres(); Connection c = fresh.dataSource().getConnection();
                 Statement s = c.createStatement()) {
                String f = fresh.prefix();
                String seat = "INSERT INTO " + f + "slot_seat (tenant_id, slot_id, seq, status, booking_id, student_id,"
                        + " held_until) VALUES ('t', 's', ";
                String booking = "INSERT INTO " + f + "booking (tenant_id, booking_id, request_id, slot_id, student_id,"
                        + " seat, status, held_until, created_at, updated_at, attendance) VALUES ('t', ";
                for (String good : List.of(
                        seat + "1, 'FREE', NULL, NULL, NULL)",
                        seat + "2, 'CLOSED', NULL, NULL, now())",
                        seat + "3, 'HELD', 'b1', 'st1', now())",
                        seat + "4, 'CONFIRMED', 'b2', 'st2', now())",
                        booking + "'b1', 'q1', 's', 'st1', 3, 'HELD', now(), now(), now(), 'NONE')",
                        booking + "'b2', 'q2', 's', 'st2', 4, 'CONFIRMED', now(), now(), now(), 'CHECKED_IN')",
                        booking + "'b3', 'q3', 's', 'st3', 5, 'CANCELLED', now(), now(), now(), 'NO_SHOW')",
                        booking + "'b4', 'q4', 's', 'st4', 6, 'EXPIRED', now(), now(), now(), 'NONE')")) {
                    s.execute(good);
                }
                for (String bad : List.of(
                        seat + "10, 'GONE', NULL, NULL, NULL)",
                        seat + "11, 'FREE', 'b9', NULL, NULL)",
                        seat + "12, 'FREE', NULL, 'st9', NULL)",
                        seat + "13, 'CLOSED', 'b9', 'st9', now())",
                        seat + "14, 'HELD', NULL, 'st9', now())",
                        seat + "15, 'HELD', 'b9', NULL, now())",
                        seat + "16, 'HELD', 'b9', 'st9', NULL)",
                        seat + "17, 'CONFIRMED', NULL, NULL, now())",
                        "UPDATE " + f + "slot_seat SET status = 'FREE' WHERE seq = 3",
                        "UPDATE " + f + "slot_seat SET held_until = NULL WHERE seq = 4",
                        booking + "'b9', 'q9', 's', 'st9', 9, 'GONE', now(), now(), now(), 'NONE')",
                        booking + "'b9', 'q9', 's', 'st9', 9, 'HELD', now(), now(), now(), 'LATE')",
                        "UPDATE " + f + "booking SET status = 'held' WHERE booking_id = 'b1'",
                        "UPDATE " + f + "booking SET attendance = 'SHOWED' WHERE booking_id = 'b2'")) {
                    assertThatThrownBy(() -> s.execute(bad)).as(bad).isInstanceOf(SQLException.class)
                            .satisfies(e -> assertThat(((SQLException) e).getSQLState()).isEqualTo("23514"));
                }
                try (ResultSet rows = s.executeQuery("SELECT (SELECT COUNT(*) FROM " + f + "slot_seat),"
                        + " (SELECT COUNT(*) FROM " + f + "booking), (SELECT string_agg(status, ',' ORDER BY seq)"
                        + " FROM " + f + "slot_seat)")) {
                    rows.next();
                    assertThat(rows.getLong(1)).as("seats").isEqualTo(4);
                    assertThat(rows.getLong(2)).as("bookings").isEqualTo(4);
                    assertThat(rows.getString(3)).isEqualTo("FREE,CLOSED,HELD,CONFIRMED");
                }
            }
        }

        // ------------------------------------------------------------------ plans

        @Test
        void theHotStatementsUseTheirIndexOnAFreshSchemaCustomAndGeneric() throws SQLException {
            try (TestDatabase fresh = TestDatabases.postgres(); Connection c = fresh.dataSource().getConnection()) {
                expectHotPlans(c, fresh.prefix());
            }
        }

        /**
         * The same plans on tables never analyzed that hold a large tenant: a slot of 100,000 seats, half of
         * them held or confirmed, each with its booking and its student's occupation. Keys many rows share
         * (a slot's free seats, its occupations) make some indexes far smaller than others, which a planner
         * without statistics weighs; every hot statement must still take its own index. (The takeable-seat
         * index, whose FREE entries shared one key before it ended with the seat number, once looked so small
         * that a claim read every free seat of the slot through it and sorted them.) Availability counts the
         * seats that have a student through their partial index, not every seat of the slot.
         */
        @Test
        void theHotStatementsKeepTheirIndexNextToALargeSlotOnTablesNeverAnalyzed() throws SQLException {
            try (TestDatabase fresh = TestDatabases.postgres(); Connection c = fresh.dataSource().getConnection();
                 Statement s = c.createStatement()) {
                String f = fresh.prefix();
                // the tenant and slot are those the plans bind ('x0', 'x1'), the students others than 'x2'
                s.execute("INSERT INTO " + f + "slot (tenant_id, slot_id, coach_id, room_id, starts_at, ends_at, capacity,"
                        + " status) VALUES ('x0', 'x1', 'c', 'r', '2030-01-02 10:00+00', '2030-01-02 11:00+00', 100000, 'OPEN')");
                s.execute("INSERT INTO " + f + "slot_seat (tenant_id, slot_id, seq, status, booking_id, student_id, held_until)"
                        + " SELECT 'x0', 'x1', g, CASE WHEN g > 50000 THEN 'FREE' WHEN g % 2 = 0 THEN 'HELD' ELSE 'CONFIRMED' END,"
                        + " CASE WHEN g <= 50000 THEN 'b' || g END, CASE WHEN g <= 50000 THEN 'st' || g END,"
                        + " CASE WHEN g <= 50000 THEN TIMESTAMPTZ '2030-01-01 10:00+00' + g * INTERVAL '1 second' END"
                        + " FROM generate_series(1, 100000) g");
                s.execute("INSERT INTO " + f + "booking (tenant_id, booking_id, request_id, slot_id, student_id, seat, status,"
                        + " held_until, created_at, updated_at) SELECT 'x0', 'b' || g, 'q' || g, 'x1', 'st' || g, g,"
                        + " CASE WHEN g % 2 = 0 THEN 'HELD' ELSE 'CONFIRMED' END,"
                        + " TIMESTAMPTZ '2030-01-01 10:00+00' + g * INTERVAL '1 second', TIMESTAMPTZ '2030-01-01 09:00+00',"
                        + " TIMESTAMPTZ '2030-01-01 09:00+00' FROM generate_series(1, 50000) g");
                s.execute("INSERT INTO " + f + "occupancy (tenant_id, resource_kind, resource_id, starts_at, ends_at, slot_id,"
                        + " booking_id, active) SELECT 'x0', 'STUDENT', 'st' || g, '2030-01-02 10:00+00', '2030-01-02 11:00+00',"
                        + " 'x1', 'b' || g, TRUE FROM generate_series(1, 50000) g");
                expectHotPlans(c, f);
                // each claim reads the free seats in index order and stops at those it takes: none sorts them
                expectIndexWithout(c, f + "slot_seat_free_ix", "Sort Key: f.seq", claim(f), CLAIM_TYPES);
                expectIndexWithout(c, f + "slot_seat_free_ix", "Sort Key: s.seq", firstFree(f), "varchar", "varchar");
                expectIndexWithout(c, f + "slot_seat_free_ix", "Sort Key: e.seq", batchClaim(f), "varchar[]", f + "fact[]");
                // availability counts the seats that have a student, not every seat of the slot
                String availability = SqlDialect.of(JdbcDialect.POSTGRESQL, new Tables(f)).availability();
                for (int i = 1; availability.contains("?"); i++) {
                    availability = availability.replaceFirst("\\?", "\\$" + i);
                }
                expectIndexWithout(c, f + "slot_seat_student_uk", f + "slot_seat_pk", availability,
                        "timestamptz", "varchar", "varchar");
            }
        }

        /** Every hot statement of the functions, each on its own index, custom and generic plans alike. */
        private static void expectHotPlans(Connection c, String f) throws SQLException {
            {
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
                // hold: the student's occupations with their bookings (ALREADY, CONFLICT and dead holds in one read)
                String mine = "SELECT o.booking_id, o.slot_id, o.resource_kind, o.resource_id, o.starts_at, o.ends_at,"
                        + " d.request_id, d.student_id, d.seat, d.status, d.held_until, d.created_at, d.updated_at,"
                        + " d.package_id, d.credits, d.attendance FROM " + f + "occupancy o LEFT JOIN LATERAL"
                        + " (SELECT d.request_id, d.student_id, d.seat, d.status, d.held_until, d.created_at, d.updated_at,"
                        + " d.package_id, d.credits, d.attendance FROM " + f + "booking d WHERE d.tenant_id = $1"
                        + " AND d.booking_id = o.booking_id OFFSET 0) d ON TRUE WHERE o.tenant_id = $1"
                        + " AND o.resource_kind = 'STUDENT' AND o.resource_id = $2 AND o.active AND o.starts_at < $4"
                        + " AND o.ends_at > $3 AND o.starts_at > $5 ORDER BY o.resource_kind, o.resource_id, o.starts_at";
                String[] mineTypes = {"varchar", "varchar", "timestamptz", "timestamptz", "timestamptz"};
                expectIndex(c, f + "occupancy_overlap_ix", mine, mineTypes);
                expectIndex(c, f + "booking_pk", mine, mineTypes);
                // hold: whether the student has any occupation there at all (the probe before that read)
                expectIndex(c, f + "occupancy_overlap_ix", "SELECT EXISTS (SELECT 1 FROM " + f + "occupancy o"
                        + " WHERE o.tenant_id = $1 AND o.resource_kind = 'STUDENT' AND o.resource_id = $2 AND o.active"
                        + " AND o.starts_at < $4 AND o.ends_at > $3 AND o.starts_at > $5)", mineTypes);
                // hold: a replay's booking, else its waitlist entry (with its position), else the student's live
                // booking of the slot: answered's statements, one after the other
                String[] answeredTypes = {"varchar", "varchar", "varchar", "varchar", "timestamptz"};
                expectIndex(c, f + "waiter_pk", "SELECT w.booking_id, (CASE WHEN w.status = 'WAITING' THEN"
                        + " (SELECT COUNT(*) FROM " + f + "waiter o WHERE o.tenant_id = w.tenant_id AND o.slot_id = w.slot_id"
                        + " AND o.status = 'WAITING' AND o.seq <= w.seq) ELSE 0 END)::INTEGER FROM " + f + "waiter w"
                        + " WHERE w.tenant_id = $1 AND w.request_id = $2", "varchar", "varchar");
                // hold: whether the request or the student has an answer already, probed before that row is built
                String known = "SELECT EXISTS (SELECT 1 FROM " + f + "booking b WHERE b.tenant_id = $1 AND b.request_id = $2)"
                        + " OR EXISTS (SELECT 1 FROM " + f + "waiter w WHERE w.tenant_id = $1 AND w.request_id = $2)"
                        + " OR EXISTS (SELECT 1 FROM " + f + "booking l WHERE l.tenant_id = $1 AND l.slot_id = $3"
                        + " AND l.student_id = $4 AND (l.status = 'CONFIRMED' OR (l.status = 'HELD' AND $5 < l.held_until)))";
                expectIndex(c, f + "booking_request_ux", known, answeredTypes);
                expectIndex(c, f + "waiter_pk", known, answeredTypes);
                expectIndex(c, f + "booking_live_ix", known, answeredTypes);
                // hold: an unpaid seat claimed and written in one statement
                String claim = claim(f);
                expectIndex(c, f + "slot_seat_free_ix", claim, CLAIM_TYPES);
                expectIndex(c, f + "slot_seat_pk", claim, CLAIM_TYPES);
                // hold_batch: the seats of its holds claimed, and their bookings written, together (claim_batch)
                String batchClaim = batchClaim(f);
                // hold_batch: the holds a full slot refuses, found together
                String fullOnes = "SELECT array_agg(u.i::INTEGER) FROM unnest($1, $2, $3, $4, $5, $6) WITH ORDINALITY"
                        + " AS u(t, r, sl, st, g, nm, i) CROSS JOIN LATERAL (SELECT (s.status = 'OPEN' AND c.now < s.ends_at"
                        + " AND (s.opens_at IS NULL OR c.now >= s.opens_at) AND (s.closes_at IS NULL OR c.now < s.closes_at)"
                        + " AND NOT EXISTS (SELECT 1 FROM " + f + "slot_seat f WHERE f.tenant_id = u.t AND f.slot_id = u.sl"
                        + " AND f.status IN ('FREE', 'HELD') AND (CASE WHEN f.status = 'FREE' THEN '-infinity'::TIMESTAMPTZ"
                        + " ELSE f.held_until END) <= c.now)"
                        + " AND NOT EXISTS (SELECT 1 FROM " + f + "booking b WHERE b.tenant_id = u.t AND b.request_id = u.r)"
                        + " AND NOT EXISTS (SELECT 1 FROM " + f + "waiter w WHERE w.tenant_id = u.t AND w.request_id = u.r)"
                        + " AND NOT EXISTS (SELECT 1 FROM " + f + "booking l WHERE l.tenant_id = u.t AND l.slot_id = u.sl"
                        + " AND l.student_id = u.st AND (l.status = 'CONFIRMED' OR (l.status = 'HELD' AND c.now < l.held_until))))"
                        + " AS full FROM (SELECT COALESCE('epoch'::TIMESTAMPTZ + u.nm * INTERVAL '1 microsecond',"
                        + " clock_timestamp()) AS now) c, " + f + "slot s WHERE s.tenant_id = u.t AND s.slot_id = u.sl"
                        + " AND NOT COALESCE(u.g, FALSE) OFFSET 0) z WHERE z.full";
                String[] fullTypes = {"varchar[]", "varchar[]", "varchar[]", "varchar[]", "boolean[]", "bigint[]"};
                expectIndex(c, f + "slot_pk", fullOnes, fullTypes);
                expectIndex(c, f + "slot_seat_takeable_seq_ix", fullOnes, fullTypes);
                expectIndex(c, f + "booking_request_ux", fullOnes, fullTypes);
                expectIndex(c, f + "waiter_pk", fullOnes, fullTypes);
                expectIndex(c, f + "booking_live_ix", fullOnes, fullTypes);
                expectIndex(c, f + "slot_seat_free_ix", batchClaim, "varchar[]", f + "fact[]");
                expectIndex(c, f + "slot_seat_pk", batchClaim, "varchar[]", f + "fact[]");
                expectIndex(c, f + "occupancy_overlap_ix", "SELECT c.slot_id FROM " + f + "occupancy c"
                        + " WHERE c.tenant_id = $1 AND c.resource_kind = 'COACH' AND c.resource_id = $2 AND c.active"
                        + " AND c.starts_at < $4 AND c.ends_at > $3 AND c.starts_at > $5"
                        + " ORDER BY c.resource_kind, c.resource_id, c.starts_at",
                        "varchar", "varchar", "timestamptz", "timestamptz", "timestamptz");
                expectIndex(c, f + "occupancy_release_booking_ix", "UPDATE " + f + "occupancy o SET active = FALSE"
                        + " WHERE o.tenant_id = $1 AND o.booking_id = $2 AND o.active IS NOT FALSE", "varchar", "varchar");
                expectIndex(c, f + "occupancy_release_slot_ix", "UPDATE " + f + "occupancy o SET active = FALSE"
                        + " WHERE o.tenant_id = $1 AND o.slot_id = $2 AND o.active IS NOT FALSE", "varchar", "varchar");
                expectIndex(c, f + "slot_seat_free_ix", firstFree(f), "varchar", "varchar");
                String takeable = "(CASE WHEN s.status = 'FREE' THEN '-infinity'::TIMESTAMPTZ ELSE s.held_until END)";
                expectIndex(c, f + "slot_seat_takeable_seq_ix", "SELECT s.seq, s.booking_id FROM " + f + "slot_seat s"
                        + " WHERE s.tenant_id = $1 AND s.slot_id = $2 AND s.status IN ('FREE', 'HELD')"
                        + " AND " + takeable + " > '-infinity'::TIMESTAMPTZ AND " + takeable + " <= $3"
                        + " ORDER BY " + takeable + " LIMIT 1 FOR UPDATE SKIP LOCKED", "varchar", "varchar", "timestamptz");
                expectIndex(c, f + "slot_seat_takeable_seq_ix", "SELECT NOT EXISTS (SELECT 1 FROM " + f + "slot_seat s"
                        + " WHERE s.tenant_id = $1 AND s.slot_id = $2 AND s.status IN ('FREE', 'HELD')"
                        + " AND " + takeable + " <= $3)", "varchar", "varchar", "timestamptz");
                expectIndex(c, f + "slot_seat_free_ix", "SELECT EXISTS (SELECT 1 FROM " + f + "slot_seat x"
                        + " WHERE x.tenant_id = $1 AND x.slot_id = $2 AND x.status = 'FREE')", "varchar", "varchar");
                expectIndex(c, f + "slot_seat_pk", "SELECT s.status, s.booking_id FROM " + f + "slot_seat s"
                        + " WHERE s.tenant_id = $1 AND s.slot_id = $2 AND s.seq = $3 FOR UPDATE", "varchar", "varchar", "int");
                expectIndex(c, f + "slot_seat_pk", "UPDATE " + f + "slot_seat s SET status = 'FREE', booking_id = NULL,"
                        + " student_id = NULL, held_until = NULL WHERE s.tenant_id = $1 AND s.slot_id = $2 AND s.seq = $3",
                        "varchar", "varchar", "int");
                expectIndex(c, f + "resource_lock_pk", "SELECT 1 FROM " + f + "resource_lock l WHERE l.tenant_id = $1"
                        + " AND l.resource_kind = $2 AND l.resource_id = $3 FOR UPDATE", "varchar", "varchar", "varchar");
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
                // the seq of a new waiting entry: after the slot's last one
                expectIndex(c, f + "waiter_waiting_ix", "SELECT max(x.seq) + 1 FROM " + f + "waiter x"
                        + " WHERE x.tenant_id = $1 AND x.slot_id = $2 AND x.status = 'WAITING'", "varchar", "varchar");
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

        /** The claim of an unpaid hold: its seat taken and written in one statement. */
        private static String claim(String f) {
            return "UPDATE " + f + "slot_seat s SET status = 'HELD', booking_id = $3, student_id = $4,"
                    + " held_until = $5 WHERE s.tenant_id = $1 AND s.slot_id = $2 AND s.seq = (SELECT f.seq FROM " + f
                    + "slot_seat f WHERE f.tenant_id = $1 AND f.slot_id = $2 AND f.status = 'FREE' ORDER BY f.seq"
                    + " LIMIT 1 FOR UPDATE SKIP LOCKED) RETURNING s.seq";
        }

        private static final String[] CLAIM_TYPES = {"varchar", "varchar", "varchar", "varchar", "timestamptz"};

        /** hold_batch: the seats of its holds claimed, and their bookings written, together (claim_batch). */
        private static String batchClaim(String f) {
            return "WITH w AS (SELECT h.*, $1[h.capacity] AS t, row_number() OVER (PARTITION BY"
                    + " $1[h.capacity], h.slot_id ORDER BY h.capacity) AS k FROM unnest($2) h),"
                    + " n AS (SELECT w.t, w.slot_id, count(*) AS wanted FROM w GROUP BY w.t, w.slot_id),"
                    + " f AS (SELECT n.t, n.slot_id, q.seq, row_number() OVER (PARTITION BY n.t, n.slot_id ORDER BY"
                    + " q.seq) AS k FROM n CROSS JOIN LATERAL (SELECT e.seq FROM " + f + "slot_seat e"
                    + " WHERE e.tenant_id = n.t AND e.slot_id = n.slot_id AND e.status = 'FREE' ORDER BY e.seq"
                    + " LIMIT n.wanted FOR UPDATE SKIP LOCKED) q),"
                    + " c AS (UPDATE " + f + "slot_seat s SET status = w.status, booking_id = w.booking_id,"
                    + " student_id = w.student_id, held_until = w.held_until FROM w JOIN f ON f.t = w.t"
                    + " AND f.slot_id = w.slot_id AND f.k = w.k WHERE s.tenant_id = f.t AND s.slot_id = f.slot_id"
                    + " AND s.seq = f.seq RETURNING w.capacity AS i, s.seq)"
                    + " SELECT w.capacity, c.seq FROM w LEFT JOIN c ON c.i = w.capacity ORDER BY w.capacity";
        }

        /** A paid hold's (and a promotion's) first free seat, locked. */
        private static String firstFree(String f) {
            return "SELECT s.seq FROM " + f + "slot_seat s WHERE s.tenant_id = $1"
                    + " AND s.slot_id = $2 AND s.status = 'FREE' ORDER BY s.seq LIMIT 1 FOR UPDATE SKIP LOCKED";
        }

        private static void expectIndex(Connection c, String index, String sql, String... types) throws SQLException {
            expectIndexWithout(c, index, null, sql, types);
        }

        /** The statement's custom and generic plans use {@code index}, scan no table whole, and show no {@code unwanted}. */
        private static void expectIndexWithout(Connection c, String index, String unwanted, String sql, String... types)
                throws SQLException {
            String name = "p" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
            StringBuilder args = new StringBuilder();
            for (int i = 0; i < types.length; i++) {
                args.append(i == 0 ? "" : ", ").append(switch (types[i]) {
                    case "timestamptz" -> "'2030-01-01 10:00:00+00'";
                    case "int" -> "1";
                    case "varchar[]" -> "ARRAY['x" + i + "']::varchar[]";
                    case "boolean[]" -> "ARRAY[FALSE]";
                    case "bigint[]" -> "ARRAY[NULL]::BIGINT[]";
                    // a CLAIM row of hold (see hold's p_no_wait), the hold's position 1
                    default -> types[i].endsWith("fact[]") ? "ARRAY[ROW('CLAIM', 'b', 'r', 's', 'st', NULL, 'HELD',"
                            + " '2030-01-01 10:00:00+00', '2030-01-01 09:00:00+00', '2030-01-01 09:00:00+00', NULL, NULL,"
                            + " '2030-01-01 10:00:00+00', '2030-01-01 11:00:00+00', NULL, NULL, 1, NULL, NULL, NULL)::"
                            + types[i].substring(0, types[i].length() - 2) + "]" : "'x" + i + "'";
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
                        if (unwanted != null) {
                            assertThat(plan.toString()).as(mode + " plan of " + sql).doesNotContain(unwanted);
                        }
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

    /**
     * The booking rules in PostgreSQL's decision functions, through the store, each verdict read back
     * from the tables with SQL: slot rules and buffers, the booking window, the student limits, the
     * cancellation policy and staff cancels, the waitlist with its promotion, and two races.
     */
    @Nested
    class Rules {
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
}
