package org.slotbook.jdbc.internal;

import java.sql.SQLException;
import org.slotbook.core.BookingStoreException;
import org.slotbook.jdbc.JdbcDialect;

/** Classifies driver failures by SQLState (and MariaDB / H2 vendor codes). */
public final class SqlErrors {
    private SqlErrors() {
    }

    /** The first {@link SQLException} in the cause chain, or null. */
    public static SQLException sqlCause(Throwable failure) {
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

    /** What a failed step says to its caller: a retryable failure or a plain store failure. */
    public static BookingStoreException translate(JdbcDialect dialect, String what, Throwable failure) {
        String detail = describe(failure);
        if (isTransient(dialect, failure)) {
            return new TransientStoreException("could not " + what + " (will retry): " + detail, failure);
        }
        return new BookingStoreException("could not " + what + ": " + detail, failure);
    }

    /** A deadlock, serialization failure or lock timeout: the transaction runs again. */
    public static final class TransientStoreException extends BookingStoreException {
        private static final long serialVersionUID = 1L;

        public TransientStoreException(String message, Throwable cause) {
            super(message, cause);
        }
    }
}
