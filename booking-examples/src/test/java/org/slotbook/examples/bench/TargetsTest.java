package org.slotbook.examples.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Each database is held to its own bar: PostgreSQL's bars never judge H2 standing in for it. */
class TargetsTest {

    private static Result line(String workload, String line, String backend, long holds) {
        return new Result(workload, line, backend, 32, holds * 2, holds, 0, 1.0, 1, 2, 3,
                line.startsWith("Slotbook") ? 0L : null, line.startsWith("Slotbook") ? 0L : null, "");
    }

    @Test
    void withoutPostgresH2IsShownAgainstItsCeilingWithoutABar() {
        List<String> lines = Targets.of(List.of(line("spread", DbCeilingLine.NAME, "H2", 10_000),
                line("spread", SlotbookLine.DB_ONLY, "H2", 3_000)), List.of(), "H2");
        assertThat(lines).anyMatch(l -> l.startsWith("info") && l.contains("DB-only spread on H2:")
                && l.contains("= 30% (no bar)"));
        assertThat(lines).noneMatch(l -> l.contains(">= 50%") || l.contains("on H2 >="));
    }

    @Test
    void withPostgresEachDatabaseHasItsBar() {
        List<String> lines = Targets.of(List.of(
                line("spread", DbCeilingLine.NAME, "PostgreSQL", 4_000),
                line("spread", SlotbookLine.DB_ONLY, "PostgreSQL", 1_000),
                line("spread", DbCeilingLine.NAME, "H2", 10_000),
                line("spread", SlotbookLine.DB_ONLY, "H2", 3_000),
                line("spread", DbCeilingLine.NAME, "MariaDB", 5_000),
                line("spread", SlotbookLine.DB_ONLY, "MariaDB", 1_000)), List.of(), "PostgreSQL");
        assertThat(lines).anyMatch(l -> l.startsWith("MISSED") && l.contains("DB-only spread on PostgreSQL >= 50%")
                && l.contains("= 25%"));
        assertThat(lines).anyMatch(l -> l.startsWith("info") && l.contains("DB-only spread on H2:"));
        assertThat(lines).anyMatch(l -> l.startsWith("MISSED") && l.contains("DB-only spread on MariaDB >= 40%")
                && l.contains("= 20%"));
    }
}
