package org.slotbook.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.List;
import java.util.Locale;
import java.util.TreeMap;
import java.util.UUID;
import javax.sql.DataSource;
import org.flywaydb.core.api.output.MigrateResult;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.slotbook.jdbc.JdbcDialect;
import org.slotbook.jdbc.JdbcSchema;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

/**
 * Slotbook's versioned migrations, applied by Flyway (the version Spring Boot manages) to a fresh
 * prefix, build the same tables, columns and routines as {@link JdbcSchema#create}: a change to the
 * shipped schema that is not also shipped as a new migration fails here.
 */
class MigrationsMatchSchemaTest {

    static DataSource dataSource(String db) {
        String url = switch (db) {
            case "postgresql" -> System.getenv("SLOTBOOK_TEST_POSTGRES_URL");
            case "mariadb" -> System.getenv("SLOTBOOK_TEST_MARIADB_URL");
            default -> "jdbc:h2:mem:mig-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1";
        };
        if (url == null) {
            assumeTrue("true".equals(System.getenv("SLOTBOOK_TEST_REQUIRE_SERVICES")) ? fail(db) : false,
                    "no " + db + " server configured");
        }
        return new DriverManagerDataSource(url);
    }

    private static boolean fail(String db) {
        throw new IllegalStateException("SLOTBOOK_TEST_REQUIRE_SERVICES is set but no " + db + " URL is");
    }

    @ParameterizedTest
    @ValueSource(strings = {"postgresql", "mariadb", "h2"})
    void flywayBuildsWhatJdbcSchemaCreateBuilds(String db) {
        DataSource dataSource = dataSource(db);
        JdbcDialect dialect = JdbcSchema.detect(dataSource);
        String id = UUID.randomUUID().toString().replace("-", "").substring(0, 8);
        String migrated = "fm" + id + "_";
        String created = "fc" + id + "_";

        MigrateResult result = SlotbookMigrations.migrate(dataSource, dialect, migrated);
        assertThat(result.success).isTrue();
        assertThat(result.migrationsExecuted).isEqualTo(1);
        JdbcSchema.create(dataSource, created);

        JdbcTemplate sql = new JdbcTemplate(dataSource);
        TreeMap<String, String> fromFlyway = describe(sql, dialect, migrated);
        TreeMap<String, String> fromCreate = describe(sql, dialect, created);
        assertThat(fromFlyway.keySet()).isNotEmpty().isEqualTo(fromCreate.keySet());
        fromCreate.forEach((what, description) -> assertThat(fromFlyway.get(what)).as(what).isEqualTo(description));
        assertThat(fromFlyway.keySet()).anyMatch(k -> k.startsWith("routine hold"));
        assertThat(SlotbookSchema.missing(dataSource, dialect, migrated)).isEmpty();
        // a second run finds nothing to do
        assertThat(SlotbookMigrations.migrate(dataSource, dialect, migrated).migrationsExecuted).isZero();
    }

    /** Columns (type, nullability) of every table with the prefix, and routines with their bodies, prefix removed. */
    private static TreeMap<String, String> describe(JdbcTemplate sql, JdbcDialect dialect, String prefix) {
        String schema = switch (dialect) {
            case POSTGRESQL -> "current_schema()";
            case MARIADB -> "DATABASE()";
            case H2 -> "SCHEMA()";
        };
        TreeMap<String, String> out = new TreeMap<>();
        String like = prefix.toLowerCase(Locale.ROOT) + "%";
        List<java.util.Map<String, Object>> columns = sql.queryForList("SELECT table_name, column_name, data_type,"
                + " is_nullable FROM information_schema.columns WHERE table_schema = " + schema
                + " AND LOWER(table_name) LIKE ? AND LOWER(table_name) NOT LIKE ?", like,
                prefix.toLowerCase(Locale.ROOT) + "schema_history");
        for (var row : columns) {
            out.put("column " + strip(row.get("table_name"), prefix) + "." + lower(row.get("column_name")),
                    lower(row.get("data_type")) + " " + lower(row.get("is_nullable")));
        }
        String body = dialect == JdbcDialect.H2 ? "routine_type" : "routine_definition";
        for (var row : sql.queryForList("SELECT routine_name, " + body + " AS body FROM information_schema.routines"
                + " WHERE routine_schema = " + schema + " AND LOWER(routine_name) LIKE ?", like)) {
            out.put("routine " + strip(row.get("routine_name"), prefix),
                    String.valueOf(row.get("body")).replace(prefix, "<prefix>")
                            // comments: Flyway sends them, JdbcSchema.create leaves them out
                            .replaceAll("--[^\n]*", "").replaceAll("\\s+", " ").strip());
        }
        return out;
    }

    private static String lower(Object value) {
        return String.valueOf(value).toLowerCase(Locale.ROOT);
    }

    private static String strip(Object name, String prefix) {
        return lower(name).substring(prefix.length());
    }
}
