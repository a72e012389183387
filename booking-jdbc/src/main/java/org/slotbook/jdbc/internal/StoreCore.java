package org.slotbook.jdbc.internal;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Collections;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slotbook.core.BookingStoreException;
import org.slotbook.core.StoreUnreachableException;
import org.slotbook.core.TenantId;
import org.slotbook.core.spi.DuplicateBookingException;
import org.slotbook.jdbc.JdbcDialect;

/**
 * Runs one statement, a decision routine's call or a read, on a connection of the pool in
 * autocommit mode: the routine's call is its own transaction, so a decision costs one round trip.
 * After a deadlock, serialization failure or lock wait timeout the call runs again (bounded, with
 * jittered back-off); a routine rolls back whole, so a retry starts from a clean state. Failures
 * say whether a retry can help and whether the call may have committed
 * ({@link BookingStoreException#retryable()}, {@link BookingStoreException#outcomeUnknown()}).
 */
public final class StoreCore {
    private static final Logger LOG = LoggerFactory.getLogger(StoreCore.class);
    private static final long BASE_BACKOFF_NANOS = 2_000_000L;
    private static final long MAX_BACKOFF_NANOS = 200_000_000L;

    /** The host's DataSource or Jdbi. */
    private final Connections connections;
    private final SqlDialect sql;
    private final Tables tables;
    private final int maxRetries;
    /** Physical connections already seen at READ COMMITTED (PostgreSQL, whose isolation query is a round trip). */
    private final Map<Object, Boolean> readCommitted = Collections.synchronizedMap(new WeakHashMap<>());

    public StoreCore(Connections connections, JdbcDialect dialect, Tables tables, int maxRetries) {
        this.connections = connections;
        this.tables = tables;
        this.sql = SqlDialect.of(dialect, tables);
        this.maxRetries = maxRetries;
    }

    public JdbcDialect dialect() {
        return sql.dialect();
    }

    public SqlDialect sql() {
        return sql;
    }

    public Tables tables() {
        return tables;
    }

    /** Binds a statement's parameters. */
    @FunctionalInterface
    public interface Binder {
        void bind(PreparedStatement statement) throws SQLException;
    }

    /** Reads a statement's rows. */
    @FunctionalInterface
    public interface Reader<T> {
        T read(ResultSet rows) throws SQLException;
    }

    /**
     * Runs {@code statement} and reads its rows.
     *
     * <p>A {@link BookingStoreException} says what the caller may conclude: no connection could be
     * had (nothing was sent: retryable, nothing changed); the retries after deadlocks ran out
     * (retryable, rolled back); the connection broke after the statement was sent (outcome
     * unknown, retryable); the database refused the statement (rolled back, not retryable).
     *
     * @param tenantId   the tenant the statement reads or changes (null: a read across tenants)
     * @param what       says what failed in an exception's message
     * @param duplicates a unique-key violation becomes {@link DuplicateBookingException} (else a store failure)
     */
    public <T> T run(TenantId tenantId, String what, String statement, Binder binder, Reader<T> reader,
                     boolean duplicates) {
        for (int attempt = 1; ; attempt++) {
            Progress progress = new Progress();
            try {
                return attempt(what, statement, binder, reader, progress);
            } catch (SQLException e) {
                if (SqlErrors.isTransient(sql.dialect(), e)) {
                    if (attempt > maxRetries) {
                        throw new BookingStoreException("could not " + what
                                + (tenantId == null ? "" : " for tenant " + tenantId)
                                + ": gave up after " + attempt + " attempts: " + SqlErrors.describe(e), e,
                                true, false);
                    }
                    LOG.debug("attempt {} to {} for tenant {} failed, retrying: {}", attempt, what, tenantId,
                            e.getMessage());
                    backOff(attempt);
                    continue;
                }
                if (duplicates && SqlErrors.isUniqueViolation(sql.dialect(), e)) {
                    throw new DuplicateBookingException("could not " + what + ": a unique key refused it", e);
                }
                throw SqlErrors.translate(sql.dialect(), what, e, progress.sent);
            }
        }
    }

    /** Work done on one connection inside one transaction. */
    @FunctionalInterface
    public interface Work<T> {
        T run(Connection connection) throws SQLException;
    }

