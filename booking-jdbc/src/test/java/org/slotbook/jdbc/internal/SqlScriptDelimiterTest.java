package org.slotbook.jdbc.internal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

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
}
