package org.slotbook.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.slotbook.core.BookingId;
import org.slotbook.core.BookingStatus;
import org.slotbook.core.CoachId;
import org.slotbook.core.Full;
import org.slotbook.core.Held;
import org.slotbook.core.HoldRequest;
import org.slotbook.core.HoldResult;
import org.slotbook.core.RequestId;
import org.slotbook.core.RoomId;
import org.slotbook.core.Scheduled;
import org.slotbook.core.Slot;
import org.slotbook.core.SlotId;
import org.slotbook.core.SlotStatus;
import org.slotbook.core.StudentId;
import org.slotbook.core.TenantId;
import org.slotbook.core.TimeRange;
import org.slotbook.core.spi.HoldCommand;
import org.slotbook.core.tck.Concurrent;
import org.slotbook.jdbc.testing.ForwardingDataSource;
import org.slotbook.jdbc.testing.TestDatabases.TestDatabase;

/**
 * Combined holds on a database whose store sends concurrent holds together ({@code hold_batch}): each
 * answered as if alone. The answers are checked against the rows read back with SQL; a batch the
 * database refuses is sent again hold by hold; without lanes no batch is sent.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class HoldBatchTests {
    static final Instant T0 = Instant.parse("2030-05-06T09:00:00Z");
    /** A session's length, and how long a hold lasts. */
    static final Duration HOUR = JdbcStoreTests.HOUR;
    static final Duration LONGEST = JdbcStoreTests.LONGEST;
    TestDatabase db;
    Jdbi sql;

    /** The database of the class. */
    protected abstract TestDatabase openDatabase();

    @BeforeAll
    void open() {
        db = openDatabase();
        sql = Jdbi.create(db.dataSource());
    }

    @AfterAll
    void close() {
        if (db != null) {
            db.close();
        }
    }

    /** Lends the pool's connections, counting the hold_batch statements prepared; optionally failing them. */
    static final class BatchWatch extends ForwardingDataSource {
        final AtomicInteger batches = new AtomicInteger();
        final boolean refuse;

        BatchWatch(DataSource delegate, boolean refuse) {
            super(delegate);
            this.refuse = refuse;
        }

        @Override
        public Connection getConnection() throws SQLException {
            Connection connection = delegate.getConnection();
            InvocationHandler handler = (proxy, method, args) -> {
                if (method.getName().equals("prepareStatement") && args != null && args[0] instanceof String text
                        && text.contains("hold_batch")) {
                    batches.incrementAndGet();
                    if (refuse) {
                        throw new SQLException("refused for the test", "XX000");
                    }
                }
                try {
                    return method.invoke(connection, args);
                } catch (InvocationTargetException e) {
                    throw e.getCause();
                }
            };
            return (Connection) Proxy.newProxyInstance(Connection.class.getClassLoader(),
                    new Class<?>[] {Connection.class}, handler);
        }

        @Override
        public Connection getConnection(String username, String password) throws SQLException {
            throw new SQLException("not used");
        }
    }

    static Slot slot(TenantId tenant, String id, int hourOffset, int capacity) {
        return new Slot(tenant, SlotId.of(id), CoachId.of("coach-" + id), RoomId.of("room-" + id),
                TimeRange.of(T0.plus(Duration.ofHours(2L * hourOffset)), HOUR), capacity, SlotStatus.OPEN);
    }

    static HoldCommand command(Slot slot, String student, Instant now) {
        return new HoldCommand(BookingId.random(),
                HoldRequest.of(RequestId.random(), slot.slotId(), StudentId.of(student)), BookingStatus.HELD, now,
                HOUR, LONGEST, false);
    }

    int count(String query, Object... args) {
        return db.count(query, args);
    }

    /**
     * Students race for the seats of a few slots through a store with one lane: every answer matches
     * the rows the ledger keeps, no slot is oversold, nobody holds a slot twice, and the holds went to
     * the database in fewer calls than there were holds.
     */
    void raceThrough(BatchWatch watch, int lanes) {
        raceThrough(watch, lanes, 1);
    }

    /**
     * As above, over {@code tenantCount} tenants with the same slot ids and student names: a batch mixes
     * their holds, and each answer and row must stay with its own tenant.
     */
    void raceThrough(BatchWatch watch, int lanes, int tenantCount) {
        long seed = new Random().nextLong();
        System.out.println("[slotbook] " + getClass().getSimpleName() + " race seed=" + seed + " lanes=" + lanes
                + " refuse=" + watch.refuse + " tenants=" + tenantCount);
        Random random = new Random(seed);
        List<TenantId> tenants = new ArrayList<>();
        for (int t = 0; t < tenantCount; t++) {
            tenants.add(TenantId.of("batch-" + UUID.randomUUID()));
        }
        JdbcStore store = JdbcStore.builder(watch).tablePrefix(db.prefix()).dialect(db.dialect()).holdLanes(lanes)
                .build();
        assertThat(store.holdLanes()).isEqualTo(lanes);
        int slots = 6;
        int capacity = 5;
        Map<TenantId, List<Slot>> all = new java.util.HashMap<>();
        for (TenantId tenant : tenants) {
            List<Slot> own = new ArrayList<>();
            for (int s = 0; s < slots; s++) {
                Slot slot = slot(tenant, "s" + s, s, capacity);
                assertThat(store.schedule(tenant, slot, LONGEST, java.time.ZoneOffset.UTC))
                        .isInstanceOf(Scheduled.class);
                own.add(slot);
            }
            all.put(tenant, own);
        }
        int students = 60;
        int[] pick = new int[students * 3 * tenantCount];
        for (int i = 0; i < pick.length; i++) {
            pick[i] = random.nextInt(slots);
        }
        Instant now = T0.minus(Duration.ofDays(1));
        Map<String, HoldResult> answers = new ConcurrentHashMap<>();
        Map<String, TenantId> askedBy = new ConcurrentHashMap<>();
        Concurrent.Load load = Concurrent.load(24, pick.length, i -> {
            TenantId tenant = tenants.get(i % tenantCount);
            Slot slot = all.get(tenant).get(pick[i]);
            String student = "st-" + ((i / tenantCount) % students);
            HoldCommand cmd = command(slot, student, now);
            askedBy.put(cmd.bookingId().value(), tenant);
            answers.put(cmd.bookingId().value(), store.hold(tenant, cmd).result());
        }, done -> { });
        assertThat(load.thrownTotal()).as("failures %s", load.samples()).isZero();

        // read back: the Held answers are exactly the live bookings, the seats match, nothing oversold
        Map<TenantId, Integer> held = new java.util.HashMap<>();
        for (Map.Entry<String, HoldResult> e : answers.entrySet()) {
            HoldResult result = e.getValue();
            TenantId tenant = askedBy.get(e.getKey());
            if (result instanceof Held h) {
                held.merge(tenant, 1, Integer::sum);
                assertThat(h.replayed()).isFalse();
                assertThat(h.booking().tenantId()).isEqualTo(tenant);
                assertThat(h.booking().bookingId().value()).isEqualTo(e.getKey());
                assertThat(count("SELECT COUNT(*) FROM " + db.table("booking") + " b JOIN " + db.table("slot_seat")
                        + " s ON s.tenant_id = b.tenant_id AND s.slot_id = b.slot_id AND s.seq = b.seat"
                        + " AND s.booking_id = b.booking_id WHERE b.tenant_id = ? AND b.booking_id = ?"
                        + " AND b.status = 'HELD' AND s.status = 'HELD' AND b.student_id = ?",
                        tenant.value(), e.getKey(), h.booking().studentId().value())).isEqualTo(1);
            } else {
                assertThat(count("SELECT COUNT(*) FROM " + db.table("booking") + " WHERE booking_id = ?", e.getKey()))
                        .as("a booking for the refused %s", result).isZero();
            }
        }
        for (TenantId tenant : tenants) {
            int own = held.getOrDefault(tenant, 0);
            assertThat(count("SELECT COUNT(*) FROM " + db.table("booking") + " WHERE tenant_id = ?", tenant.value()))
                    .isEqualTo(own);
            assertThat(count("SELECT COUNT(*) FROM (SELECT slot_id FROM " + db.table("booking")
                    + " WHERE tenant_id = ? AND status IN ('HELD', 'CONFIRMED') GROUP BY slot_id HAVING COUNT(*) > ?) x",
                    tenant.value(), capacity)).as("oversold slots").isZero();
            assertThat(count("SELECT COUNT(*) FROM (SELECT slot_id, student_id FROM " + db.table("booking")
                    + " WHERE tenant_id = ? AND status IN ('HELD', 'CONFIRMED') GROUP BY slot_id, student_id"
                    + " HAVING COUNT(*) > 1) x", tenant.value())).as("students holding a slot twice").isZero();
            assertThat(count("SELECT COUNT(*) FROM " + db.table("occupancy") + " WHERE tenant_id = ?"
                    + " AND resource_kind = 'STUDENT' AND active", tenant.value())).isEqualTo(own);
            // the slots sell out: 60 students, 3 picks each, 30 seats
            assertThat(own).isEqualTo(slots * capacity);
        }
        assertThat(answers.values()).allMatch(r -> r instanceof Held || r instanceof Full
                || r instanceof org.slotbook.core.AlreadyBooked || r instanceof org.slotbook.core.Conflict);
    }

    @Test
    void batchesMixTenantsAndEachAnswerStaysWithItsOwn() {
        BatchWatch watch = new BatchWatch(db.dataSource(), false);
        raceThrough(watch, 2, 3);
        assertThat(watch.batches.get()).as("hold_batch calls").isPositive();
    }

    @Test
    void concurrentHoldsShareCallsAndEachAnswerIsWhatTheLedgerKeeps() {
        BatchWatch watch = new BatchWatch(db.dataSource(), false);
        raceThrough(watch, 1);
        assertThat(watch.batches.get()).as("hold_batch calls").isPositive();
    }

    @Test
    void aBatchTheDatabaseRefusesIsDecidedAgainHoldByHold() {
        BatchWatch watch = new BatchWatch(db.dataSource(), true);
        raceThrough(watch, 1);
        assertThat(watch.batches.get()).as("hold_batch calls tried").isPositive();
    }

    @Test
    void withoutLanesEveryHoldIsACallOfItsOwn() {
        BatchWatch watch = new BatchWatch(db.dataSource(), false);
        raceThrough(watch, 0);
        assertThat(watch.batches.get()).isZero();
    }

    /**
     * Calls the database's {@code hold_batch} directly on {@code caller}, autocommit: b1 for st-a on
     * slot 'locked', then b2 for st-b on slot 'open', both HELD, database clock, one hour's hold.
     *
     * @return each row as "position:tag"
     */
    protected abstract List<String> callBatch(Connection caller, TenantId tenant) throws SQLException;

    /** The rows of a {@code hold_batch} call as "position:tag" (position: the capacity column). */
    static List<String> rowsOf(java.sql.PreparedStatement call) throws SQLException {
        List<String> rows = new ArrayList<>();
        try (ResultSet rs = call.executeQuery()) {
            while (rs.next()) {
                rows.add(rs.getInt("capacity") + ":" + rs.getString("tag"));
            }
        }
        return rows;
    }

    /**
     * The rows ({@code capacity:tag}) of {@link #callBatch}'s answer when its first hold answers RETRY and
     * its second takes a seat.
     */
    protected abstract List<String> retryThenTaken();

    /**
     * In a batch, a hold whose slot has free seats only under another transaction's locks answers RETRY
     * and leaves nothing behind (it would have to wait; not even its student's lock row stays); the
     * batch's other holds are decided. Asked again on its own, it takes the seat.
     */
    @Test
    void aHoldThatWouldWaitForALockAnswersRetryAndWritesNothing() throws Exception {
        TenantId tenant = TenantId.of("retry-" + UUID.randomUUID());
        JdbcStore store = JdbcStore.builder(db.dataSource()).tablePrefix(db.prefix()).dialect(db.dialect()).build();
        Slot locked = slot(tenant, "locked", 0, 1);
        Slot open = slot(tenant, "open", 1, 1);
        assertThat(store.schedule(tenant, locked, LONGEST, java.time.ZoneOffset.UTC)).isInstanceOf(Scheduled.class);
        assertThat(store.schedule(tenant, open, LONGEST, java.time.ZoneOffset.UTC)).isInstanceOf(Scheduled.class);
        try (Connection holder = db.dataSource().getConnection(); Connection caller = db.dataSource().getConnection()) {
            holder.setAutoCommit(false);
            try (Statement st = holder.createStatement()) {
                st.executeQuery("SELECT seq FROM " + db.table("slot_seat") + " WHERE tenant_id = '" + tenant.value()
                        + "' AND slot_id = 'locked' FOR UPDATE").close();
            }
            caller.setAutoCommit(true);
            assertThat(callBatch(caller, tenant)).containsExactlyElementsOf(retryThenTaken());
            holder.rollback();
        }
        assertThat(count("SELECT COUNT(*) FROM " + db.table("booking") + " WHERE tenant_id = ?", tenant.value()))
                .isEqualTo(1);
        assertThat(count("SELECT COUNT(*) FROM " + db.table("booking") + " WHERE tenant_id = ? AND booking_id = 'b2'"
                + " AND student_id = 'st-b' AND slot_id = 'open'", tenant.value())).isEqualTo(1);
        assertThat(count("SELECT COUNT(*) FROM " + db.table("slot_seat") + " WHERE tenant_id = ? AND slot_id = 'locked'"
                + " AND status = 'FREE'", tenant.value())).isEqualTo(1);
        assertThat(count("SELECT COUNT(*) FROM " + db.table("occupancy") + " WHERE tenant_id = ?"
                + " AND resource_kind = 'STUDENT'", tenant.value())).isEqualTo(1);
        assertThat(count("SELECT COUNT(*) FROM " + db.table("resource_lock") + " WHERE tenant_id = ?"
                + " AND resource_kind = 'STUDENT' AND resource_id = 'st-a'", tenant.value())).isZero();
        HoldResult again = store.hold(tenant, command(locked, "st-a", null)).result();
        assertThat(again).isInstanceOf(Held.class);
    }
}
