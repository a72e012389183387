package org.slotbook.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.slotbook.jdbc.internal.SqlScript;
import org.slotbook.jdbc.testing.TestDatabases;
import org.slotbook.jdbc.testing.TestDatabases.TestDatabase;

class JdbcSchemaTest {

    @Test
    void createIsIdempotentAndTheDialectIsDetected() {
        try (TestDatabase db = TestDatabases.h2()) {
            JdbcSchema.create(db.dataSource(), db.prefix());
            JdbcSchema.create(db.dataSource(), db.prefix());
            assertThat(JdbcSchema.detect(db.dataSource())).isEqualTo(JdbcDialect.H2);
            assertThat(db.store().dialect()).isEqualTo(JdbcDialect.H2);
            assertThat(db.store().tablePrefix()).isEqualTo(db.prefix());
            assertThat(JdbcStore.builder(db.dataSource()).dialect(JdbcDialect.H2).tablePrefix("").build().tablePrefix())
                    .isEmpty();
        }
    }

    @Test
    void everyShippedScriptHasOnlyThePrefixPlaceholder() {
        for (String resource : List.of(JdbcDialect.POSTGRESQL.schemaResource(), JdbcDialect.MARIADB.schemaResource(),
                JdbcDialect.H2.schemaResource(), "org/slotbook/jdbc/schema-postgresql-exclusion.sql")) {
            String script = SqlScript.load(resource, "p_");
            assertThat(script).as(resource).doesNotContain("${").contains("p_occupancy");
            assertThat(SqlScript.statements(script)).as(resource).isNotEmpty()
                    .allSatisfy(sql -> assertThat(sql).doesNotStartWith("--"));
        }
    }

    @Test
    void statementsSplitOutsideQuotesCommentsAndDollarQuotes() {
        String script = "-- a comment; with a semicolon\nCREATE TABLE a (x VARCHAR(3) DEFAULT ';');\n"
                + "DO $$\nBEGIN\n  PERFORM 1; PERFORM 2;\nEND\n$$;\n\n-- trailing comment\n";
        assertThat(SqlScript.statements(script)).containsExactly(
                "CREATE TABLE a (x VARCHAR(3) DEFAULT ';')",
                "DO $$\nBEGIN\n  PERFORM 1; PERFORM 2;\nEND\n$$");
    }

    @Test
    void badPrefixesAndUnknownProductsAreRefusedByName() {
        assertThatThrownBy(() -> SqlScript.load(JdbcDialect.H2.schemaResource(), "Robert'); DROP TABLE x;--"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("tablePrefix");
        assertThatThrownBy(() -> JdbcStore.builder((javax.sql.DataSource) null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("dataSource");
        assertThatThrownBy(() -> JdbcDialect.forProductName("Oracle"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("Oracle");
        assertThat(JdbcDialect.forProductName("MySQL")).isEqualTo(JdbcDialect.MARIADB);
        assertThat(JdbcDialect.forProductName("PostgreSQL")).isEqualTo(JdbcDialect.POSTGRESQL);
    }
}
