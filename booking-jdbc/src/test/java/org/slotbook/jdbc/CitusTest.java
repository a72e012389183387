package org.slotbook.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.slotbook.core.BookingEngine;
import org.slotbook.core.BookingStoreException;
import org.slotbook.core.CoachId;
import org.slotbook.core.Full;
import org.slotbook.core.Held;
import org.slotbook.core.HoldPolicy;
import org.slotbook.core.HoldRequest;
import org.slotbook.core.HoldResult;
import org.slotbook.core.RequestId;
import org.slotbook.core.RoomId;
import org.slotbook.core.SlotId;
import org.slotbook.core.SlotSpec;
import org.slotbook.core.StudentId;
import org.slotbook.core.TenantId;
import org.slotbook.core.TimeRange;
import org.slotbook.core.spi.BookingStore;
import org.slotbook.core.tck.BookingEngineContract;
import org.slotbook.core.tck.BookingStoreContract;
import org.slotbook.core.tck.Concurrent;
import org.slotbook.core.tck.Fixtures;
import org.slotbook.jdbc.internal.SchemaObjects;
import org.slotbook.jdbc.internal.SqlScript;
import org.slotbook.jdbc.testing.TestDatabases;
import org.slotbook.jdbc.testing.TestDatabases.TestDatabase;

/**
 * Every suite on Citus (distributed PostgreSQL): a coordinator with two workers at
 * {@code SLOTBOOK_TEST_CITUS_URL}, which {@code .ci/run} starts on free loopback ports. Each database is a
 * fresh prefix whose tables and routines are created and then distributed by {@link JdbcSchema#distribute};
 * the engine, store, rules and lessons contracts run on them unchanged, then what is Citus's own: every
 * decision pushed down to its tenant's worker, the round-trip budget, a 1,000-thread race for one seat, and a
 * tenant's shard group moved to the other worker while holds go on. Without the variable the class is
 * skipped, or fails when {@code SLOTBOOK_TEST_REQUIRE_SERVICES=true}.
 */
class CitusTest {
    private static TestDatabase shared;
    private static JdbcStore sharedStore;

