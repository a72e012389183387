package org.slotbook.jdbc.internal;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Function;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.JdbiException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slotbook.core.BookingStoreException;
import org.slotbook.core.TenantId;
import org.slotbook.core.spi.StoreTransaction;
import org.slotbook.jdbc.JdbcDialect;
import org.slotbook.jdbc.internal.SqlErrors.TransientStoreException;

/**
 * What the ledger and the detector of one store share: the Jdbi instance, dialect, table names and
 * the transaction runner. {@link #inTransaction} runs the work at READ COMMITTED on one connection
 * and runs it again (bounded, with jittered back-off) after a deadlock, serialization failure or
 * lock wait timeout.
 */
public final class StoreCore {
    private static final Logger LOG = LoggerFactory.getLogger(StoreCore.class);
    private static final long BASE_BACKOFF_NANOS = 2_000_000L;
    private static final long MAX_BACKOFF_NANOS = 200_000_000L;

    private final Jdbi jdbi;
    private final JdbcDialect dialect;
    private final Tables tables;
    private final Times times;
    private final int maxRetries;

    public StoreCore(Jdbi jdbi, JdbcDialect dialect, Tables tables, int maxRetries) {
        this.jdbi = jdbi;
        this.dialect = dialect;
        this.tables = tables;
        this.times = new Times(dialect);
        this.maxRetries = maxRetries;
    }

    public JdbcDialect dialect() {
        return dialect;
    }

    public Tables tables() {
        return tables;
    }

    public Times times() {
        return times;
    }

    public int maxRetries() {
        return maxRetries;
    }

    /** The store's own transaction behind {@code tx}; a transaction of another store is refused. */
    public JdbcTx tx(StoreTransaction tx) {
        if (tx == null) {
            throw new IllegalArgumentException("tx must not be null");
        }
        if (!(tx instanceof JdbcTx jdbcTx) || jdbcTx.store() != this) {
            throw new IllegalArgumentException("tx must be a transaction of this JDBC store, got " + tx);
        }
        return jdbcTx;
    }

    public <T> T inTransaction(TenantId tenantId, Function<StoreTransaction, T> work) {
        if (tenantId == null) {
            throw new IllegalArgumentException("tenantId must not be null");
        }
        if (work == null) {
            throw new IllegalArgumentException("work must not be null");
        }
        for (int attempt = 1; ; attempt++) {
            try {
                return attempt(tenantId, work);
            } catch (TransientStoreException e) {
                if (attempt > maxRetries) {
                    throw new BookingStoreException("transaction of tenant " + tenantId + " gave up after "
                            + attempt + " attempts: " + e.getMessage(), e);
                }
                LOG.debug("attempt {} of a transaction of tenant {} failed, retrying: {}", attempt, tenantId,
                        e.getMessage());
                backOff(attempt);
            }
        }
    }

    private <T> T attempt(TenantId tenantId, Function<StoreTransaction, T> work) {
        Handle handle = open();
        JdbcTx tx = new JdbcTx(this, handle, tenantId);
        try {
            begin(handle);
            T result;
            try {
                result = work.apply(tx);
            } catch (RuntimeException | Error e) {
                rollbackQuietly(handle, e);
                RuntimeException failure = tx.failure();
                if (failure instanceof TransientStoreException transientFailure && e != failure) {
                    // the work swallowed or wrapped the deadlock of one of its statements: run it again
                    throw transientFailure;
                }
                throw e;
            }
            RuntimeException failure = tx.failure();
            if (tx.isRollbackOnly()) {
                handle.rollback();
                if (failure instanceof BookingStoreException) {
                    // a statement failed but the work went on: nothing was committed, say so
                    throw failure;
                }
                return result;
            }
            handle.commit();
            return result;
        } catch (JdbiException e) {
            rollbackQuietly(handle, e);
            throw SqlErrors.translate(dialect, "complete the transaction of tenant " + tenantId, e);
        } finally {
            tx.close();
            closeQuietly(handle);
        }
    }

    private Handle open() {
        try {
            return jdbi.open();
        } catch (JdbiException e) {
            throw SqlErrors.translate(dialect, "open a database connection", e);
        }
    }

    private void begin(Handle handle) {
        try {
            Connection connection = handle.getConnection();
            if (connection.getTransactionIsolation() != Connection.TRANSACTION_READ_COMMITTED) {
                connection.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
            }
        } catch (SQLException e) {
            throw SqlErrors.translate(dialect, "set READ COMMITTED isolation", e);
        }
        handle.begin();
    }

    private static void rollbackQuietly(Handle handle, Throwable cause) {
        try {
            if (handle.isInTransaction()) {
                handle.rollback();
            }
        } catch (RuntimeException e) {
            cause.addSuppressed(e);
        }
    }

    private static void closeQuietly(Handle handle) {
        try {
            handle.close();
        } catch (RuntimeException e) {
            LOG.debug("closing a connection failed: {}", e.toString());
        }
    }

    private static void backOff(int attempt) {
        long ceiling = Math.min(MAX_BACKOFF_NANOS, BASE_BACKOFF_NANOS << Math.min(attempt, 16));
        LockSupport.parkNanos(ThreadLocalRandom.current().nextLong(ceiling / 2, ceiling + 1));
    }

    /** Runs one step of a primitive, translating driver failures and marking the transaction failed. */
    public <R> R step(JdbcTx tx, String what, Function<Handle, R> body) {
        try {
            return body.apply(tx.handle());
        } catch (JdbiException e) {
            BookingStoreException failure = SqlErrors.translate(dialect, what, e);
            tx.failed(failure);
            throw failure;
        }
    }
}
