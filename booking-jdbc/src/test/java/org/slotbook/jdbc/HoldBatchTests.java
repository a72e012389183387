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
        raceThrough(watch, lanes, tenantCount, 6, 5, 60, 3, false);
    }

    /**
     * As above, with {@code slots} slots of {@code capacity} seats per tenant and {@code students} students
     * holding {@code picks} seats each; {@code even}: every slot is picked equally often (in random order),
     * so that each sells out however the picks fall.
     */
    void raceThrough(BatchWatch watch, int lanes, int tenantCount, int slots, int capacity, int students, int picks,
                     boolean even) {
        long seed = new Random().nextLong();
        System.out.println("[slotbook] " + getClass().getSimpleName() + " race seed=" + seed + " lanes=" + lanes
                + " refuse=" + watch.refuse + " tenants=" + tenantCount + " slots=" + slots);
        Random random = new Random(seed);
        List<TenantId> tenants = new ArrayList<>();
        for (int t = 0; t < tenantCount; t++) {
            tenants.add(TenantId.of("batch-" + UUID.randomUUID()));
        }
        JdbcStore store = JdbcStore.builder(watch).tablePrefix(db.prefix()).dialect(db.dialect()).holdLanes(lanes)
                .build();
        assertThat(store.holdLanes()).isEqualTo(lanes);
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
        int[] pick = new int[students * picks * tenantCount];
        for (int i = 0; i < pick.length; i++) {
            pick[i] = random.nextInt(slots);
        }
        if (even) {
            // each tenant's own holds (i % tenantCount) spread equally over its slots, in random order
            for (int t = 0; t < tenantCount; t++) {
                int[] own = new int[students * picks];
                for (int k = 0; k < own.length; k++) {
                    own[k] = k % slots;
                }
                for (int k = own.length - 1; k > 0; k--) {
                    int j = random.nextInt(k + 1);
                    int x = own[k];
                    own[k] = own[j];
                    own[j] = x;
                }
                for (int k = 0; k < own.length; k++) {
                    pick[k * tenantCount + t] = own[k];
                }
            }
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
            // seats balance: every seat taken is a live booking's
            assertThat(count("SELECT COUNT(*) FROM " + db.table("slot_seat") + " WHERE tenant_id = ? AND status <> 'FREE'",
                    tenant.value())).as("seats taken").isEqualTo(own);
            // the slots sell out: every slot is picked by more students than it has seats
            assertThat(own).isEqualTo(slots * capacity);
        }
        assertThat(answers.values()).allMatch(r -> r instanceof Held || r instanceof Full
                || r instanceof org.slotbook.core.AlreadyBooked || r instanceof org.slotbook.core.Conflict);
    }

    /**
     * Many slots, each student holding once: most holds of a batch name a slot no other hold of it names,
     * the case MariaDB's batch claims with one locking read and one write. Two lanes race; every answer
     * is read back against the rows, nothing is oversold, and the seats balance.
     */
    @Test
    void holdsOnManySlotsClaimedTogetherKeepTheLedgerWhole() {
        BatchWatch watch = new BatchWatch(db.dataSource(), false);
        raceThrough(watch, 2, 2, 40, 2, 240, 1, true);
        assertThat(watch.batches.get()).as("hold_batch calls").isPositive();
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

    /** Takes {@code student}'s lock in {@code connection}'s open transaction, as a hold takes it. */
    protected abstract void lockStudent(Connection connection, TenantId tenant, String student) throws SQLException;

    /**
     * The server's id of a connection of this test's tables waiting for a lock in a call of {@code routine}
     * (where the database tells routines apart), waiting up to 5 s for one; -1 when none.
     */
    protected abstract long blockedCall(String routine) throws InterruptedException;

    /** Kills the server connection {@code connection} (an id from {@link #blockedCall}). */
    protected abstract void kill(long connection);

    /**
     * A batch whose connection dies after it was sent fails each of its holds as a lone hold fails:
     * outcome unknown, retryable; the batch rolled back whole, and each hold succeeds when asked again.
     */
    @Test
    void aBatchWhoseConnectionDiesFailsEachHoldWithOutcomeUnknown() throws Exception {
        TenantId tenant = TenantId.of("kill-" + UUID.randomUUID());
        JdbcStore store = JdbcStore.builder(db.dataSource()).tablePrefix(db.prefix()).dialect(db.dialect()).holdLanes(1)
                .build();
        Slot slot = slot(tenant, "kill", 0, 5);
        assertThat(store.schedule(tenant, slot, LONGEST, java.time.ZoneOffset.UTC)).isInstanceOf(Scheduled.class);
        Instant now = T0.minus(Duration.ofDays(1));
        Lane lane = new Lane();
        try (Connection first = db.dataSource().getConnection(); Connection second = db.dataSource().getConnection()) {
            first.setAutoCommit(false);
            second.setAutoCommit(false);
            lockStudent(first, tenant, "st-first");
            lockStudent(second, tenant, "st-b");
            var held = lineUp(lane, store, tenant, List.of(slot, slot, slot), now);
            first.rollback();
            assertThat(held.get(0).get(30, java.util.concurrent.TimeUnit.SECONDS)).isInstanceOf(Held.class);
            long batch = blockedCall("hold_batch(");
            assertThat(batch).as("the batch waits for st-b's lock").isPositive();
            kill(batch);
            second.rollback();
            for (var queued : held.subList(1, 3)) {
                org.assertj.core.api.Assertions.assertThatThrownBy(() -> queued.get(30, java.util.concurrent.TimeUnit.SECONDS))
                        .hasCauseInstanceOf(org.slotbook.core.BookingStoreException.class)
                        .satisfies(e -> {
                            var failure = (org.slotbook.core.BookingStoreException) e.getCause();
                            assertThat(failure.outcomeUnknown()).as("sent, then the connection died: " + failure)
                                    .isTrue();
                            assertThat(failure.retryable()).isTrue();
                        });
            }
        } finally {
            lane.pool.shutdownNow();
        }
        assertThat(count("SELECT COUNT(*) FROM " + db.table("booking") + " WHERE tenant_id = ? AND student_id IN"
                + " ('st-b', 'st-c')", tenant.value())).as("the batch rolled back").isZero();
        assertThat(count("SELECT COUNT(*) FROM " + db.table("slot_seat") + " WHERE tenant_id = ? AND status = 'HELD'",
                tenant.value())).isEqualTo(1);
        assertThat(store.hold(tenant, command(slot, "st-b", now)).result()).isInstanceOf(Held.class);
        assertThat(store.hold(tenant, command(slot, "st-c", now)).result()).isInstanceOf(Held.class);
    }

    /** Counts what the store sends through the connections it borrows, by kind: hold, hold_batch, other. */
    private static final class CallCount extends ForwardingDataSource {
        final AtomicInteger holds = new AtomicInteger();
        final AtomicInteger batches = new AtomicInteger();
        final AtomicInteger other = new AtomicInteger();
        final List<String> otherNames = new java.util.concurrent.CopyOnWriteArrayList<>();

        CallCount(DataSource delegate) {
            super(delegate);
        }

        @Override
        public Connection getConnection() throws SQLException {
            Connection connection = delegate.getConnection();
            InvocationHandler handler = (proxy, method, args) -> {
                String name = method.getName();
                if (List.of("commit", "rollback", "setTransactionIsolation", "getTransactionIsolation", "isValid")
                        .contains(name)
                        || (name.equals("setAutoCommit") && (Boolean) args[0] != connection.getAutoCommit())) {
                    other.incrementAndGet();
                    otherNames.add(name);
                }
                Object result;
                try {
                    result = method.invoke(connection, args);
                } catch (InvocationTargetException e) {
                    throw e.getCause();
                }
                if (name.equals("prepareStatement") && result instanceof java.sql.PreparedStatement ps) {
                    String text = (String) args[0];
                    AtomicInteger counter = text.contains("hold_batch(") ? batches
                            : text.contains("hold(") ? holds : other;
                    if (counter == other) {
                        otherNames.add(text);
                    }
                    InvocationHandler statement = (p2, m2, a2) -> {
                        if (m2.getName().startsWith("execute")) {
                            counter.incrementAndGet();
                        }
                        try {
                            return m2.invoke(ps, a2);
                        } catch (InvocationTargetException e) {
                            throw e.getCause();
                        }
                    };
                    return Proxy.newProxyInstance(java.sql.PreparedStatement.class.getClassLoader(),
                            new Class<?>[] {java.sql.PreparedStatement.class}, statement);
                }
                return result;
            };
            return (Connection) Proxy.newProxyInstance(Connection.class.getClassLoader(),
                    new Class<?>[] {Connection.class}, handler);
        }

        @Override
        public Connection getConnection(String username, String password) throws SQLException {
            throw new SQLException("not used");
        }

        int total() {
            return holds.get() + batches.get() + other.get();
        }
    }

    /**
     * The round trips of combined holds, counted through the connections the store borrows. A lone hold
     * is one call; two holds queued behind it go as one hold_batch call; the one of them the batch
     * answers RETRY (its only seat is locked by another transaction) is one more call of its own, sent by
     * its own caller. So no hold costs more than 2 calls, the budget of a hold, and the three holds cost
     * 3 calls together (plus the one isolation check of a pooled connection the store had not used).
     */
    @Test
    void aBatchedHoldCostsOneRoundTripAndARetriedOneTwo() throws Exception {
        TenantId tenant = TenantId.of("trips-" + UUID.randomUUID());
        CallCount calls = new CallCount(db.dataSource());
        JdbcStore store = JdbcStore.builder(calls).tablePrefix(db.prefix()).dialect(db.dialect()).holdLanes(1)
                .build();
        Slot open = slot(tenant, "open", 0, 5);
        Slot tight = slot(tenant, "tight", 1, 1);
        Slot warm = slot(tenant, "warm", 2, 5);
        for (Slot s : List.of(open, tight, warm)) {
            assertThat(store.schedule(tenant, s, LONGEST, java.time.ZoneOffset.UTC)).isInstanceOf(Scheduled.class);
        }
        Instant now = T0.minus(Duration.ofDays(1));
        // the pool's connections have had their one isolation check
        for (int i = 0; i < 3; i++) {
            assertThat(store.hold(tenant, command(warm, "st-warm-" + i, now)).result()).isInstanceOf(Held.class);
        }
        Lane lane = new Lane();
        try (Connection student = db.dataSource().getConnection(); Connection seat = db.dataSource().getConnection()) {
            student.setAutoCommit(false);
            seat.setAutoCommit(false);
            lockStudent(student, tenant, "st-first");
            try (Statement st = seat.createStatement()) {
                st.executeQuery("SELECT seq FROM " + db.table("slot_seat") + " WHERE tenant_id = '" + tenant.value()
                        + "' AND slot_id = 'tight' FOR UPDATE").close();
            }
            calls.holds.set(0);
            calls.batches.set(0);
            calls.other.set(0);
            calls.otherNames.clear();
            var held = lineUp(lane, store, tenant, List.of(open, open, tight), now);
            student.rollback();
            assertThat(held.get(0).get(30, java.util.concurrent.TimeUnit.SECONDS)).isInstanceOf(Held.class);
            // answered while st-c still waits: the batch's leader does not run st-c's retry
            assertThat(held.get(1).get(30, java.util.concurrent.TimeUnit.SECONDS)).isInstanceOf(Held.class);
            // st-c was answered RETRY by the batch and now waits, on its own, for the locked seat
            assertThat(blockedCall("hold(")).as("the retried hold waits for the seat").isPositive();
            seat.rollback();
            assertThat(held.get(2).get(30, java.util.concurrent.TimeUnit.SECONDS)).isInstanceOf(Held.class);
        } finally {
            lane.pool.shutdownNow();
        }
        System.out.println("[round trips] combined holds: hold " + calls.holds + ", hold_batch " + calls.batches
                + ", other " + calls.other + " " + calls.otherNames);
        assertThat(calls.batches.get()).as("hold_batch calls").isEqualTo(1);
        assertThat(calls.holds.get()).as("hold calls: the lone one and the retried one").isEqualTo(2);
        // besides the calls, only the first isolation check of a pooled connection the store had not used yet
        assertThat(calls.otherNames).as("other round trips").allMatch("getTransactionIsolation"::equals);
        assertThat(calls.total() - calls.other.get()).as("calls of 3 holds").isEqualTo(3);
        assertThat(calls.total()).as("round trips of 3 holds, at most 2 each").isLessThanOrEqualTo(3 * 2);
        assertThat(count("SELECT COUNT(*) FROM " + db.table("booking") + " WHERE tenant_id = ? AND slot_id <> 'warm'"
                + " AND status = 'HELD'", tenant.value())).isEqualTo(3);
        assertThat(count("SELECT COUNT(*) FROM " + db.table("slot_seat") + " WHERE tenant_id = ? AND slot_id = 'tight'"
                + " AND status = 'HELD' AND student_id = 'st-c'", tenant.value())).isEqualTo(1);
    }

    /**
     * On a store with one lane: a hold of st-first, sent alone, that waits for his lock (which the test
     * holds), then holds of st-b and st-c queued behind it, so that they go together once it is
     * answered. {@code slots}: the slots of st-first, st-b and st-c.
     */
    private List<java.util.concurrent.Future<HoldResult>> lineUp(Lane lane, JdbcStore store, TenantId tenant,
            List<Slot> slots, Instant now) throws InterruptedException {
        var alone = lane.pool.submit(() -> store.hold(tenant, command(slots.get(0), "st-first", now)).result());
        assertThat(blockedCall("hold(")).as("the lone hold waits").isPositive();
        var b = lane.pool.submit(() -> store.hold(tenant, command(slots.get(1), "st-b", now)).result());
        var c = lane.pool.submit(() -> store.hold(tenant, command(slots.get(2), "st-c", now)).result());
        assertThat(queuedOnTheLane(lane.workers, 2)).as("two holds queued behind the lone one").isTrue();
        return List.of(alone, b, c);
    }

    /** Three worker threads that send holds, each kept in {@code workers} so that a test can read their states. */
    private static final class Lane {
        final List<Thread> workers = new java.util.concurrent.CopyOnWriteArrayList<>();
        final java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(3, r -> {
            Thread worker = new Thread(r);
            workers.add(worker);
            return worker;
        });
    }

    /** Whether {@code count} of the workers wait in the combiner's queue, waiting up to 10 s for it. */
    private static boolean queuedOnTheLane(List<Thread> workers, int count) throws InterruptedException {
        for (int i = 0; i < 400; i++) {
            long queued = workers.stream().filter(t -> t.getState() == Thread.State.TIMED_WAITING
                    && java.util.Arrays.stream(t.getStackTrace())
                            .anyMatch(f -> f.getClassName().endsWith("CallCombiner") && f.getMethodName().equals("run")))
                    .count();
            if (queued >= count) {
                return true;
            }
            Thread.sleep(25);
        }
        return false;
    }

}
