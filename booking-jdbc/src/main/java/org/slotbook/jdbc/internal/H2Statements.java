package org.slotbook.jdbc.internal;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.slotbook.jdbc.internal.H2Sql.Failure;

/**
 * How one routine call runs its statements on the nested connection: the session's prepared statements
 * ({@link H2Sql.Prepared}), each bound in full, and the tenant's fence, read with the call's first
 * statement. A statement that can carry the fence (the first read of a hold, of a confirm or cancel)
 * reads it in the same statement; any other first statement is preceded by the fence's own read.
 */
abstract class H2Statements {
    final Connection connection;
    final H2Sql sql;
    final String tenant;
    private final H2Sql.Prepared prepared;
    /** Whether this call read the tenant's fence (and found the tenant served here). */
    private boolean fenceRead;

    H2Statements(Connection connection, H2Sql sql, String tenant) {
        this.connection = connection;
        this.sql = sql;
        this.tenant = tenant;
        this.prepared = H2Sql.Prepared.of(connection);
    }

    @FunctionalInterface
    interface RowReader<T> {
        T read(ResultSet rs) throws SQLException;
    }

    /** The end of a call: a call that ran no statement still refuses a tenant not served here. */
    final void checkFenceOnce() throws SQLException {
        if (!fenceRead) {
            fenceRead = true;
            readFence();
        }
    }

    /** Reads the fence on its own (a first statement meant to carry it found no row to carry it with). */
    final void readFence() throws SQLException {
        try (ResultSet rs = bind("fenceState", tenant).executeQuery()) {
            if (rs.next()) {
                fence(rs.getString(1), rs.getLong(2));
            }
        }
    }

    /**
     * Whether the next statement is the call's first, which then reads the fence too: the caller runs the
     * variant that carries it and hands its fence row to {@link #fence}.
     */
    final boolean fenceWithFirst() {
        if (fenceRead) {
            return false;
        }
        fenceRead = true;
        return true;
    }

    /** Refuses a tenant this database does not serve: its tenant_fence row is FENCED or MOVED. */
    final void fence(String state, long epoch) throws SQLException {
        if (!"OWNED".equals(state)) {
            throw new SQLException("tenant " + tenant + " is " + state + " on this database (fence epoch " + epoch
                    + "): call its current shard", SqlErrors.FENCED);
        }
    }

    /** The statements of the session outlive the call; a set of the call's own closes here. */
    final void releaseStatements() {
        prepared.release();
    }

    final int update(String statement, Object... args) {
        try {
            return bind(statement, args).executeUpdate();
        } catch (SQLException e) {
            throw new Failure(e);
        }
    }

    final <T> List<T> query(String statement, RowReader<T> reader, Object... args) {
        try (ResultSet rs = bind(statement, args).executeQuery()) {
            List<T> rows = new ArrayList<>(2);
            while (rs.next()) {
                rows.add(reader.read(rs));
            }
            return rows;
        } catch (SQLException e) {
            throw new Failure(e);
        }
    }

    static <T> Optional<T> first(List<T> rows) {
        return rows.isEmpty() ? Optional.empty() : Optional.of(rows.get(0));
    }

    /**
     * The session's prepared statement of that name, every parameter bound (each call binds them all); the
     * fence is read first when this is the call's first statement.
     */
    final PreparedStatement bind(String statement, Object... args) throws SQLException {
        checkFenceOnce();
        PreparedStatement ps = prepared.get(connection, sql.get(statement));
        for (int i = 0; i < args.length; i++) {
            ps.setObject(i + 1, args[i]);
        }
        return ps;
    }
}
