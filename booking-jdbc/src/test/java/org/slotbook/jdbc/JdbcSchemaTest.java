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
    void theExclusionBackstopIsOptInAndPostgresOnly() {
        try (TestDatabase db = TestDatabases.h2()) {
            assertThatThrownBy(() -> JdbcSchema.createExclusionBackstop(db.dataSource(), db.prefix()))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("PostgreSQL only");
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
    void theMariaDbRoutinesAreEachOneStatement() {
        List<String> statements = SqlScript.statements(SqlScript.load(JdbcDialect.MARIADB.routinesResource(), "p_"));
        assertThat(statements).allSatisfy(sql -> assertThat(sql).startsWith("CREATE OR REPLACE ").endsWith("END"));
        // the helpers the decisions call inside their one transaction, then the decisions
        assertThat(statements).extracting(sql -> sql.substring(sql.indexOf("p_"), sql.indexOf('(')))
                .containsExactly("p_fact", "p_booking_fact", "p_waiter_fact", "p_slot_fact", "p_noted",
                        "p_answer_rows", "p_fence_check", "p_emit", "p_outbox_write", "p_outbox_batch", "p_terms", "p_slot_rules", "p_record", "p_rec_field", "p_batch_size",
                        "p_micros_dt", "p_lock_resource", "p_find_payer", "p_charge", "p_refund",
                        "p_refund_dead_holds", "p_forfeit",
                        "p_expire_booking", "p_promote", "p_retire", "p_schedule_do", "p_schedule", "p_hold_do",
                        "p_hold", "p_confirm", "p_cancel", "p_cancel_slot_do", "p_cancel_slot", "p_expire_due",
                        "p_leave_waitlist", "p_grant_package", "p_check_in", "p_schedule_series", "p_cancel_series",
                        "p_hold_record", "p_hold_all", "p_hold_batch");
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
    void dollarQuotedBodiesStayWholeWhateverTheirTag() {
        String script = "CREATE FUNCTION f(p INT) RETURNS INT LANGUAGE plpgsql AS $body1$\n"
                + "DECLARE x INT := 1; -- it's a comment; with a quote\n"
                + "BEGIN\n  EXECUTE $q$SELECT $1; SELECT 'a;b'$q$ USING p;\n  RETURN x;\nEND;\n$body1$;\n"
                + "SELECT a$b$ FROM t WHERE c = $1; SELECT 2;\n"
                + "DO $$ BEGIN PERFORM 1; END $$;";
        assertThat(SqlScript.statements(script)).containsExactly(
                "CREATE FUNCTION f(p INT) RETURNS INT LANGUAGE plpgsql AS $body1$\n"
                        + "DECLARE x INT := 1; -- it's a comment; with a quote\n"
                        + "BEGIN\n  EXECUTE $q$SELECT $1; SELECT 'a;b'$q$ USING p;\n  RETURN x;\nEND;\n$body1$",
                "SELECT a$b$ FROM t WHERE c = $1",
                "SELECT 2",
                "DO $$ BEGIN PERFORM 1; END $$");
    }

    @Test
    void thePostgresRoutinesAreEachOneStatement() {
        List<String> statements = SqlScript.statements(SqlScript.load(JdbcDialect.POSTGRESQL.routinesResource(), "p_"));
        List<String> functions = statements.stream().filter(sql -> sql.startsWith("CREATE OR REPLACE FUNCTION")).toList();
        assertThat(functions).allSatisfy(sql -> assertThat(sql).contains("AS $$")
                .endsWith(sql.contains("LANGUAGE plpgsql") ? "END;\n$$" : "\n$$"));
        // the helpers the decisions call inside their one call, then the decisions
        assertThat(functions).extracting(sql -> sql.substring("CREATE OR REPLACE FUNCTION ".length(), sql.indexOf('(')))
                .containsExactly("p_fact_of", "p_lock_student", "p_booking_row", "p_waiter_row", "p_slot_row",
                        "p_event_rows", "p_limit_reached", "p_micros_ts", "p_payer", "p_lock_payer",
                        "p_charge", "p_refund", "p_refund_dead_holds", "p_forfeit", "p_package_row", "p_release",
                        "p_promote", "p_freed",
                        "p_retire", "p_answered", "p_replay", "p_claim_batch", "p_fence_check", "p_schedule", "p_hold",
                        "p_confirm", "p_cancel", "p_cancel_slot", "p_expire_due", "p_leave_waitlist",
                        "p_grant_package", "p_check_in", "p_schedule_series", "p_cancel_series", "p_hold_all",
                        "p_hold_batch");
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
