package org.slotbook.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.slotbook.core.BookingId;
import org.slotbook.core.BookingStatus;
import org.slotbook.core.Held;
import org.slotbook.core.HoldRequest;
import org.slotbook.core.RequestId;
import org.slotbook.core.Scheduled;
import org.slotbook.core.Slot;
import org.slotbook.core.StudentId;
import org.slotbook.core.spi.HoldCommand;
import org.slotbook.core.TenantId;
import org.slotbook.jdbc.testing.TestDatabases;
import org.slotbook.jdbc.testing.TestDatabases.TestDatabase;

/** MariaDB's combined holds: the tests of {@link HoldBatchTests}, through the procedure {@code hold_batch}. */
class MariaDbHoldBatchTest extends HoldBatchTests {

    @Override
    protected TestDatabase openDatabase() {
        return TestDatabases.mariadb();
    }

    private static String record(String tenant, String booking, String request, String slot, String student) {
        char f = '\u001f';
        return String.join(String.valueOf(f), booking, request, slot, student, "HELD", "", "3600000000",
                "86400000000", "0", "0", "0", "0", "0", "AT_BOOKING", tenant);
    }

    @Override
    protected List<String> callBatch(Connection caller, TenantId tenant) throws SQLException {
        String records = record(tenant.value(), "b1", "r1", "locked", "st-a") + '\u001e'
                + record(tenant.value(), "b2", "r2", "open", "st-b");
        try (var ps = caller.prepareStatement("CALL " + db.prefix() + "hold_batch(?)")) {
            ps.setString(1, records);
            return rowsOf(ps);
        }
    }

    /** A seat taken plainly is one TAKEN row, which the store spells out as the booking and its event. */
    @Override
    protected List<String> retryThenTaken() {
        return List.of("1:RETRY", "2:TAKEN");
    }

    @Override
    protected void lockStudent(Connection connection, TenantId tenant, String student) throws SQLException {
        try (var ps = connection.prepareStatement("INSERT INTO " + db.table("resource_lock")
                + " (tenant_id, resource_kind, resource_id) VALUES (?, 'STUDENT', ?)"
                + " ON DUPLICATE KEY UPDATE resource_id = resource_id")) {
            ps.setString(1, tenant.value());
            ps.setString(2, student);
            ps.executeUpdate();
        }
    }

    /**
     * MariaDB shows the statement a procedure waits in, not the call: any waiting statement on these tables.
     * INNODB_TRX is refreshed only when it was not read for 0.1 s, so it is read 150 ms after each read.
     */
    @Override
    protected long blockedCall(String routine) throws InterruptedException {
        for (int i = 0; i < 34; i++) {
            Thread.sleep(150);
            List<Long> ids = sql.withHandle(h -> h.createQuery("SELECT t.trx_mysql_thread_id"
                    + " FROM information_schema.INNODB_TRX t JOIN information_schema.PROCESSLIST p"
                    + " ON p.ID = t.trx_mysql_thread_id WHERE t.trx_state = 'LOCK WAIT' AND p.INFO LIKE :q"
                    + " AND p.ID <> CONNECTION_ID()")
                    .bind("q", "%" + db.prefix() + "%").mapTo(Long.class).list());
            if (!ids.isEmpty()) {
                return ids.get(0);
            }
        }
        return -1;
    }

    @Override
    protected void kill(long connection) {
        sql.useHandle(h -> h.execute("KILL CONNECTION " + connection));
    }

    /**
     * The holds of a batch that a full slot refuses are found by one read before the others are decided,
     * and answered as hold would answer each: a replay of the request that took the seat REPLAY, another
     * request of its student ALREADY, a new student FULL (a request id with a double quote and a
     * backslash in it), while a hold the gate counted or one that may wait goes its own way (here RETRY:
     * the batch waits for nothing). Nothing is written.
     */
    @Test
    void holdsAFullSlotRefusesAreAnsweredAsAlone() throws Exception {
        TenantId tenant = TenantId.of("full-" + UUID.randomUUID());
        JdbcStore store = JdbcStore.builder(db.dataSource()).tablePrefix(db.prefix()).dialect(db.dialect()).build();
        Slot slot = slot(tenant, "one", 0, 1);
        assertThat(store.schedule(tenant, slot, LONGEST, java.time.ZoneOffset.UTC)).isInstanceOf(Scheduled.class);
        HoldCommand first = new HoldCommand(BookingId.of("b-a"), HoldRequest.of(RequestId.of("r-a"), slot.slotId(),
                StudentId.of("st-a")), BookingStatus.HELD, null, HOUR, LONGEST, false);
        assertThat(store.hold(tenant, first).result()).isInstanceOf(Held.class);
        String t = tenant.value();
        String records = String.join(String.valueOf('\u001e'),
                record(t, "b1", "r-a", "one", "st-a"),
                record(t, "b2", "r-a2", "one", "st-a"),
                record(t, "b3", "r\"3\\", "one", "st-c"),
                record(t, "b4", "r4", "one", "st-d").replace("\u001f0\u001f0\u001f0\u001f0\u001f0\u001fAT_BOOKING",
                        "\u001f1\u001f0\u001f0\u001f0\u001f0\u001fAT_BOOKING"),
                record(t, "b5", "r5", "one", "st-e").replace("\u001f0\u001f0\u001f0\u001f0\u001f0\u001fAT_BOOKING",
                        "\u001f0\u001f1\u001f0\u001f0\u001f0\u001fAT_BOOKING"));
        try (Connection caller = db.dataSource().getConnection();
                var ps = caller.prepareStatement("CALL " + db.prefix() + "hold_batch(?)")) {
            ps.setString(1, records);
            assertThat(rowsOf(ps)).containsExactly("1:REPLAY", "2:ALREADY", "3:FULL", "4:RETRY", "5:RETRY");
            // a status hold refuses is refused on a full slot too, not answered FULL
            ps.setString(1, record(t, "b6", "r6", "one", "st-f").replace("\u001fHELD\u001f", "\u001fBOGUS\u001f"));
            org.assertj.core.api.Assertions.assertThatThrownBy(ps::executeQuery).isInstanceOf(SQLException.class)
                    .hasMessageContaining("p_status");
        }
        assertThat(count("SELECT COUNT(*) FROM " + db.table("booking") + " WHERE tenant_id = ?", t)).isEqualTo(1);
        assertThat(count("SELECT COUNT(*) FROM " + db.table("waiter") + " WHERE tenant_id = ?", t)).isZero();
        assertThat(count("SELECT COUNT(*) FROM " + db.table("resource_lock") + " WHERE tenant_id = ?"
                + " AND resource_kind = 'STUDENT'", t)).isEqualTo(1);
    }
}
