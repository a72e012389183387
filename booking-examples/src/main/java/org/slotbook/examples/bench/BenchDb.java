package org.slotbook.examples.bench;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.slotbook.core.BookingEngine;
import org.slotbook.core.TenantId;
import org.slotbook.jdbc.JdbcDialect;

/**
 * One database of a run: its key in line names ({@code pg}, {@code mariadb}, {@code h2}), its name in
 * the tables, its backends and its DB-only engine; and the SQL the lines run on it beside the engine.
 */
record BenchDb(String key, String name, Backends backends, BookingEngine dbOnly) implements Ledger {

    JdbcDialect dialect() {
        return backends.store().dialect();
    }

    /** A table of the store's prefix, e.g. {@code table("bench_seat")}. */
    String table(String name) {
        return backends.store().tablePrefix() + name;
    }

    /**
     * Over-capacity seats and double-booked students of the tenant, by queries of their own: live
     * bookings (HELD or CONFIRMED) per slot against its capacity, and students with more than one
     * live booking (all slots of a run share one time, so two live bookings overlap).
     */
    @Override
    public Violations violations(TenantId tenant) throws SQLException {
        String perSlot = "SELECT s.capacity, (SELECT COUNT(*) FROM " + table("booking") + " b"
                + " WHERE b.tenant_id = s.tenant_id AND b.slot_id = s.slot_id AND b.status IN ('HELD', 'CONFIRMED'))"
                + " FROM " + table("slot") + " s WHERE s.tenant_id = ?";
        long oversold = 0;
        try (Connection c = backends.dataSource().getConnection(); PreparedStatement ps = c.prepareStatement(perSlot)) {
            ps.setString(1, tenant.value());
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    oversold += Math.max(0, rs.getLong(2) - rs.getLong(1));
                }
            }
        }
        long doubled = backends.count("SELECT COUNT(*) FROM (SELECT student_id FROM " + table("booking")
                + " WHERE tenant_id = ? AND status IN ('HELD', 'CONFIRMED') GROUP BY student_id HAVING COUNT(*) > 1) d",
                tenant.value());
        return new Violations(oversold, doubled);
    }

    /** Runs each statement in autocommit. */
    void execute(String... statements) throws SQLException {
        try (Connection c = backends.dataSource().getConnection(); Statement st = c.createStatement()) {
            for (String sql : statements) {
                st.execute(sql);
            }
        }
    }

    /** Deletes the rows of every workload of the run {@code run} from one of the benchmark's own tables. */
    void deleteRun(String benchTable, String run) throws SQLException {
        try (Connection c = backends.dataSource().getConnection();
             PreparedStatement ps = c.prepareStatement("DELETE FROM " + table(benchTable) + " WHERE run_id LIKE ?")) {
            ps.setString(1, run + "%");
            ps.executeUpdate();
        }
    }
}
