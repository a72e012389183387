package org.slotbook.jdbc.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.slotbook.jdbc.JdbcDialect;

class SqlScriptDelimiterTest {

    @Test
    void aDelimiterLineKeepsARoutineBodyWholeUntilDelimiterSemicolon() {
        String script = "CREATE TABLE a (x INT);\n"
                + "\n"
                + "DELIMITER //\n"
                + "\n"
                + "CREATE OR REPLACE PROCEDURE p(v INT)\n"
                + "BEGIN\n"
                + "    -- a comment; with a semicolon and // slashes\n"
                + "    SELECT ';//' INTO @x;\n"
                + "    UPDATE a SET x = v;\n"
                + "END//\n"
                + "\n"
                + "delimiter $$\r\n"
                + "CREATE PROCEDURE q() BEGIN SELECT 1; END$$\n"
                + "  DELIMITER ;  \n"
                + "DROP TABLE b; DROP TABLE c;\n";
        assertThat(SqlScript.statements(script)).containsExactly(
                "CREATE TABLE a (x INT)",
                "CREATE OR REPLACE PROCEDURE p(v INT)\nBEGIN\n    \n    SELECT ';//' INTO @x;\n"
                        + "    UPDATE a SET x = v;\nEND",
                "CREATE PROCEDURE q() BEGIN SELECT 1; END",
                "DROP TABLE b",
                "DROP TABLE c");
    }

    @Test
    void delimiterIsOnlyADirectiveAtTheStartOfItsOwnLine() {
        String script = "SELECT 'DELIMITER //' AS d;\nSELECT 1 AS delimiter;\nSELECT x FROM delimiter_t;\n";
        assertThat(SqlScript.statements(script)).containsExactly(
                "SELECT 'DELIMITER //' AS d", "SELECT 1 AS delimiter", "SELECT x FROM delimiter_t");
    }

    @Test
    void theMariaDbScriptSplitsIntoTablesAndWholeProcedures() {
        List<String> statements = SqlScript.statements(SqlScript.load(JdbcDialect.MARIADB.routinesResource(), "p_"));
        List<String> procedures = statements.stream().filter(s -> s.startsWith("CREATE OR REPLACE PROCEDURE")).toList();
        assertThat(procedures).allSatisfy(sql -> assertThat(sql).endsWith("END"));
        List<String> names = procedures.stream()
                .map(sql -> sql.substring("CREATE OR REPLACE PROCEDURE ".length(), sql.indexOf('('))).toList();
        assertThat(names)
                .containsExactly("p_fence_check", "p_emit", "p_outbox_write", "p_outbox_batch", "p_lock_resource", "p_find_payer", "p_charge", "p_refund",
                        "p_refund_dead_holds", "p_forfeit",
                        "p_expire_booking", "p_promote", "p_retire", "p_schedule_do", "p_schedule", "p_hold_do",
                        "p_hold", "p_confirm", "p_cancel", "p_cancel_slot_do", "p_cancel_slot", "p_expire_due",
                        "p_leave_waitlist", "p_grant_package", "p_check_in", "p_schedule_series", "p_cancel_series",
                        "p_hold_record", "p_hold_all", "p_hold_batch");
        // each decision runs its own transaction; the helpers (and the *_do bodies that series and
        // hold_all run several times in one transaction) run inside the caller's
        Set<String> helpers = Set.of("p_fence_check", "p_emit", "p_outbox_write", "p_outbox_batch", "p_lock_resource", "p_find_payer", "p_charge", "p_refund",
                "p_refund_dead_holds", "p_forfeit",
                "p_expire_booking", "p_promote", "p_retire", "p_schedule_do", "p_hold_do", "p_cancel_slot_do",
                "p_hold_record");
        for (int i = 0; i < procedures.size(); i++) {
            String name = names.get(i);
            if (helpers.contains(name)) {
                assertThat(procedures.get(i)).as(name).doesNotContain("COMMIT;");
            } else {
                assertThat(procedures.get(i)).as(name).contains("COMMIT;");
            }
        }
        assertThat(statements).noneMatch(sql -> sql.toUpperCase().contains("DELIMITER"));
    }
}
