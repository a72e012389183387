package org.slotbook.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.slotbook.core.Held;
import org.slotbook.core.HoldResult;
import org.slotbook.core.Scheduled;
import org.slotbook.core.Slot;
import org.slotbook.core.TenantId;
import org.slotbook.jdbc.testing.TestDatabases;
import org.slotbook.jdbc.testing.TestDatabases.TestDatabase;

/**
 * MariaDB's combined holds: the shared race tests ({@link HoldBatchTests}), and the procedure's own
 * answer for a hold it cannot decide without waiting: RETRY, with nothing of it left behind.
 */
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

    /**
     * In a batch, a hold whose slot has free seats only under another transaction's locks answers RETRY
     * and leaves nothing (not even its student's lock row); the batch's other holds are decided.
     */
    @Test
    void aHoldThatWouldWaitForALockAnswersRetryAndLeavesNothing() throws Exception {
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
            String records = record(tenant.value(), "b1", "r1", "locked", "st-a") + '\u001e'
                    + record(tenant.value(), "b2", "r2", "open", "st-b");
            List<String> rows = new ArrayList<>();
            try (var ps = caller.prepareStatement("CALL " + db.prefix() + "hold_batch(?)")) {
                ps.setString(1, records);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        rows.add(rs.getInt("capacity") + ":" + rs.getString("tag"));
                    }
                }
            }
            assertThat(rows).containsExactly("1:RETRY", "2:HELD", "2:EV_HELD");
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
        // rolled back to its savepoint: not even the student's lock row of the retried hold stays
        assertThat(count("SELECT COUNT(*) FROM " + db.table("resource_lock") + " WHERE tenant_id = ?"
                + " AND resource_kind = 'STUDENT' AND resource_id = 'st-a'", tenant.value())).isZero();
        // asked again on its own, the hold takes the seat now free of the lock
        HoldResult again = store.hold(tenant, command(locked, "st-a", null)).result();
        assertThat(again).isInstanceOf(Held.class);
    }
}
