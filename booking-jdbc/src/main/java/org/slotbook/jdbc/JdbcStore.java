package org.slotbook.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import org.slotbook.core.InvalidInputException;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.slotbook.core.BookingStoreException;
import org.slotbook.core.spi.BookingStore;
import org.slotbook.core.spi.ForwardingStore;
import org.slotbook.core.spi.OutboxStore;
import org.slotbook.jdbc.internal.Connections;
import org.slotbook.jdbc.internal.Decisions;
import org.slotbook.jdbc.internal.OutboxSql;
import org.slotbook.jdbc.internal.StoreCore;
import org.slotbook.jdbc.internal.Tables;

/**
 * The {@link BookingStore} on a relational database (PostgreSQL, MariaDB/MySQL, H2).
 *
 * <pre>{@code
 * JdbcStore store = JdbcStore.create(dataSource);          // tables slotbook_*, dialect detected
 * BookingEngine engine = BookingEngine.builder().store(store).build();
 * }</pre>
 *
 * <p>Each decision (schedule, hold, confirm, cancel, cancelSlot, a sweep batch) is one call of a
 * routine that ships with the schema (a PL/pgSQL function on PostgreSQL, a stored procedure on
 * MariaDB, a Java alias on H2), run in autocommit mode: the routine locks, checks and writes in one
 * READ COMMITTED transaction, so the decision costs one round trip. A deadlock, serialization failure
 * or lock wait timeout makes the store call again (a bounded number of times, with jittered
 * back-off). Every other database failure surfaces as a {@link BookingStoreException}. The tables
 * and routines must exist: see {@link JdbcSchema}.
 */
public final class JdbcStore extends ForwardingStore {
    /** Retries after a deadlock or serialization failure, unless the builder says otherwise. */
    public static final int DEFAULT_MAX_RETRIES = 8;
    /** How many batches of concurrent holds may run at once on PostgreSQL and MariaDB, unless the builder says otherwise. */
    public static final int DEFAULT_HOLD_LANES = 2;
    /** The most hold lanes a store may have. */
    public static final int MAX_HOLD_LANES = 64;

    private final StoreCore core;
    private final Decisions decisions;
    private final OutboxSql outbox;

    private JdbcStore(StoreCore core, int holdLanes) {
        this.core = core;
        this.decisions = new Decisions(core, holdLanes);
        this.outbox = new OutboxSql(core);
    }

    /** {@return the outbox: the events every routine writes with its decision, and their delivery} */
    @Override
    public OutboxStore outbox() {
        return outbox;
    }

    @Override
    protected BookingStore delegate() {
        return decisions;
    }

    /**
     * A store on the host's DataSource, tables prefixed {@code slotbook_}, dialect detected.
     *
     * @param dataSource the host's database, whose schema {@link JdbcSchema} installed
     * @return the store
     */
    public static JdbcStore create(DataSource dataSource) {
        return builder(dataSource).build();
    }

    /**
     * {@return a builder of a store on the host's DataSource, for another table prefix, dialect or retry
     * setting}
     *
     * @param dataSource the host's database, whose schema {@link JdbcSchema} installed
     */
    public static Builder builder(DataSource dataSource) {
        if (dataSource == null) {
            throw new InvalidInputException("dataSource must not be null");
        }
        return new Builder(Connections.of(dataSource));
    }

    /** A builder on any source of connections; {@link JdbiStores} builds one on a Jdbi. */
    static Builder builder(Connections connections) {
        return new Builder(connections);
    }

    /** {@return the SQL dialect of the store's database} */
    public JdbcDialect dialect() {
        return core.dialect();
    }

    /** {@return the prefix of every table name} */
    public String tablePrefix() {
        return core.tables().prefix();
    }

    /**
     * {@return how many batches of concurrent holds may run at once (see {@link Builder#holdLanes}); 0 when each
     * hold is a call of its own (the setting was 0, or the database is H2)}
     */
    public int holdLanes() {
        return decisions.holdLanes();
    }

    @Override
    public String toString() {
        return "JdbcStore[" + core.dialect() + ", prefix=" + core.tables().prefix() + "]";
    }

    /** Configures a {@link JdbcStore}. */
    public static final class Builder {
        private final Connections connections;
        private String tablePrefix = Tables.DEFAULT_PREFIX;
        private @Nullable JdbcDialect dialect;
        private int maxRetries = DEFAULT_MAX_RETRIES;
        private int holdLanes = DEFAULT_HOLD_LANES;