    /**
     * Runs {@code work} in one READ COMMITTED transaction on one connection of the pool (several statements,
     * for what is not a decision: the outbox's relay and pull), committed when it returns, rolled back when it
     * throws; run again after a deadlock or serialization failure, as {@link #run} does.
     *
     * @param tenantId the tenant the work reads or changes (null: across tenants)
     * @param what says what failed in an exception's message
     */
    public <T> T transaction(TenantId tenantId, String what, Work<T> work) {
        for (int attempt = 1; ; attempt++) {
            Progress progress = new Progress();
            try (Connections.Lease lease = open(what)) {
                Connection connection = lease.connection();
                prepare(connection);
                int isolation = connection.getTransactionIsolation();
                if (isolation != Connection.TRANSACTION_READ_COMMITTED) {
                    connection.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
                }
                connection.setAutoCommit(false);
                try {
                    progress.sent = true;
                    T result = work.run(connection);
                    connection.commit();
                    return result;
                } catch (SQLException | RuntimeException e) {
                    try {
                        connection.rollback();
                    } catch (SQLException undo) {
                        e.addSuppressed(undo);
                    }
                    throw e;
                } finally {
                    connection.setAutoCommit(true);
                    if (isolation != Connection.TRANSACTION_READ_COMMITTED) {
                        connection.setTransactionIsolation(isolation);
                    }
                }
            } catch (SQLException e) {
                if (SqlErrors.isTransient(sql.dialect(), e) && attempt <= maxRetries) {
                    backOff(attempt);
                    continue;
                }
                throw SqlErrors.translate(sql.dialect(), what + (tenantId == null ? "" : " for tenant " + tenantId), e,
                        progress.sent);
            }
        }
    }

    /** Whether the attempt's statement went to the database. */
    private static final class Progress {
        boolean sent;
    }

    private <T> T attempt(String what, String statement, Binder binder, Reader<T> reader, Progress progress)
            throws SQLException {
        try (Connections.Lease lease = open(what)) {
            return call(lease.connection(), statement, binder, reader, progress);
        }
    }

    private <T> T call(Connection connection, String statement, Binder binder, Reader<T> reader, Progress progress)
            throws SQLException {
        prepare(connection);
        try (PreparedStatement ps = connection.prepareStatement(statement)) {
            binder.bind(ps);
            progress.sent = true;
            try (ResultSet rows = ps.executeQuery()) {
                return reader.read(rows);
            }
        }
    }

    /** A connection from the pool; failing that, nothing was sent, and a later try may find the database back. */
    private Connections.Lease open(String what) {
        try {
            return connections.open();
        } catch (SQLException | RuntimeException e) {
            throw cannotConnect(what, e);
        }
    }

    private static BookingStoreException cannotConnect(String what, Exception e) {
        return new StoreUnreachableException("could not " + what + ": could not open a database connection: "
                + SqlErrors.describe(e), e);
    }

    /**
     * Autocommit on (each call is its own transaction) and, where the routine cannot set it itself,
     * READ COMMITTED. Both are local checks except the first isolation check of a PostgreSQL
     * connection; a pool that resets what it lends restores the host's settings afterwards.
     */
    private void prepare(Connection connection) throws SQLException {
        if (!connection.getAutoCommit()) {
            connection.setAutoCommit(true);
        }
        if (!sql.checksIsolation()) {
            return;
        }
        Object physical = physical(connection);
        if (readCommitted.containsKey(physical)) {
            return;
        }
        if (SqlDialect.readCommitted(connection)) {
            readCommitted.put(physical, Boolean.TRUE);
        } else {
            connection.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
        }
    }

    private static Object physical(Connection connection) {
        try {
            Connection inner = connection.unwrap(Connection.class);
            return inner == null ? connection : inner;
        } catch (SQLException e) {
            return connection;
        }
    }

    private static void backOff(int attempt) {
        long ceiling = Math.min(MAX_BACKOFF_NANOS, BASE_BACKOFF_NANOS << Math.min(attempt, 16));
        LockSupport.parkNanos(ThreadLocalRandom.current().nextLong(ceiling / 2, ceiling + 1));
    }
}
