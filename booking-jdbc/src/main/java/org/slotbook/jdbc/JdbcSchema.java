package org.slotbook.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slotbook.core.BookingStoreException;
import org.slotbook.core.InvalidInputException;
import org.slotbook.jdbc.internal.SchemaObjects;
import org.slotbook.jdbc.internal.SqlScript;
import org.slotbook.jdbc.internal.Tables;

/**
 * Creates the store's tables and decision routines from the files shipped with this module, for
 * hosts without a migration tool. Safe to run at every start: tables are {@code CREATE ... IF NOT
 * EXISTS}, routines {@code CREATE OR REPLACE} (H2: {@code CREATE ALIAS IF NOT EXISTS}).
 * {@link #drop} removes them again.
 *
 * <p>The same files ({@code org/slotbook/jdbc/schema-<dialect>.sql} with the tables, then
 * {@code routines-<dialect>.sql} with the routines, for {@code postgresql}, {@code mariadb} and
 * {@code h2}; for PostgreSQL the optional {@code schema-postgresql-exclusion.sql}, which
 * {@link #create} does not run, see {@link #createExclusionBackstop}) use Flyway's placeholder
 * syntax, {@code ${prefix}}, so a Flyway migration can run them as they are.
 */
public final class JdbcSchema {
    private static final Logger LOG = LoggerFactory.getLogger(JdbcSchema.class);
    private static final String EXCLUSION = "org/slotbook/jdbc/schema-postgresql-exclusion.sql";
    private static final String CITUS = "org/slotbook/jdbc/schema-postgresql-citus.sql";

    private JdbcSchema() {
    }

    /**
     * Creates the tables with the default prefix {@code slotbook_}, in the dialect detected from the database.
     *
     * @param dataSource the database to create the tables in
     */
    public static void create(DataSource dataSource) {
        create(dataSource, Tables.DEFAULT_PREFIX);
    }

    /**
     * Creates the tables and routines with {@code prefix}, in the dialect detected from the
     * database. It does not add PostgreSQL's exclusion constraint: the store's locks alone keep
     * coaches, rooms and students from double-booking; see {@link #createExclusionBackstop}.
     *
     * @param dataSource the database to create the tables in
     * @param prefix the table prefix: empty or up to 24 characters of a-z, 0-9 and _
     * @throws BookingStoreException when a statement fails
     */
    public static void create(DataSource dataSource, String prefix) {
        if (dataSource == null) {
            throw new InvalidInputException("dataSource must not be null");
        }
        Tables.checkPrefix(prefix);
        JdbcDialect dialect = detect(dataSource);
        run(dataSource, dialect.schemaResource(), prefix);
        run(dataSource, dialect.routinesResource(), prefix);
    }

    /**
     * Drops what {@link #create} made under {@code prefix}, in the dialect detected from the database:
     * the decision routines (on PostgreSQL then the row type they answer), then the tables with their
     * rows, indexes and constraints (the exclusion backstop goes with its table). For a host's
     * integration tests that clean up after themselves, and for retiring a prefix. Idempotent: what is already gone is skipped, so it may run twice, or
     * after a {@code create} that failed half-way. Nothing outside the prefix is touched (PostgreSQL's
     * {@code btree_gist} extension stays). A host object that depends on one of the tables (a view, a
     * foreign key) makes the drop fail instead of going with it.
     *
     * @param dataSource the database to drop the tables from
     * @param prefix the table prefix: empty or up to 24 characters of a-z, 0-9 and _
     * @throws BookingStoreException when a statement fails
     */
    public static void drop(DataSource dataSource, String prefix) {
        if (dataSource == null) {
            throw new InvalidInputException("dataSource must not be null");
        }
        Tables.checkPrefix(prefix);
        SchemaObjects objects = SchemaObjects.of(detect(dataSource), prefix);
        execute(dataSource, "drop the schema of prefix '" + prefix + "'", objects::dropStatements);
        LOG.debug("dropped the tables and routines of prefix '{}'", prefix);
    }

