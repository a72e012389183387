package org.slotbook.spring;

import java.util.Map;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.output.MigrateResult;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slotbook.jdbc.JdbcDialect;

/**
 * Runs Slotbook's migration ({@code org/slotbook/jdbc/migration/<dialect>/R__slotbook.sql}) with a
 * Flyway of its own: history table {@code <prefix>schema_history}, placeholder {@code slotbook_prefix}.
 * The host's own migrations and history are left alone, so nothing of Slotbook's meets the host's
 * version numbers.
 *
 * <p>The migration is repeatable: every statement is idempotent and brings an earlier Slotbook schema
 * up to date. So a non-empty schema needs no baseline for it, a release that changes it is applied by
 * running it again, and a history written by earlier releases (a versioned {@code V1__slotbook.sql},
 * from {@code db/migration/slotbook/<dialect>}) is accepted as it is.
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
                // the schema usually holds the host's tables already: start Slotbook's history there
                .baselineOnMigrate(true)
                .baselineVersion("0")
                // V1__slotbook.sql of earlier releases, applied and no longer shipped: the repeatable
                // migration has taken its place and brings its tables up to date. Flyway's validation
                // would refuse that row; this history holds Slotbook's migration alone, whose changed
                // checksum is what a repeatable migration is for, so there is nothing else to validate.
                .ignoreMigrationPatterns("*:missing")
                .validateOnMigrate(false)
                .load();
    }

    /**
     * Applies the migration when it is new or changed.
     *
     * @param dataSource the host's database
     * @param dialect the SQL dialect of the database
     * @param prefix the table prefix: empty or up to 24 characters of a-z, 0-9 and _
     * @return what Flyway did
     */
    public static MigrateResult migrate(DataSource dataSource, JdbcDialect dialect, String prefix) {
        MigrateResult result = flyway(dataSource, dialect, prefix).migrate();
        LOG.info("Slotbook migration (prefix '{}', history {}schema_history): {} applied", prefix, prefix,
                result.migrationsExecuted);
        return result;
    }
}
