package org.slotbook.spring;

import java.util.Map;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.output.MigrateResult;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slotbook.jdbc.JdbcDialect;

/**
 * Runs Slotbook's versioned migrations ({@code db/migration/slotbook/<dialect>/V*__*.sql}) with a
 * Flyway of their own: history table {@code <prefix>schema_history}, placeholder
 * {@code slotbook_prefix}. The host's own migrations and history are left alone, so Slotbook's
 * version numbers never collide with the host's.
 */
public final class SlotbookMigrations {
    private static final Logger LOG = LoggerFactory.getLogger(SlotbookMigrations.class);

    private SlotbookMigrations() {
    }

    /**
     * The Flyway that migrates Slotbook's tables with {@code prefix} on {@code dataSource}.
     *
     * @param dataSource the host's database
     * @param dialect the SQL dialect of the database
     * @param prefix the table prefix: empty or up to 24 characters of a-z, 0-9 and _
     * @return the Flyway, not yet run
     */
    public static Flyway flyway(DataSource dataSource, JdbcDialect dialect, String prefix) {
        return Flyway.configure(SlotbookMigrations.class.getClassLoader())
                .dataSource(dataSource)
                .locations(SlotbookSchema.location(dialect))
                .table(prefix + "schema_history")
                .placeholders(Map.of(SlotbookSchema.PLACEHOLDER, prefix))
                // the schema usually holds the host's tables already: start Slotbook's history below V1
                .baselineOnMigrate(true)
                .baselineVersion("0")
                .load();
    }

    /**
     * Applies every pending migration.
     *
     * @param dataSource the host's database
     * @param dialect the SQL dialect of the database
     * @param prefix the table prefix: empty or up to 24 characters of a-z, 0-9 and _
     * @return what Flyway did
     */
    public static MigrateResult migrate(DataSource dataSource, JdbcDialect dialect, String prefix) {
        MigrateResult result = flyway(dataSource, dialect, prefix).migrate();
        LOG.info("Slotbook migrations (prefix '{}'): {} applied, schema at version {}", prefix,
                result.migrationsExecuted, result.targetSchemaVersion);
        return result;
    }
}