    /**
     * PostgreSQL only, opt-in: adds the {@code btree_gist} exclusion constraint
     * {@code <prefix>occupancy_no_overlap}, with which the database itself refuses two overlapping
     * active occupations of one resource, a backstop behind the store's lock-then-check path.
     * Runs {@code schema-postgresql-exclusion.sql}; idempotent.
     *
     * <p>Mind the cost before calling it. Every occupation written afterwards also maintains a GiST
     * index: bulk loads of schedules and holds ran about 18 times slower with it. Adding it to a
     * table that already has rows builds that index under an {@code ACCESS EXCLUSIVE} lock on
     * {@code <prefix>occupancy} (an exclusion constraint cannot be added {@code NOT VALID}), during
     * which every schedule and hold of every tenant waits: over 1 million existing rows it took 142
     * seconds. Add it to an empty table, or in a maintenance window. It needs the {@code btree_gist}
     * extension (its creation needs the CREATE privilege on the database, or an administrator who
     * created it beforehand).
     *
     * @param dataSource the PostgreSQL database
     * @param prefix the table prefix: empty or up to 24 characters of a-z, 0-9 and _
     * @throws IllegalArgumentException when the database is not PostgreSQL
     * @throws BookingStoreException    when the extension or the constraint could not be created
     */
    public static void createExclusionBackstop(DataSource dataSource, String prefix) {
        if (dataSource == null) {
            throw new InvalidInputException("dataSource must not be null");
        }
        Tables.checkPrefix(prefix);
        JdbcDialect dialect = detect(dataSource);
        if (dialect != JdbcDialect.POSTGRESQL) {
            throw new InvalidInputException("the exclusion backstop exists on PostgreSQL only, this database is "
                    + dialect);
        }
        run(dataSource, EXCLUSION, prefix);
        LOG.info("PostgreSQL exclusion constraint {}occupancy_no_overlap is in place", prefix);
    }

    /**
     * Citus (distributed PostgreSQL) only: distributes the tables of {@code prefix} by {@code tenant_id},
     * all colocated with {@code <prefix>slot}, and every routine with a tenant argument by it, so that a
     * decision runs on the worker that holds its tenant (see {@code schema-postgresql-citus.sql}, which a
     * Flyway migration may run as it is). Run it on the coordinator after {@link #create}, and again after
     * every later {@code create} (an upgrade may bring a new routine): what is distributed already is left
     * as it is. The tables may hold rows: Citus copies them into the shards while it distributes a table,
     * under a lock that makes its writers wait.
     *
     * @param dataSource the coordinator's database
     * @param prefix     the tables' prefix
     * @throws IllegalArgumentException when the database is not PostgreSQL
     * @throws BookingStoreException    when the Citus extension is missing, a table does not exist, or Citus
     *                                  refuses
     */
    public static void distribute(DataSource dataSource, String prefix) {
        if (dataSource == null) {
            throw new InvalidInputException("dataSource must not be null");
        }
        Tables.checkPrefix(prefix);
        JdbcDialect dialect = detect(dataSource);
        if (dialect != JdbcDialect.POSTGRESQL) {
            throw new InvalidInputException("Citus distributes PostgreSQL tables only, this database is " + dialect);
        }
        run(dataSource, CITUS, prefix);
        LOG.info("the tables and routines of prefix '{}' are distributed by tenant_id (Citus)", prefix);
    }

    /**
     * Whether the tables of {@code prefix} are distributed by Citus ({@link #distribute}): false on a database
     * without the Citus extension, and on any other dialect.
     *
     * @param dataSource the database
     * @param prefix     the tables' prefix
     * @return whether the tables are distributed
     * @throws BookingStoreException when the database cannot be asked
     */
    public static boolean distributed(DataSource dataSource, String prefix) {
        if (dataSource == null) {
            throw new InvalidInputException("dataSource must not be null");
        }
        Tables.checkPrefix(prefix);
        if (detect(dataSource) != JdbcDialect.POSTGRESQL) {
            return false;
        }
        try (Connection connection = dataSource.getConnection()) {
            return Tables.distributed(connection, prefix);
        } catch (SQLException e) {
            throw new BookingStoreException("could not ask whether prefix '" + prefix + "' is distributed: "
                    + e.getMessage(), e);
        }
    }

    /**
     * {@return the dialect of the database behind {@code dataSource}}
     *
     * @param dataSource the host's database
     */
    public static JdbcDialect detect(DataSource dataSource) {
        try (Connection connection = dataSource.getConnection()) {
            return JdbcDialect.forProductName(connection.getMetaData().getDatabaseProductName());
        } catch (SQLException e) {
            throw new BookingStoreException("could not read the database product name: " + e.getMessage(), e);
        }
    }

    private static void run(DataSource dataSource, String resource, String prefix) {
        List<String> statements = SqlScript.statements(SqlScript.load(resource, prefix));
        execute(dataSource, "run " + resource, connection -> statements);
    }

    /** The statements to run, which may depend on what the connection finds. */
    private interface Statements {
        List<String> on(Connection connection) throws SQLException;
    }

    /** Runs statements one by one on one connection in autocommit; {@code what} names the work in a failure. */
    private static void execute(DataSource dataSource, String what, Statements statements) {
        try (Connection connection = dataSource.getConnection()) {
            connection.setAutoCommit(true);
            try (Statement statement = connection.createStatement()) {
                for (String sql : statements.on(connection)) {
                    try {
                        statement.execute(sql);
                    } catch (SQLException e) {
                        throw new BookingStoreException("could not " + what + " statement [" + sql + "]: "
                                + e.getMessage(), e);
                    }
                }
            }
        } catch (SQLException e) {
            throw new BookingStoreException("could not " + what + ": " + e.getMessage(), e);
        }
    }
}
