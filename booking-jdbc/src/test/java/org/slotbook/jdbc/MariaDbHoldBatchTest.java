package org.slotbook.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
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
}
