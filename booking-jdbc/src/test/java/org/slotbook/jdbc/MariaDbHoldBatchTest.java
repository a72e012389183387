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
}