        private Builder(Connections connections) {
            this.connections = connections;
        }

        /**
         * Prefix of every table name: empty or up to 24 characters of a-z, 0-9 and _. Default {@code
         * slotbook_}.
         *
         * @param prefix the table prefix: empty or up to 24 characters of a-z, 0-9 and _
         * @return this builder
         */
        public Builder tablePrefix(String prefix) {
            this.tablePrefix = Tables.checkPrefix(prefix);
            return this;
        }

        /**
         * The SQL dialect; by default detected from the database's metadata when {@link #build()} runs.
         *
         * @param dialect the SQL dialect of the database
         * @return this builder
         */
        public Builder dialect(JdbcDialect dialect) {
            if (dialect == null) {
                throw new InvalidInputException("dialect must not be null");
            }
            this.dialect = dialect;
            return this;
        }

        /**
         * How often a transaction runs again after a deadlock or serialization failure (0..100). Default 8.
         *
         * @param maxRetries retries after a deadlock or serialization failure (0..100)
         * @return this builder
         */
        public Builder maxRetries(int maxRetries) {
            if (maxRetries < 0 || maxRetries > 100) {
                throw new InvalidInputException("maxRetries must be between 0 and 100, got " + maxRetries);
            }
            this.maxRetries = maxRetries;
            return this;
        }

        /**
         * PostgreSQL and MariaDB: how many calls of combined holds may run at once (0..64). Default 2.
         *
         * <p>A hold that finds its lane idle is sent at once, as a call of its own. Holds that arrive
         * while their lane's call runs wait, and go to the database together in the next call (at most
         * 16): one transaction, one commit and one round trip for all of them, each decided by the
         * same routine and answered as if it had been alone. The lanes bound how many connections the
         * holds keep busy at once; about the database server's cores is a good number, more when its
         * disk, not its CPU, is the limit. 0 sends every hold on its own. H2, in the same JVM, and tables
         * distributed by Citus ({@link JdbcSchema#distribute}), where each hold runs on its tenant's worker,
         * send every hold on its own whatever this says (a store whose dialect is set asks nothing at
         * {@link #build}: it stops batching at the first batch Citus refuses).
         *
         * @param lanes how many calls of combined holds may run at once (0..64)
         * @return this builder
         */
        public Builder holdLanes(int lanes) {
            if (lanes < 0 || lanes > MAX_HOLD_LANES) {
                throw new InvalidInputException("holdLanes must be between 0 and " + MAX_HOLD_LANES + ", got "
                        + lanes);
            }
            this.holdLanes = lanes;
            return this;
        }

        /**
         * Builds the store, detecting the dialect (and whether Citus distributes the tables) unless it was set.
         *
         * @return the store
         * @throws BookingStoreException when the dialect must be detected and the database cannot be reached
         */
        public JdbcStore build() {
            if (dialect != null) {
                // nothing asked of the database: on Citus the first batch refused turns batches off
                return new JdbcStore(new StoreCore(connections, dialect, new Tables(tablePrefix), maxRetries),
                        holdLanes);
            }
            try (Connections.Lease lease = connections.open()) {
                Connection connection = lease.connection();
                JdbcDialect resolved = JdbcDialect.forProductName(connection.getMetaData().getDatabaseProductName());
                int lanes = holdLanes > 0 && resolved == JdbcDialect.POSTGRESQL
                        && distributed(connection, tablePrefix) ? 0 : holdLanes;
                return new JdbcStore(new StoreCore(connections, resolved, new Tables(tablePrefix), maxRetries),
                        lanes);
            } catch (SQLException e) {
                throw new BookingStoreException("could not detect the SQL dialect: " + e.getMessage(), e);
            }
        }

        /**
         * Whether the tables are distributed by Citus, where a batch of holds cannot run (its statements read
         * the holds' tenants from arrays, which Citus cannot route to one worker): each hold is then a call of
         * its own, pushed down to its tenant's worker. A catalog that cannot be read counts as not
         * distributed; the store stops sending batches at the first one Citus refuses.
         */
        private static boolean distributed(Connection connection, String prefix) {
            try {
                return Tables.distributed(connection, prefix);
            } catch (SQLException e) {
                return false;
            }
        }
    }
}