    @BeforeAll
    static void openShared() {
        shared = TestDatabases.citus();
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
         * PostgreSQL's routines, distributed: PostgresTest relays 10,000 events over them; what is Citus's own
         * here is the pushed-down calls.
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
    class Lessons extends LessonsStoreTests {
        @Override
        protected TestDatabase openDatabase() {
            return TestDatabases.citus();
        }
    }

    @Nested
    class RoundTripBudget extends RoundTripBudgetTests {
        @Override
        protected TestDatabase openDatabase() {
            return TestDatabases.citus();
        }
    }

    @Nested
    class OutboxSql extends OutboxSqlTests {
        @Override
        protected TestDatabase openDatabase() {
            return TestDatabases.citus();
        }
    }

    /** What Citus adds: distribution, push-down, the race for one seat, and an online shard move. */
    @Nested
    @TestInstance(TestInstance.Lifecycle.PER_CLASS)
    class Distributed {
        private final Instant start = Instant.now().truncatedTo(ChronoUnit.HOURS).plus(Duration.ofDays(2));
        private BookingEngine engine;

        @BeforeAll
        void open() {
            engine = BookingEngine.builder().store(sharedStore).holdPolicy(HoldPolicy.ofMinutes(10)).build();
        }

        @Test
        void everyTableIsDistributedByTenantColocatedAndEveryRoutineByItsTenantArgument() throws SQLException {
            JdbcSchema.distribute(shared.dataSource(), shared.prefix()); // again: idempotent
            JdbcSchema.create(shared.dataSource(), shared.prefix()); // an upgrade run on distributed tables
            JdbcSchema.distribute(shared.dataSource(), shared.prefix());
            SchemaObjects objects = SchemaObjects.of(JdbcDialect.POSTGRESQL, shared.prefix());
            Set<Long> colocations = new HashSet<>();
            for (String table : objects.tables()) {
                List<List<Object>> row = rows("SELECT column_to_column_name(logicalrelid, partkey), colocationid"
                        + " FROM pg_dist_partition WHERE logicalrelid = to_regclass(?)", table);
                assertThat(row).as("%s is distributed", table).hasSize(1);
                assertThat(row.get(0).get(0)).as("%s distributed by", table).isEqualTo("tenant_id");
                colocations.add(((Number) row.get(0).get(1)).longValue());
            }
            assertThat(colocations).as("one colocation group").hasSize(1);
            long group = colocations.iterator().next();
            for (String routine : objects.routines()) {
                List<List<Object>> found = rows("SELECT array_position(p.proargnames, 'p_tenant'),"
                        + " d.distribution_argument_index, d.colocationid FROM pg_proc p"
                        + " JOIN pg_dist_object d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid"
                        + " WHERE p.proname = ? AND p.pronamespace = current_schema()::regnamespace", routine);
                assertThat(found).as("%s is distributed", routine).isNotEmpty();
                for (List<Object> r : found) {
                    if (r.get(0) != null) {
                        assertThat(((Number) r.get(1)).intValue()).as("%s by p_tenant", routine)
                                .isEqualTo(((Number) r.get(0)).intValue() - 1);
                        assertThat(((Number) r.get(2)).longValue()).as("%s colocated", routine).isEqualTo(group);
                    }
                }
            }
            assertThat(JdbcSchema.distributed(shared.dataSource(), shared.prefix())).isTrue();
            assertThat(sharedStore.holdLanes()).as("no hold batches on distributed tables").isZero();
        }

        @Test
        void anEarlierSchemaKeyedByItsIdentityUpgradesInPlaceAndDistributes() throws SQLException {
            String prefix = TestDatabases.freshPrefix();
            try (Connection c = shared.dataSource().getConnection(); Statement st = c.createStatement()) {
                JdbcSchema.create(shared.dataSource(), prefix);
                // as schemas before every key held tenant_id: occupancy and credit_entry keyed by their identity
                st.execute("ALTER TABLE " + prefix + "occupancy DROP CONSTRAINT " + prefix + "occupancy_pk,"
                        + " ADD CONSTRAINT " + prefix + "occupancy_pk PRIMARY KEY (id)");
                st.execute("ALTER TABLE " + prefix + "credit_entry DROP CONSTRAINT " + prefix + "credit_entry_pk,"
                        + " ADD CONSTRAINT " + prefix + "credit_entry_pk PRIMARY KEY (seq)");
                st.execute("INSERT INTO " + prefix + "occupancy (tenant_id, resource_kind, resource_id, starts_at,"
                        + " ends_at, slot_id, active) VALUES ('t', 'COACH', 'c', now(), now() + interval '1 hour', 's', TRUE)");
                JdbcSchema.create(shared.dataSource(), prefix);
                for (String table : List.of("occupancy", "credit_entry")) {
                    assertThat(rows("SELECT pg_get_constraintdef(oid) FROM pg_constraint WHERE conname = ?",
                            prefix + table + "_pk")).as(table).containsExactly(List.of(
                            "PRIMARY KEY (" + (table.equals("occupancy") ? "id" : "seq") + ", tenant_id)"));
                }
                JdbcSchema.distribute(shared.dataSource(), prefix);
                assertThat(JdbcSchema.distributed(shared.dataSource(), prefix)).isTrue();
                assertThat(rows("SELECT resource_id FROM " + prefix + "occupancy WHERE tenant_id = ?", "t"))
                        .as("the rows went into the shards").containsExactly(List.of("c"));
            } finally {
                TestDatabases.dropSchema(shared.dataSource(), JdbcDialect.POSTGRESQL, prefix);
            }
        }

        /** The Flyway form in the jar (a repeatable migration) distributes a schema inside one transaction. */
        @Test
        void theMigrationFormDistributesInsideOneTransaction() throws Exception {
            String prefix = TestDatabases.freshPrefix();
            String migration;
            try (var in = getClass().getClassLoader().getResourceAsStream("org/slotbook/jdbc/migration/citus/R__slotbook_citus.sql")) {
                assertThat(in).as("the migration in the jar").isNotNull();
                migration = new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
            }
            try (Connection c = shared.dataSource().getConnection(); Statement st = c.createStatement()) {
                JdbcSchema.create(shared.dataSource(), prefix);
                c.setAutoCommit(false);
                for (String sql : SqlScript.statements(migration.replace("${slotbook_prefix}", prefix))) {
                    st.execute(sql);
                }
                c.commit();
                c.setAutoCommit(true);
                assertThat(JdbcSchema.distributed(shared.dataSource(), prefix)).isTrue();
                assertThat(rows("SELECT COUNT(*) FROM pg_dist_partition WHERE logicalrelid::text LIKE ?", prefix + "%"))
                        .containsExactly(List.of((long) SchemaObjects.of(JdbcDialect.POSTGRESQL, prefix).tables().size()));
            } finally {
                TestDatabases.dropSchema(shared.dataSource(), JdbcDialect.POSTGRESQL, prefix);
            }
        }

        /**
         * The coordinator holds no shard: a decision it ran itself would reach the workers once per statement.
         * Each call the store sends is planned as one task on the worker that holds its tenant (EXPLAIN of the
         * store's own statement, parameters bound), and running many holds costs the coordinator exactly one
         * single-shard execution each (Citus's statistic counters).
         */
        @Test
        void everyDecisionIsPushedDownToItsTenantsWorker() throws SQLException {
            TenantId tenant = Fixtures.tenant();
            SlotId slot = SlotId.of("pushed");
            schedule(tenant, slot, 60, 0);
            int coordinator;
            try (Connection c = shared.dataSource().getConnection()) {
                coordinator = port(c);
                String p = shared.prefix();
                String hold = "EXPLAIN SELECT * FROM " + p + "hold(?, ?, ?, ?, ?, 'HELD', NULL, 600000000, 3600000000,"
                        + " FALSE, FALSE, 0, 0, 0, 'AT_BOOKING', FALSE)";
                String cancel = "EXPLAIN SELECT * FROM " + p + "cancel(?, ?, ?, NULL, NULL, NULL, 600000000, 3600000000,"
                        + " 0, 0, 0, 'AT_BOOKING')";
                String confirm = "EXPLAIN SELECT * FROM " + p + "confirm(?, ?, ?, NULL, 600000000, 3600000000, 0, 0, 0,"
                        + " 'AT_BOOKING')";
                for (String explain : List.of(hold, cancel, confirm)) {
                    String plan = explain(c, explain, tenant.value(), "b1", "r1", slot.value(), "u1");
                    assertThat(plan).as(explain).contains("Custom Scan (Citus Adaptive)").contains("Task Count: 1")
                            .containsPattern("Node: host=\\S+ port=\\d+").doesNotContain("port=" + coordinator + " ");
                }
                assertThat(rows("SELECT COUNT(*) FROM pg_dist_placement pl JOIN pg_dist_node n ON n.groupid = pl.groupid"
                        + " WHERE n.nodeport = ?", coordinator)).as("shards on the coordinator")
                        .containsExactly(List.of(0L));
            }
            long[] before = counters();
            int holds = 40;
            for (int i = 0; i < holds; i++) {
                assertThat(engine.hold(tenant, HoldRequest.of(RequestId.random(), slot, StudentId.of("s" + i))))
                        .isInstanceOf(Held.class);
            }
            long[] after = counters();
            assertThat(after[0] - before[0]).as("single-shard executions on the coordinator").isEqualTo(holds);
            assertThat(after[1] - before[1]).as("multi-shard executions on the coordinator").isZero();
        }

        /** A store whose dialect was set asked nothing at build: the first batch Citus refuses turns batches off. */
        @Test
        void aStoreThatDidNotAskStopsBatchingAtTheFirstBatchCitusRefuses() {
            JdbcStore store = JdbcStore.builder(shared.dataSource()).tablePrefix(shared.prefix())
                    .dialect(JdbcDialect.POSTGRESQL).build();
            assertThat(store.holdLanes()).isEqualTo(JdbcStore.DEFAULT_HOLD_LANES);
            BookingEngine untold = BookingEngine.builder().store(store).holdPolicy(HoldPolicy.ofMinutes(10)).build();
            TenantId tenant = Fixtures.tenant();
            SlotId slot = SlotId.of("batched");
            schedule(tenant, slot, 200, 3);
            int holds = 120;
            List<HoldResult> results = Concurrent.run(holds, i -> untold.hold(tenant,
                    HoldRequest.of(RequestId.random(), slot, StudentId.of("b" + i))));
            assertThat(results).allSatisfy(r -> assertThat(r).isInstanceOf(Held.class));
            assertThat(store.holdLanes()).as("batches off after the first one refused").isZero();
            assertThat(rows("SELECT COUNT(*) FROM " + shared.prefix() + "booking WHERE tenant_id = ?", tenant.value()))
                    .containsExactly(List.of((long) holds));
        }

        @Test
        void aThousandThreadsRaceForOneSeatAndOneGetsIt() {
            TenantId tenant = Fixtures.tenant();
            SlotId slot = SlotId.of("one-seat");
            schedule(tenant, slot, 1, 1);
            int threads = 1_000;
            List<HoldResult> results = Concurrent.run(threads, i -> engine.hold(tenant,
                    HoldRequest.of(RequestId.random(), slot, StudentId.of("racer-" + i))));
            List<String> held = results.stream().filter(r -> r instanceof Held)
                    .map(r -> ((Held) r).booking().bookingId().value()).toList();
            assertThat(held).as("Held answers").hasSize(1);
            assertThat(results.stream().filter(r -> r instanceof Full)).as("Full answers").hasSize(threads - 1);
            assertThat(rows("SELECT booking_id FROM " + shared.prefix() + "booking WHERE tenant_id = ? AND slot_id = ?",
                    tenant.value(), slot.value())).as("booking rows").containsExactly(List.of(held.get(0)));
            assertThat(rows("SELECT booking_id, status FROM " + shared.prefix() + "slot_seat WHERE tenant_id = ?"
                    + " AND slot_id = ?", tenant.value(), slot.value())).containsExactly(List.of(held.get(0), "HELD"));
        }

        /**
         * The shard group of a tenant moves to the other worker (citus_move_shard_placement, logical replication
         * when the workers run wal_level = logical, else blocking writes while it copies) while eight threads keep
         * holding its seats: every Held answer has its booking row and seat afterwards, no slot is oversold, and
         * the holds after the move run on the new worker.
         */
        @Test
        void aTenantsShardGroupMovesOnlineWhileHoldsGoOnAndNothingIsLost() throws Exception {
            TenantId tenant = Fixtures.tenant();
            int slots = 30;
            int seats = 200;
            for (int s = 0; s < slots; s++) {
                schedule(tenant, SlotId.of("m" + s), seats, 2 + s);
            }
            String p = shared.prefix();
            long shard = ((Number) rows("SELECT get_shard_id_for_distribution_column(?::regclass, ?)", p + "slot",
                    tenant.value()).get(0).get(0)).longValue();
            List<Object> source = rows("SELECT nodename, nodeport FROM pg_dist_shard_placement WHERE shardid = ?", shard)
                    .get(0);
            List<Object> target = rows("SELECT nodename, nodeport FROM pg_dist_node WHERE groupid > 0"
                    + " AND noderole = 'primary' AND nodeport <> ? ORDER BY nodeport LIMIT 1", source.get(1)).get(0);
            String mode = rows("SELECT result FROM run_command_on_workers('SHOW wal_level') LIMIT 1").get(0).get(0)
                    .equals("logical") ? "force_logical" : "block_writes";

            Set<String> heldIds = ConcurrentHashMap.newKeySet();
            AtomicInteger full = new AtomicInteger();
            AtomicInteger failed = new AtomicInteger();
            AtomicInteger afterMove = new AtomicInteger();
            AtomicInteger heldWhileMoving = new AtomicInteger();
            AtomicBoolean moving = new AtomicBoolean();
            AtomicBoolean moved = new AtomicBoolean();
            AtomicInteger next = new AtomicInteger();
            java.util.concurrent.atomic.AtomicLong moveMillis = new java.util.concurrent.atomic.AtomicLong();
            int threads = 8;
            Thread mover = new Thread(() -> {
                try (Connection c = shared.dataSource().getConnection();
                     PreparedStatement ps = c.prepareStatement("SELECT citus_move_shard_placement(?, ?, ?, ?, ?,"
                             + " shard_transfer_mode => ?::citus.shard_transfer_mode)")) {
                    Thread.sleep(300); // holds are under way
                    moving.set(true);
                    ps.setLong(1, shard);
                    ps.setString(2, (String) source.get(0));
                    ps.setInt(3, ((Number) source.get(1)).intValue());
                    ps.setString(4, (String) target.get(0));
                    ps.setInt(5, ((Number) target.get(1)).intValue());
                    ps.setString(6, mode);
                    long t0 = System.nanoTime();
                    ps.execute();
                    moveMillis.set((System.nanoTime() - t0) / 1_000_000);
                    moved.set(true);
                } catch (SQLException | InterruptedException e) {
                    throw new IllegalStateException("the move failed: " + e.getMessage(), e);
                }
            });
            mover.start();
            // each thread holds until the move is done and it has held on after it a while
            Concurrent.runAll(threads, t -> {
                while (!moved.get() || afterMove.get() < 200) {
                    if (!mover.isAlive() && !moved.get()) {
                        return; // the move failed: checked below
                    }
                    int n = next.incrementAndGet();
                    boolean done = moved.get();
                    try {
                        HoldResult r = engine.hold(tenant, HoldRequest.of(RequestId.random(),
                                SlotId.of("m" + (n % slots)), StudentId.of("mover-" + n)));
                        if (r instanceof Held h) {
                            heldIds.add(h.booking().bookingId().value());
                            if (moving.get() && !moved.get()) {
                                heldWhileMoving.incrementAndGet();
                            }
                        } else {
                            assertThat(r).isInstanceOf(Full.class);
                            full.incrementAndGet();
                        }
                    } catch (BookingStoreException e) {
                        failed.incrementAndGet(); // refused, never a Held answer
                    }
                    if (done) {
                        afterMove.incrementAndGet();
                    }
                }
            });
            mover.join();
            assertThat(moved).as("the shard group moved (" + mode + ")").isTrue();
            assertThat(rows("SELECT nodeport FROM pg_dist_shard_placement WHERE shardid = ?", shard))
                    .containsExactly(List.of(target.get(1)));

            List<List<Object>> stored = rows("SELECT b.booking_id FROM " + p + "booking b JOIN " + p + "slot_seat s"
                    + " ON s.tenant_id = b.tenant_id AND s.slot_id = b.slot_id AND s.seq = b.seat"
                    + " AND s.booking_id = b.booking_id AND s.status = 'HELD' WHERE b.tenant_id = ? AND b.status = 'HELD'",
                    tenant.value());
            Set<String> storedIds = new HashSet<>();
            stored.forEach(r -> storedIds.add((String) r.get(0)));
            Set<String> lost = new HashSet<>(heldIds);
            lost.removeAll(storedIds);
            assertThat(lost).as("Held answers without their row and seat").isEmpty();
            assertThat(storedIds).as("rows without a Held answer").isEqualTo(heldIds);
            assertThat(heldWhileMoving.get()).as("seats held while the shard group moved").isPositive();
            assertThat(rows("SELECT s.slot_id FROM " + p + "slot s WHERE s.tenant_id = ? AND s.capacity < (SELECT COUNT(*)"
                    + " FROM " + p + "booking b WHERE b.tenant_id = s.tenant_id AND b.slot_id = s.slot_id"
                    + " AND b.status IN ('HELD', 'CONFIRMED'))", tenant.value())).as("oversold slots").isEmpty();
            System.out.printf("[citus move] %s in %d ms: %d Held (%d while moving), %d Full, %d refused, %d holds after"
                    + " it%n", mode, moveMillis.get(), heldIds.size(), heldWhileMoving.get(), full.get(), failed.get(),
                    afterMove.get());
        }

        /**
         * Citus numbers identity columns from a range of each worker's own (the second worker's above the
         * first's), and a moved row keeps its number. A waitlist that moves from the second worker to the first
         * keeps its order: those who join after the move line up behind those who joined before it, and the
         * freed seat goes to the first of them.
         */
        @Test
        void aWaitlistMovedToAWorkerWithLowerNumbersKeepsItsOrder() throws SQLException {
            String p = shared.prefix();
            List<List<Object>> workers = rows("SELECT nodename, nodeport FROM pg_dist_node WHERE groupid > 0"
                    + " AND noderole = 'primary' ORDER BY groupid");
            List<Object> high = workers.get(workers.size() - 1);
            List<Object> low = workers.get(0);
            TenantId tenant = null;
            long shard = 0;
            for (int i = 0; i < 100 && tenant == null; i++) {
                TenantId candidate = Fixtures.tenant();
                shard = ((Number) rows("SELECT get_shard_id_for_distribution_column(?::regclass, ?)", p + "slot",
                        candidate.value()).get(0).get(0)).longValue();
                if (rows("SELECT nodeport FROM pg_dist_shard_placement WHERE shardid = ?", shard).get(0).get(0)
                        .equals(high.get(1))) {
                    tenant = candidate;
                }
            }
            assertThat(tenant).as("a tenant on the worker with the higher numbers").isNotNull();
            SlotId slot = SlotId.of("queue");
            schedule(tenant, slot, 1, 40);
            HoldResult first = engine.hold(tenant, HoldRequest.of(RequestId.random(), slot, StudentId.of("holder")));
            assertThat(first).isInstanceOf(Held.class);
            for (String w : List.of("w1", "w2")) {
                assertThat(engine.hold(tenant, HoldRequest.of(RequestId.random(), slot, StudentId.of(w)).orWaitlist()))
                        .isInstanceOf(org.slotbook.core.Waitlisted.class);
            }
            rows("SELECT citus_move_shard_placement(?, ?, ?, ?, ?, shard_transfer_mode => 'block_writes')", shard,
                    high.get(0), high.get(1), low.get(0), low.get(1));
            HoldResult third = engine.hold(tenant, HoldRequest.of(RequestId.random(), slot, StudentId.of("w3")).orWaitlist());
            assertThat(third).isInstanceOfSatisfying(org.slotbook.core.Waitlisted.class,
                    w -> assertThat(w.entry().position()).as("position of the one who joined after the move").isEqualTo(3));
            assertThat(engine.waitlist(tenant, slot, 0, 10)).extracting(e -> e.studentId().value())
                    .containsExactly("w1", "w2", "w3");
            org.slotbook.core.Booking held = ((Held) first).booking();
            engine.cancel(tenant, held.bookingId(), held.studentId());
            assertThat(rows("SELECT student_id FROM " + p + "booking WHERE tenant_id = ? AND slot_id = ?"
                    + " AND status = 'HELD'", tenant.value(), slot.value())).as("promoted")
                    .containsExactly(List.of("w1"));
        }

        private void schedule(TenantId tenant, SlotId slot, int seats, int hour) {
            engine.schedule(tenant, new SlotSpec(slot, CoachId.of("coach-" + slot.value()), RoomId.of("room-" + slot.value()),
                    TimeRange.of(start.plus(Duration.ofHours(hour)), Duration.ofMinutes(50)), seats));
        }

        /** The coordinator's single-shard and multi-shard executions so far (Citus statistic counters). */
        private long[] counters() {
            List<Object> row = rows("SELECT query_execution_single_shard, query_execution_multi_shard"
                    + " FROM citus_stat_counters WHERE name = current_database()").get(0);
            return new long[] {((Number) row.get(0)).longValue(), ((Number) row.get(1)).longValue()};
        }
    }

    private static int port(Connection c) throws SQLException {
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT current_setting('port')")) {
            rs.next();
            return Integer.parseInt(rs.getString(1));
        }
    }

    private static String explain(Connection c, String sql, String... args) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            int n = ps.getParameterMetaData().getParameterCount();
            for (int i = 0; i < n; i++) {
                ps.setString(i + 1, args[i]);
            }
            StringBuilder plan = new StringBuilder();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    plan.append(rs.getString(1).strip()).append('\n');
                }
            }
            return plan.toString();
        }
    }

    static List<List<Object>> rows(String sql, Object... args) {
        try (Connection c = shared.dataSource().getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
            for (int i = 0; i < args.length; i++) {
                ps.setObject(i + 1, args[i]);
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
            throw new IllegalStateException(sql + ": " + e.getMessage(), e);
        }
    }
}
