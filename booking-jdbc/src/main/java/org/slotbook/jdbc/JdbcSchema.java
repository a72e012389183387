package org.slotbook.jdbc;

import org.slotbook.core.InvalidInputException;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slotbook.core.BookingStoreException;
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

    private JdbcSchema() {
    }

    /** Creates the tables with the default prefix {@code slotbook_}, in the dialect detected from the database. */
    public static void create(DataSource dataSource) {
        create(dataSource, Tables.DEFAULT_PREFIX);
    }

    /**
     * Creates the tables and routines with {@code prefix}, in the dialect detected from the
     * database. It does not add PostgreSQL's exclusion constraint: the store's locks alone keep
     * coaches, rooms and students from double-booking; see {@link #createExclusionBackstop}.
     *
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

    /** The dialect of the database behind {@code dataSource}. */
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
