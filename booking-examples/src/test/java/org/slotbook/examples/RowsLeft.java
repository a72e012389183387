package org.slotbook.examples;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import org.slotbook.core.TenantId;

/** Rows left in the shipped tables (default prefix) of a database after an example cleaned up. */
final class RowsLeft {
    /** Every table of the shipped schema, named here on their own rather than read from the code under test. */
    private static final List<String> TABLES = List.of("slot", "slot_seat", "booking", "occupancy", "resource_lock",
            "waiter", "lesson_package", "credit_entry");

    private RowsLeft() {
    }

    /** Rows of any tenant in every shipped table of {@code url}. */
    static long all(String url) throws SQLException {
        return count(url, List.of());
    }

    /** Rows of these tenants in every shipped table of {@code url}. */
    static long of(String url, List<TenantId> tenants) throws SQLException {
        if (tenants.isEmpty()) {
            throw new IllegalArgumentException("tenants must not be empty");
        }
        return count(url, tenants);
    }

    private static long count(String url, List<TenantId> tenants) throws SQLException {
        long rows = 0;
        try (Connection c = DriverManager.getConnection(url)) {
            for (String table : TABLES) {
                String sql = "SELECT COUNT(*) FROM slotbook_" + table + (tenants.isEmpty() ? "" : " WHERE tenant_id = ?");
                try (PreparedStatement ps = c.prepareStatement(sql)) {
                    if (tenants.isEmpty()) {
                        rows += one(ps);
                    }
                    for (TenantId tenant : tenants) {
                        ps.setString(1, tenant.value());
                        rows += one(ps);
                    }
                }
            }
        }
        return rows;
    }

    private static long one(PreparedStatement ps) throws SQLException {
        try (ResultSet rs = ps.executeQuery()) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
