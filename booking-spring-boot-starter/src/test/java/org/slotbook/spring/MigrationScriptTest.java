package org.slotbook.spring;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.slotbook.jdbc.JdbcSchema;

/**
 * The migration in booking-jdbc's jar is built from the one copy of the schema and routines: a header,
 * {@code schema-<db>.sql}, a blank line and {@code routines-<db>.sql}, with the placeholder
 * {@code ${prefix}} renamed {@code ${slotbook_prefix}}; it is shipped once per dialect, outside
 * {@code db/migration}, where no default Flyway location finds it. {@link MigrationsMatchSchemaTest}
 * runs it with Flyway.
 */
class MigrationScriptTest {

    @ParameterizedTest
    @ValueSource(strings = {"postgresql", "mariadb", "h2"})
    void theJarsMigrationIsTheSchemaAndTheRoutines(String db) throws IOException {
        URL v1 = resource("org/slotbook/jdbc/migration/" + db + "/R__slotbook.sql");
        URL schema = resource("org/slotbook/jdbc/schema-" + db + ".sql");
        // both come from the same booking-jdbc artifact
        String jar = schema.toString().substring(0, schema.toString().indexOf("org/slotbook/jdbc/"));
        assertThat(v1.toString()).startsWith(jar);

        String expected = "-- Slotbook's schema for " + db + ": the tables (schema-" + db + ".sql) and the decision"
                + " routines (routines-" + db + ".sql),\n"
                + "-- with the table prefix as the Flyway placeholder ${slotbook_prefix}. A repeatable migration:"
                + " every statement\n"
                + "-- is idempotent and brings an earlier Slotbook schema up to date, so Flyway runs it again when"
                + " a release\n"
                + "-- changes it, and no baseline skips it.\n"
                + "\n"
                + forFlyway(read(schema)) + "\n" + forFlyway(read(resource("org/slotbook/jdbc/routines-" + db + ".sql")));
        assertThat(read(v1)).isEqualTo(expected);
        assertThat(read(v1)).doesNotContain("${prefix}").contains("CREATE TABLE IF NOT EXISTS ${slotbook_prefix}slot");
    }

    @org.junit.jupiter.api.Test
    void noMigrationOfSlotbookIsWhereSpringBootsFlywayLooksByDefault() throws IOException {
        String jdbcJar = resource("org/slotbook/jdbc/schema-h2.sql").toString().split("org/slotbook/jdbc/")[0];
        assertThat(java.util.Collections.list(JdbcSchema.class.getClassLoader().getResources("db/migration")))
                .as("booking-jdbc ships nothing under db/migration")
                .noneMatch(url -> url.toString().startsWith(jdbcJar));
    }

    private static String forFlyway(String script) {
        String text = script.replace("${prefix}", "${" + SlotbookSchema.PLACEHOLDER + "}")
                .replace("Flyway users define the placeholder \"prefix\".", "this migration names it slotbook_prefix.");
        return text.endsWith("\n") ? text : text + "\n";
    }

    private static URL resource(String name) {
        URL url = JdbcSchema.class.getClassLoader().getResource(name);
        assertThat(url).as(name).isNotNull();
        return url;
    }

    private static String read(URL url) throws IOException {
        try (InputStream in = url.openStream()) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}
