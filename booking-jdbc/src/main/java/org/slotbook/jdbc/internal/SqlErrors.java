package org.slotbook.jdbc.internal;

import java.io.IOException;
import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLRecoverableException;
import java.sql.SQLTransientConnectionException;
import org.jspecify.annotations.Nullable;
import org.slotbook.core.BookingStoreException;
import org.slotbook.core.TenantFencedException;
import org.slotbook.jdbc.JdbcDialect;

/** Classifies driver failures by SQLState (and MariaDB / H2 vendor codes). */
public final class SqlErrors {
    /** The SQLState of a decision refused because its database does not serve the tenant (tenant_fence). */
    public static final String FENCED = "SB002";

    private SqlErrors() {
    }

    /**
     * The database refused the call because its tenant_fence row says it does not serve the tenant (a
     * router's move): searched through the whole cause chain, as H2 wraps its routines' failures.
     */
    public static boolean isFenced(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            for (SQLException sql = t instanceof SQLException s ? s : null; sql != null; sql = sql.getNextException()) {
                if (FENCED.equals(sql.getSQLState())) {
                    return true;
                }
                if (sql.getNextException() == sql) {
                    break;
                }
            }
            if (t.getCause() == t) {
                break;
            }
        }
        return false;
    }

    /** The first {@link SQLException} in the cause chain, or null. */
    public static @Nullable SQLException sqlCause(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof SQLException sql) {
                return sql;
            }
            if (t.getCause() == t) {
                break;
            }
        }
        return null;
    }

    /** A unique (or primary) key refused the write. */
    public static boolean isUniqueViolation(JdbcDialect dialect, Throwable failure) {
        SQLException sql = sqlCause(failure);
        if (sql == null) {
            return false;
        }
        if (dialect == JdbcDialect.MARIADB) {
            return sql.getErrorCode() == 1062 || sql.getErrorCode() == 1586;
        }
        return "23505".equals(sql.getSQLState());
    }

    /**
     * PostgreSQL: the database cannot run the statement at all (SQLState 0A000, feature not supported), as
     * Citus answers a statement it cannot route, such as a batch of holds over distributed tables.
     */
    public static boolean isUnsupported(JdbcDialect dialect, Throwable failure) {
        SQLException sql = sqlCause(failure);
        return dialect == JdbcDialect.POSTGRESQL && sql != null && "0A000".equals(sql.getSQLState());
    }

    /**
     * A failure that a fresh attempt of the whole transaction may not meet again: deadlock,
     * serialization failure, lock wait timeout.
     */
    public static boolean isTransient(JdbcDialect dialect, Throwable failure) {
        for (SQLException sql = sqlCause(failure); sql != null; sql = sql.getNextException()) {
            String state = sql.getSQLState();
            if ("40001".equals(state) || "40P01".equals(state) || "55P03".equals(state)) {
                return true;
            }
            int code = sql.getErrorCode();
            if (dialect == JdbcDialect.MARIADB && (code == 1213 || code == 1205)) {
                return true;
            }
            if (dialect == JdbcDialect.H2 && (code == 40001 || code == 50200 || code == 90131)) {
                return true;
            }
            if (sql.getNextException() == sql) {
                break;
            }
        }
        return false;
    }

    /** SQLState, vendor code and message of the failure. */
    public static String describe(Throwable failure) {
        SQLException sql = sqlCause(failure);
        return sql == null
                ? String.valueOf(failure.getMessage())
                : "SQLState " + sql.getSQLState() + ", error " + sql.getErrorCode() + ": " + sql.getMessage();
    }

    /**
     * The connection itself failed (could not be had, was killed, lost its socket), as opposed to
     * the database refusing a statement on a working connection.
     */
    public static boolean isConnectionFailure(JdbcDialect dialect, Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof SQLRecoverableException || t instanceof SQLNonTransientConnectionException
                    || t instanceof SQLTransientConnectionException || t instanceof IOException) {
                return true;
            }
            if (t instanceof SQLException sql && connectionLost(dialect, sql)) {
                return true;
            }
            if (t.getCause() == t) {
                break;
            }
        }
        return false;
    }

    private static boolean connectionLost(JdbcDialect dialect, SQLException sql) {
        String state = sql.getSQLState();
        // 08: connection exception; 57P01..57P03: PostgreSQL terminated the backend; 70100: MariaDB killed it
        if (state != null && (state.startsWith("08") || state.startsWith("57P0") || state.equals("70100"))) {
            return true;
        }
        int code = sql.getErrorCode();
        return switch (dialect) {
            case MARIADB -> code == 1927 || code == 2006 || code == 2013;
            case H2 -> code == 90067 || code == 90098 || code == 90121;
            case POSTGRESQL -> false;
        };
    }

    /**
     * What a failed call says to its caller. A deadlock-class failure was rolled back and may pass
     * next time. Before the statement was sent nothing changed. After, a broken connection leaves the
     * outcome unknown (the commit may have happened), while an error the database answered means it
     * rolled the call back.
     *
     * @param sent whether the statement had been sent to the database
     */
    public static BookingStoreException translate(JdbcDialect dialect, String what, Throwable failure, boolean sent) {
        String detail = describe(failure);
        if (isFenced(failure)) {
            return new TenantFencedException("could not " + what + ": this database does not serve the tenant (it"
                    + " was moved, or is being moved); retry on its current shard: " + detail, failure);
        }
        if (isTransient(dialect, failure)) {
            return new TransientStoreException("could not " + what + " (will retry): " + detail, failure);
        }
        boolean connection = isConnectionFailure(dialect, failure);
        if (!sent) {
            return new BookingStoreException("could not " + what + " (nothing was sent): " + detail, failure,
                    connection, false);
        }
        if (connection) {
            return new BookingStoreException("could not " + what + " (the connection failed after the call was"
                    + " sent; it may have committed): " + detail, failure, true, true);
        }
        return new BookingStoreException("could not " + what + ": " + detail, failure, false, false);
    }

    /** A deadlock, serialization failure or lock timeout: the transaction runs again. */
    public static final class TransientStoreException extends BookingStoreException {
        private static final long serialVersionUID = 1L;

        public TransientStoreException(String message, Throwable cause) {
            super(message, cause, true, false);
        }
    }
}
