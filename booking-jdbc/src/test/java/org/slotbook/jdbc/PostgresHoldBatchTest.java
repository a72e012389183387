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

/** PostgreSQL's combined holds: the shared tests of {@link HoldBatchTests}, and the range of the lanes. */
class PostgresHoldBatchTest extends HoldBatchTests {

    @Override
    protected TestDatabase openDatabase() {
        return TestDatabases.postgres();
    }

    @Override
    protected List<String> callBatch(Connection caller, TenantId tenant) throws SQLException {
        String call = batchCall("tag, capacity", List.of("r1", "r2"), List.of("locked", "open"), List.of("st-a", "st-b"));
        try (var ps = caller.prepareStatement(call)) {
            ps.setString(1, tenant.value());
            ps.setString(2, tenant.value());
            return rowsOf(ps);
        }
    }

    @Override
    protected void lockStudent(Connection connection, TenantId tenant, String student) throws SQLException {
        try (Statement st = connection.createStatement()) {
            st.executeQuery("SELECT " + db.prefix() + "lock_student('" + tenant.value() + "', '" + student + "')")
                    .close();
        }
    }

    @Override
    protected long blockedCall(String routine) throws InterruptedException {
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

    @Override
    protected void kill(long connection) {
        boolean killed = sql.withHandle(h -> h.createQuery("SELECT pg_terminate_backend(:pid)")
                .bind("pid", (int) connection).mapTo(Boolean.class).one());
        assertThat(killed).isTrue();
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

    /**
     * A batch claims its seats and writes its bookings together, but a student's later hold in the same
     * batch is decided on his earlier ones: st-a holds x, st-b holds y, st-a's hold of z (at x's time) is
     * a conflict and his second request for x finds his booking of it. The ledger keeps two held seats,
     * two bookings, two student occupations, and no TAKEN answer carries an occupation's times out of the
     * call.
     */
    @Test
    void aStudentsLaterHoldInABatchSeesHisEarlierOne() throws Exception {
        TenantId tenant = TenantId.of("batch-own-" + UUID.randomUUID());
        JdbcStore store = JdbcStore.builder(db.dataSource()).tablePrefix(db.prefix()).dialect(db.dialect()).build();
        for (Slot s : List.of(slot(tenant, "x", 0, 5), slot(tenant, "y", 1, 5), slot(tenant, "z", 0, 5))) {
            assertThat(store.schedule(tenant, s, LONGEST, java.time.ZoneOffset.UTC)).isInstanceOf(Scheduled.class);
        }
        String call = batchCall("tag, capacity, starts_at", List.of("r1", "r2", "r3", "r4"), List.of("x", "y", "z", "x"),
                List.of("st-a", "st-b", "st-a", "st-a"));
        List<String> rows = new java.util.ArrayList<>();
        try (Connection caller = db.dataSource().getConnection(); var ps = caller.prepareStatement(call)) {
            caller.setAutoCommit(true);
            for (int i = 1; i <= 4; i++) {
                ps.setString(i, tenant.value());
            }
            try (var rs = ps.executeQuery()) {
                while (rs.next()) {
                    String tag = rs.getString("tag");
                    if (tag.equals("TAKEN")) {
                        assertThat(rs.getTimestamp("starts_at")).as("starts_at of a TAKEN answer").isNull();
                    }
                    rows.add(rs.getInt("capacity") + ":" + tag);
                }
            }
        }
        assertThat(rows).containsExactly("1:TAKEN", "2:TAKEN", "3:CONFLICT", "4:ALREADY");
        assertThat(count("SELECT COUNT(*) FROM " + db.table("booking") + " WHERE tenant_id = ?", tenant.value()))
                .isEqualTo(2);
        assertThat(count("SELECT COUNT(*) FROM " + db.table("booking") + " WHERE tenant_id = ? AND booking_id = 'b1'"
                + " AND student_id = 'st-a' AND slot_id = 'x' AND status = 'HELD'", tenant.value())).isEqualTo(1);
        assertThat(count("SELECT COUNT(*) FROM " + db.table("occupancy") + " o JOIN " + db.table("slot") + " s"
                + " ON s.tenant_id = o.tenant_id AND s.slot_id = o.slot_id WHERE o.tenant_id = ?"
                + " AND o.resource_kind = 'STUDENT' AND o.active AND o.starts_at = s.starts_at"
                + " AND o.ends_at = s.ends_at AND o.booking_id IN ('b1', 'b2')", tenant.value())).isEqualTo(2);
        assertThat(count("SELECT COUNT(*) FROM " + db.table("slot_seat") + " WHERE tenant_id = ?"
                + " AND status = 'HELD'", tenant.value())).isEqualTo(2);
    }

    /**
     * A batch answers the holds of a full slot FULL together, and leaves to each hold what only it can
     * answer: on the full slot f (one seat, held by st-a under r0) a new student is refused, r0 asked
     * again is a replay, and st-a asking under a new request finds his live booking; a hold the gate
     * holds a seat for is decided by the routine (the seat is not free: RETRY); a hold of the open slot
     * o takes its seat. The ledger keeps the two seats taken and nothing else.
     */
    @Test
    void aBatchRefusesTheHoldsOfAFullSlotAndAnswersItsReplays() throws Exception {
        TenantId tenant = TenantId.of("batch-full-" + UUID.randomUUID());
        JdbcStore store = JdbcStore.builder(db.dataSource()).tablePrefix(db.prefix()).dialect(db.dialect())
                .holdLanes(0).build();
        Slot full = slot(tenant, "f", 0, 1);
        Slot open = slot(tenant, "o", 1, 1);
        assertThat(store.schedule(tenant, full, LONGEST, java.time.ZoneOffset.UTC)).isInstanceOf(Scheduled.class);
        assertThat(store.schedule(tenant, open, LONGEST, java.time.ZoneOffset.UTC)).isInstanceOf(Scheduled.class);
        String call = batchCall("tag, capacity", List.of("r0", "r0", "r2", "r3", "r4", "r5"),
                List.of("f", "f", "f", "f", "f", "o"), List.of("st-a", "st-a", "st-a", "st-b", "st-c", "st-d"), 5);
        List<String> rows;
        try (Connection caller = db.dataSource().getConnection()) {
            caller.setAutoCommit(true);
            // st-a holds the one seat of f under r0, in a batch of its own
            try (var ps = caller.prepareStatement(batchCall("tag, capacity", List.of("r0"), List.of("f"),
                    List.of("st-a")))) {
                ps.setString(1, tenant.value());
                assertThat(rowsOf(ps)).containsExactly("1:TAKEN");
            }
            try (var ps = caller.prepareStatement(call)) {
                for (int i = 1; i <= 6; i++) {
                    ps.setString(i, tenant.value());
                }
                rows = rowsOf(ps);
            }
        }
        // r0 again, under b1 as at first and under b2 (replays), st-a under r2 (his live booking), st-b
        // (full), st-c (gate-held: the routine finds no free seat), st-d on the open slot
        assertThat(rows).containsExactlyInAnyOrder("1:REPLAY", "2:REPLAY", "3:ALREADY", "4:FULL", "5:RETRY",
                "6:TAKEN");
        assertThat(count("SELECT COUNT(*) FROM " + db.table("booking") + " WHERE tenant_id = ?", tenant.value()))
                .isEqualTo(2);
        assertThat(count("SELECT COUNT(*) FROM " + db.table("slot_seat") + " WHERE tenant_id = ? AND status = 'HELD'",
                tenant.value())).isEqualTo(2);
        assertThat(count("SELECT COUNT(*) FROM " + db.table("occupancy") + " WHERE tenant_id = ?"
                + " AND resource_kind = 'STUDENT'", tenant.value())).isEqualTo(2);
    }

    /**
     * The batch refuses a full slot's holds together only where the routine would answer FULL: a full
     * slot whose booking has closed, one whose booking opens later and one called off answer as a hold
     * alone does (BOOKING_CLOSED, NOT_OPEN_YET, NOT_OPEN), and nothing is written.
     */
    @Test
    void aBatchLeavesAFullSlotOutsideItsBookingWindowToTheRoutine() throws Exception {
        TenantId tenant = TenantId.of("batch-window-" + UUID.randomUUID());
        JdbcStore store = JdbcStore.builder(db.dataSource()).tablePrefix(db.prefix()).dialect(db.dialect())
                .holdLanes(0).build();
        List<String> slots = List.of("closed", "later", "off");
        for (int k = 0; k < slots.size(); k++) {
            assertThat(store.schedule(tenant, slot(tenant, slots.get(k), k, 1), LONGEST, java.time.ZoneOffset.UTC))
                    .isInstanceOf(Scheduled.class);
        }
        List<String> rows;
        try (Connection caller = db.dataSource().getConnection()) {
            caller.setAutoCommit(true);
            // st-a takes the one seat of each slot
            try (var ps = caller.prepareStatement(batchCall("tag, capacity", List.of("ra1", "ra2", "ra3"), slots,
                    List.of("st-a", "st-a", "st-a")))) {
                for (int i = 1; i <= 3; i++) {
                    ps.setString(i, tenant.value());
                }
                assertThat(rowsOf(ps)).containsExactly("1:TAKEN", "2:TAKEN", "3:TAKEN");
            }
            try (Statement st = caller.createStatement()) {
                String where = " WHERE tenant_id = '" + tenant.value() + "' AND slot_id = ";
                st.executeUpdate("UPDATE " + db.table("slot") + " SET closes_at = now() - INTERVAL '1 minute'"
                        + where + "'closed'");
                st.executeUpdate("UPDATE " + db.table("slot") + " SET opens_at = now() + INTERVAL '1 day'"
                        + where + "'later'");
                st.executeUpdate("UPDATE " + db.table("slot") + " SET status = 'CANCELLED'" + where + "'off'");
            }
            try (var ps = caller.prepareStatement(batchCall("tag, capacity", List.of("rb1", "rb2", "rb3"), slots,
                    List.of("st-b", "st-b", "st-b")))) {
                for (int i = 1; i <= 3; i++) {
                    ps.setString(i, tenant.value());
                }
                rows = rowsOf(ps);
            }
        }
        assertThat(rows).containsExactly("1:BOOKING_CLOSED", "2:NOT_OPEN_YET", "3:NOT_OPEN");
        assertThat(count("SELECT COUNT(*) FROM " + db.table("booking") + " WHERE tenant_id = ? AND student_id = 'st-b'",
                tenant.value())).isZero();
        assertThat(count("SELECT COUNT(*) FROM " + db.table("slot_seat") + " WHERE tenant_id = ? AND status = 'HELD'",
                tenant.value())).isEqualTo(3);
    }

    /**
     * A hold of a combined call is answered as if it had been alone. Slot s has two seats, st-c holds one.
     * In one batch st-a takes the other, st-b's first hold finds none left (RETRY), and st-b's second hold
     * is decided on a view that counts st-a's seat, not sold until the batch commits; the batch then
     * waits for st-z's lock while st-c's cancel commits, and commits with one of the two seats taken.
     * At no instant was s full: st-b's second hold is sent again alone (RETRY), never answered FULL.
     */
    @Test
    void aHoldFoundFullOnTheBatchsOwnSeatsIsSentAgainNotRefused() throws Exception {
        TenantId tenant = TenantId.of("batch-freed-" + UUID.randomUUID());
        JdbcStore store = JdbcStore.builder(db.dataSource()).tablePrefix(db.prefix()).dialect(db.dialect())
                .holdLanes(0).build();
        Slot s = slot(tenant, "s", 0, 2);
        assertThat(store.schedule(tenant, s, LONGEST, java.time.ZoneOffset.UTC)).isInstanceOf(Scheduled.class);
        assertThat(store.schedule(tenant, slot(tenant, "other", 1, 1), LONGEST, java.time.ZoneOffset.UTC))
                .isInstanceOf(Scheduled.class);
        String call = batchCall("tag, capacity", List.of("r1", "r2", "r3", "r4"), List.of("s", "s", "s", "other"),
                List.of("st-a", "st-b", "st-b", "st-z"));
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newSingleThreadExecutor();
        try (Connection caller = db.dataSource().getConnection(); Connection holder = db.dataSource().getConnection()) {
            caller.setAutoCommit(true);
            HoldResult c = store.hold(tenant, command(s, "st-c", null)).result();
            assertThat(c).isInstanceOf(Held.class);
            holder.setAutoCommit(false);
            lockStudent(holder, tenant, "st-z");
            var rows = pool.submit(() -> {
                try (var ps = caller.prepareStatement(call)) {
                    for (int i = 1; i <= 4; i++) {
                        ps.setString(i, tenant.value());
                    }
                    return rowsOf(ps);
                }
            });
            assertThat(blockedCall("hold_batch(")).as("the batch waits for st-z's lock").isPositive();
            assertThat(store.cancel(tenant, ((Held) c).booking().bookingId(), org.slotbook.core.StudentId.of("st-c"),
                    null, org.slotbook.core.spi.Terms.defaults()).result()).isInstanceOf(org.slotbook.core.Cancelled.class);
            holder.rollback();
            assertThat(rows.get(30, java.util.concurrent.TimeUnit.SECONDS))
                    .containsExactly("1:TAKEN", "2:RETRY", "3:RETRY", "4:TAKEN");
        } finally {
            pool.shutdownNow();
        }
        assertThat(count("SELECT COUNT(*) FROM " + db.table("slot_seat") + " WHERE tenant_id = ? AND slot_id = 's'"
                + " AND status = 'FREE'", tenant.value())).as("a seat of s is free after the batch").isEqualTo(1);
    }

    /**
     * A {@code hold_batch} call selecting {@code columns}, of one hold per element of {@code slots}:
     * booking {@code b<n>} (n from 1), {@code requests[n]}, {@code students[n]}, HELD for an hour, the database's
     * clock, no rules; {@code gateHeld} names the positions whose seat the gate holds. Each hold's
     * tenant is a parameter.
     */
    private String batchCall(String columns, List<String> requests, List<String> slots, List<String> students,
                             int... gateHeld) {
        int n = slots.size();
        java.util.function.Function<java.util.function.IntFunction<String>, String> array = f -> "ARRAY["
                + String.join(", ", java.util.stream.IntStream.range(0, n).mapToObj(f).toList()) + "]";
        java.util.Set<Integer> held = java.util.Arrays.stream(gateHeld).boxed().collect(java.util.stream.Collectors.toSet());
        return "SELECT " + columns + " FROM " + db.prefix() + "hold_batch(" + array.apply(k -> "?")
                + ", " + array.apply(k -> "'b" + (k + 1) + "'") + ", " + array.apply(k -> "'" + requests.get(k) + "'")
                + ", " + array.apply(k -> "'" + slots.get(k) + "'") + ", " + array.apply(k -> "'" + students.get(k) + "'")
                + ", " + array.apply(k -> "'HELD'") + ", " + array.apply(k -> "NULL") + "::BIGINT[]"
                + ", " + array.apply(k -> "3600000000") + ", " + array.apply(k -> "86400000000")
                + ", " + array.apply(k -> held.contains(k + 1) ? "TRUE" : "FALSE") + ", " + array.apply(k -> "0")
                + ", " + array.apply(k -> "0") + ", " + array.apply(k -> "0") + "::BIGINT[]"
                + ", " + array.apply(k -> "'AT_BOOKING'") + ")";
    }

    @Override
    protected List<String> retryThenTaken() {
        return List.of("1:RETRY", "2:TAKEN");
    }
}
