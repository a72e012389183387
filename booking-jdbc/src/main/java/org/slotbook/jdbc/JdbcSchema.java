package org.slotbook.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slotbook.core.BookingStoreException;
import org.slotbook.jdbc.internal.SqlScript;
import org.slotbook.jdbc.internal.Tables;

/**
 * Creates the store's tables from the DDL shipped with this module, for hosts without a migration
 * tool. Safe to run at every start: every statement is {@code CREATE ... IF NOT EXISTS} (on
 * PostgreSQL also {@code CREATE OR REPLACE FUNCTION} for the one-call routines, whose dollar-quoted
 * bodies {@link SqlScript#statements} keeps whole).
 *
 * <p>The same files ({@code org/slotbook/jdbc/schema-postgresql.sql}, {@code schema-mariadb.sql},
 * {@code schema-h2.sql}, and for PostgreSQL the optional {@code schema-postgresql-exclusion.sql})
 * use Flyway's placeholder syntax, {@code ${prefix}}, so a Flyway migration can run them as they are.
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
     * Creates the tables with {@code prefix}, in the dialect detected from the database. On
     * PostgreSQL it also adds the exclusion constraint on overlapping occupations when the
     * {@code btree_gist} extension can be created; without it, the store's locks alone keep
     * coaches, rooms and students from double-booking.
     *
     * @throws BookingStoreException when a statement fails
     */
    public static void create(DataSource dataSource, String prefix) {
        if (dataSource == null) {
            throw new IllegalArgumentException("dataSource must not be null");
        }
        Tables.checkPrefix(prefix);
        JdbcDialect dialect = detect(dataSource);
        run(dataSource, dialect.schemaResource(), prefix);
        if (dialect == JdbcDialect.POSTGRESQL) {
            createPostgresExclusion(dataSource, prefix);
        }
    }

    /**
     * PostgreSQL only: adds the {@code btree_gist} exclusion constraint that refuses overlapping
     * active occupations of one resource. Returns false (and logs why) when it could not be created.
     */
    public static boolean createPostgresExclusion(DataSource dataSource, String prefix) {
        try {
            run(dataSource, EXCLUSION, prefix);
            return true;
        } catch (BookingStoreException e) {
            LOG.warn("PostgreSQL exclusion constraint on {}occupancy not created, the lock path alone guards"
                    + " overlaps: {}", prefix, e.getMessage());
            return false;
        }
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
        String script = SqlScript.load(resource, prefix);
        try (Connection connection = dataSource.getConnection()) {
            connection.setAutoCommit(true);
            try (Statement statement = connection.createStatement()) {
                for (String sql : SqlScript.statements(script)) {
                    try {
                        statement.execute(sql);
                    } catch (SQLException e) {
                        throw new BookingStoreException("could not run " + resource + " statement [" + sql + "]: "
                                + e.getMessage(), e);
                    }
                }
            }
        } catch (SQLException e) {
            throw new BookingStoreException("could not run " + resource + ": " + e.getMessage(), e);
        }
    }
}
