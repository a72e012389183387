package org.slotbook.jdbc.internal;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import org.slotbook.core.InvalidInputException;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/** Table names under one prefix. The prefix is validated, since it is spliced into SQL text. */
public record Tables(String prefix) {
    public static final String DEFAULT_PREFIX = "slotbook_";
    private static final Pattern VALID = Pattern.compile("[a-z_][a-z0-9_]{0,23}|");

    public Tables {
        prefix = checkPrefix(prefix);
    }

    public static String checkPrefix(String prefix) {
        if (prefix == null) {
            throw new InvalidInputException("tablePrefix must not be null");
        }
        if (!VALID.matcher(prefix).matches()) {
            throw new InvalidInputException("tablePrefix must be empty or up to 24 characters of a-z, 0-9 and _,"
                    + " not starting with a digit, got '" + prefix + "'");
        }
        return prefix;
    }

    public String slot() {
        return prefix + "slot";
    }

    public String seat() {
        return prefix + "slot_seat";
    }

    public String booking() {
        return prefix + "booking";
    }

    public String occupancy() {
        return prefix + "occupancy";
    }

    public String waiter() {
        return prefix + "waiter";
    }

    public String lessonPackage() {
        return prefix + "lesson_package";
    }

    public String creditEntry() {
        return prefix + "credit_entry";
    }

    /** The fence of a router's move: which tenants this database serves (no row: served). */
    public String tenantFence() {
        return prefix + "tenant_fence";
    }

    public String lock() {
        return prefix + "resource_lock";
    }

    /**
     * PostgreSQL: whether the slot table of {@code prefix} is distributed by Citus; false without the Citus
     * extension or without the table. Two catalog reads.
     */
    public static boolean distributed(Connection connection, String prefix) throws SQLException {
        checkPrefix(prefix);
        if (!exists(connection, "SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'citus')", null)) {
            return false;
        }
        return exists(connection, "SELECT EXISTS (SELECT 1 FROM pg_dist_partition WHERE logicalrelid = to_regclass(?))",
                prefix + "slot");
    }

    private static boolean exists(Connection connection, String query, @Nullable String arg) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement(query)) {
            if (arg != null) {
                ps.setString(1, arg);
            }
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() && rs.getBoolean(1);
            }
        }
    }
}
