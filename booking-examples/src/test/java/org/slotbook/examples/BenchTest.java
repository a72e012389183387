package org.slotbook.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * The benchmark's workloads with very small numbers: every Slotbook line must end with zero seats
 * oversold and zero students double-booked, counted by SQL on the tables. No timing is asserted.
 */
class BenchTest {
    private static final String[] SMALL = {"--students", "120", "--seats", "5", "--slots", "8", "--requests", "160",
        "--mix-seconds", "1", "--threads", "4", "--no-warmup", "--no-profile"};

    private static Bench.Report bench(String... extra) throws Exception {
        List<String> args = new ArrayList<>(List.of(SMALL));
        args.addAll(List.of(extra));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        Bench.Report report = Bench.run(Bench.Options.parse(args.toArray(String[]::new)),
                new PrintStream(out, true, StandardCharsets.UTF_8));
        System.out.print(out.toString(StandardCharsets.UTF_8));
        return report;
    }

    private static void assertNoOversell(Bench.Report report, int slotbookLines) {
        List<Bench.Result> slotbook = report.slotbookResults();
        assertThat(slotbook).hasSize(slotbookLines);
        for (Bench.Result r : slotbook) {
            assertThat(r.oversold()).as("oversold, %s %s", r.workload(), r.label()).isZero();
            assertThat(r.doubleBooked()).as("double-booked, %s %s", r.workload(), r.label()).isZero();
            assertThat(r.errors()).as("errors, %s %s: %s", r.workload(), r.label(), r.note()).isZero();
            assertThat(r.decisions()).as("decisions, %s %s", r.workload(), r.label()).isPositive();
        }
        report.results().stream().filter(r -> !r.workload().equals("mix")).forEach(r ->
                assertThat(r.decisions()).as("every request answered, %s %s", r.workload(), r.label())
                        .isEqualTo(r.workload().equals("hot") ? 120 : 160));
        assertThat(report.results()).anySatisfy(r -> assertThat(r.line()).isEqualTo(Bench.NAIVE));
        assertThat(report.heapAfterGcMegabytes()).isNotEmpty();
    }

    @Test
    void h2WithEmbeddedRedis() throws Exception {
        // H2 DB-only and H2 behind the gate, three workloads each
        assertNoOversell(bench(), 6);
    }

    @Test
    void realServersWhenConfigured() throws Exception {
        String pg = System.getenv("SLOTBOOK_TEST_POSTGRES_URL");
        String redis = System.getenv("SLOTBOOK_TEST_REDIS_URL");
        if (pg == null || redis == null) {
            if (Boolean.parseBoolean(System.getenv("SLOTBOOK_TEST_REQUIRE_SERVICES"))) {
                throw new AssertionError("SLOTBOOK_TEST_POSTGRES_URL and SLOTBOOK_TEST_REDIS_URL are required");
            }
            Assumptions.abort("no PostgreSQL/Redis configured (SLOTBOOK_TEST_POSTGRES_URL, SLOTBOOK_TEST_REDIS_URL)");
        }
        // PostgreSQL DB-only, H2 DB-only and PostgreSQL behind the gate
        assertNoOversell(bench("--jdbc", pg, "--redis", redis), 9);
    }

    @Test
    void badFlagsAreNamed() {
        assertThatThrownBy(() -> Bench.Options.parse("--mix-seconds", "soon"))
                .hasMessage("--mix-seconds must be a number, got 'soon'");
        assertThatThrownBy(() -> Bench.Options.parse("--threads", "0"))
                .hasMessage("--threads must be between 1 and 512, got 0");
        assertThatThrownBy(() -> Bench.Options.parse("--turbo")).hasMessage("unknown flag '--turbo'");
        assertThatThrownBy(() -> Bench.Options.parse("--redis")).hasMessage("--redis needs a value");
        assertThatThrownBy(() -> Bench.Options.parse("--jdbc", "postgres://x"))
                .hasMessageContaining("must be a JDBC URL");
        assertThatThrownBy(() -> Bench.Options.parse("--no-redis", "--redis", "redis://127.0.0.1:6379"))
                .hasMessageContaining("exclude each other");
        assertThat(Bench.Options.parse().students()).isEqualTo(10_000);
    }
}
