package org.slotbook.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.slotbook.core.Held;
import org.slotbook.core.HoldResult;
import org.slotbook.core.Scheduled;
import org.slotbook.core.Slot;
import org.slotbook.core.TenantId;
import org.slotbook.jdbc.testing.ForwardingDataSource;
import org.slotbook.jdbc.testing.TestDatabases;
import org.slotbook.jdbc.testing.TestDatabases.TestDatabase;

/**
 * PostgreSQL's combined holds: the shared race tests ({@link HoldBatchTests}), and what only PostgreSQL
 * shows: a hold a batch cannot decide without waiting is answered RETRY by the routine and decided again
 * on its own; a batch whose backend is killed; the round trips of batched and retried holds.
 */
class PostgresHoldBatchTest extends HoldBatchTests {

    @Override
    protected TestDatabase openDatabase() {
        return TestDatabases.postgres();
    }

    @Override
    protected List<String> callBatch(Connection caller, TenantId tenant) throws SQLException {
        String call = "SELECT tag, capacity FROM " + db.prefix() + "hold_batch(ARRAY[?, ?], ARRAY['b1', 'b2'], ARRAY['r1', 'r2'],"
                + " ARRAY['locked', 'open'], ARRAY['st-a', 'st-b'], ARRAY['HELD', 'HELD'], ARRAY[NULL, NULL]::BIGINT[],"
                + " ARRAY[3600000000, 3600000000], ARRAY[86400000000, 86400000000], ARRAY[FALSE, FALSE],"
                + " ARRAY[0, 0], ARRAY[0, 0], ARRAY[0, 0]::BIGINT[], ARRAY['AT_BOOKING', 'AT_BOOKING'])";
        try (var ps = caller.prepareStatement(call)) {
            ps.setString(1, tenant.value());
            ps.setString(2, tenant.value());
            return rowsOf(ps);
        }
    }

    /**
     * A batch whose connection dies after it was sent fails each of its holds as a lone hold fails:
     * outcome unknown, retryable; the batch rolled back whole, and each hold succeeds when asked again.
     */
    @Test
    void aBatchWhoseConnectionDiesFailsEachHoldWithOutcomeUnknown() throws Exception {
        TenantId tenant = TenantId.of("kill-" + UUID.randomUUID());
        JdbcStore store = JdbcStore.builder(db.dataSource()).tablePrefix(db.prefix()).holdLanes(1).build();
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
            long batch = blockedBackend("hold_batch(");
            assertThat(batch).as("the batch waits for st-b's lock").isPositive();
            boolean killed = sql.withHandle(h -> h.createQuery("SELECT pg_terminate_backend(:pid)")
                    .bind("pid", (int) batch).mapTo(Boolean.class).one());
            assertThat(killed).isTrue();
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
        JdbcStore store = JdbcStore.builder(calls).tablePrefix(db.prefix()).holdLanes(1).build();
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
            assertThat(blockedBackend("hold(")).as("the retried hold waits for the seat").isPositive();
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
        assertThat(blockedBackend("hold(")).as("the lone hold waits").isPositive();
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

    private void lockStudent(Connection connection, TenantId tenant, String student) throws SQLException {
        try (Statement st = connection.createStatement()) {
            st.executeQuery("SELECT " + db.prefix() + "lock_student('" + tenant.value() + "', '" + student + "')")
                    .close();
        }
    }

    /** The server id of the backend waiting for a lock in a call of {@code routine}, waiting up to 5 s for one. */
    private long blockedBackend(String routine) throws InterruptedException {
        for (int i = 0; i < 200; i++) {
            List<Long> ids = sql.withHandle(h -> h.createQuery("SELECT pid FROM pg_stat_activity WHERE wait_event_type"
                    + " = 'Lock' AND query LIKE :q AND pid <> pg_backend_pid()")
                    .bind("q", "%" + db.prefix() + routine + "%").mapTo(Long.class).list());
            if (!ids.isEmpty()) {
                return ids.get(0);
            }
            Thread.sleep(25);
        }
        return -1;
    }

    @Test
    void holdLanesOutOfRangeAreRefusedNamingTheSetting() {
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> JdbcStore.builder(db.dataSource()).holdLanes(65))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("holdLanes").hasMessageContaining("65");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> JdbcStore.builder(db.dataSource()).holdLanes(-1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("holdLanes").hasMessageContaining("-1");
        assertThat(JdbcStore.builder(db.dataSource()).tablePrefix(db.prefix()).build().holdLanes())
                .isEqualTo(JdbcStore.DEFAULT_HOLD_LANES);
    }

    @Override
    protected List<String> retryThenTaken() {
        return List.of("1:RETRY", "2:HELD", "2:EV_HELD");
    }
}
