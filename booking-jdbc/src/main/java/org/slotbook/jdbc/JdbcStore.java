package org.slotbook.jdbc;

import javax.sql.DataSource;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.JdbiException;
import org.slotbook.core.BookingStoreException;
import org.slotbook.core.spi.ConflictDetector;
import org.slotbook.core.spi.SeatLedger;
import org.slotbook.jdbc.internal.JdbcConflictDetector;
import org.slotbook.jdbc.internal.JdbcSeatLedger;
import org.slotbook.jdbc.internal.StoreCore;
import org.slotbook.jdbc.internal.Tables;

/**
 * The seat ledger and conflict detector on a relational database (PostgreSQL, MariaDB/MySQL, H2).
 *
 * <pre>{@code
 * JdbcStore store = JdbcStore.create(dataSource);          // tables slotbook_*, dialect detected
 * BookingEngine engine = BookingEngine.builder()
 *     .ledger(store.ledger())
 *     .conflicts(store.conflicts())
 *     .build();
 * }</pre>
 *
 * <p>{@link #ledger()} and {@link #conflicts()} share one transaction type: the engine's conflict
 * check, seat claim, booking row and occupation rows commit together or not at all. Transactions run
 * at READ COMMITTED; a deadlock, serialization failure or lock wait timeout makes the store run the
 * transaction again (a bounded number of times, with jittered back-off). Every other database
 * failure surfaces as a {@link BookingStoreException}. The tables must exist: see {@link JdbcSchema}.
 */
public final class JdbcStore {
    /** Retries after a deadlock or serialization failure, unless the builder says otherwise. */
    public static final int DEFAULT_MAX_RETRIES = 8;

    private final StoreCore core;
    private final JdbcSeatLedger ledger;
    private final JdbcConflictDetector conflicts;

    private JdbcStore(StoreCore core) {
        this.core = core;
        this.ledger = new JdbcSeatLedger(core);
        this.conflicts = new JdbcConflictDetector(core);
    }

    /** A store on the host's DataSource, tables prefixed {@code slotbook_}, dialect detected. */
    public static JdbcStore create(DataSource dataSource) {
        return builder(dataSource).build();
    }

    /** A store on the host's Jdbi instance, tables prefixed {@code slotbook_}, dialect detected. */
    public static JdbcStore create(Jdbi jdbi) {
        return builder(jdbi).build();
    }

    public static Builder builder(DataSource dataSource) {
        if (dataSource == null) {
            throw new IllegalArgumentException("dataSource must not be null");
        }
        return new Builder(Jdbi.create(dataSource));
    }

    public static Builder builder(Jdbi jdbi) {
        if (jdbi == null) {
            throw new IllegalArgumentException("jdbi must not be null");
        }
        return new Builder(jdbi);
    }

    /** The source of truth for slots, seats and bookings. */
    public SeatLedger ledger() {
        return ledger;
    }

    /** Keeps coaches, rooms and students out of overlapping sessions; joins the ledger's transactions. */
    public ConflictDetector conflicts() {
        return conflicts;
    }

    public JdbcDialect dialect() {
        return core.dialect();
    }

    public String tablePrefix() {
        return core.tables().prefix();
    }

    @Override
    public String toString() {
        return "JdbcStore[" + core.dialect() + ", prefix=" + core.tables().prefix() + "]";
    }

    /** Configures a {@link JdbcStore}. */
    public static final class Builder {
        private final Jdbi jdbi;
        private String tablePrefix = Tables.DEFAULT_PREFIX;
        private JdbcDialect dialect;
        private int maxRetries = DEFAULT_MAX_RETRIES;

        private Builder(Jdbi jdbi) {
            this.jdbi = jdbi;
        }

        /** Prefix of every table name: empty or up to 24 characters of a-z, 0-9 and _. Default {@code slotbook_}. */
        public Builder tablePrefix(String prefix) {
            this.tablePrefix = Tables.checkPrefix(prefix);
            return this;
        }

        /** The SQL dialect; by default detected from the database's metadata when {@link #build()} runs. */
        public Builder dialect(JdbcDialect dialect) {
            if (dialect == null) {
                throw new IllegalArgumentException("dialect must not be null");
            }
            this.dialect = dialect;
            return this;
        }

        /** How often a transaction runs again after a deadlock or serialization failure (0..100). Default 8. */
        public Builder maxRetries(int maxRetries) {
            if (maxRetries < 0 || maxRetries > 100) {
                throw new IllegalArgumentException("maxRetries must be between 0 and 100, got " + maxRetries);
            }
            this.maxRetries = maxRetries;
            return this;
        }

        /**
         * @throws BookingStoreException when the dialect must be detected and the database cannot be reached
         */
        public JdbcStore build() {
            JdbcDialect resolved = dialect != null ? dialect : detect(jdbi);
            return new JdbcStore(new StoreCore(jdbi, resolved, new Tables(tablePrefix), maxRetries));
        }

        private static JdbcDialect detect(Jdbi jdbi) {
            try (Handle handle = jdbi.open()) {
                return JdbcDialect.forProductName(handle.getConnection().getMetaData().getDatabaseProductName());
            } catch (JdbiException | java.sql.SQLException e) {
                throw new BookingStoreException("could not detect the SQL dialect: " + e.getMessage(), e);
            }
        }
    }
}
