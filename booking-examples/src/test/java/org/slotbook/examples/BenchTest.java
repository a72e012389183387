package org.slotbook.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slotbook.examples.bench.BenchMarkdown;
import org.slotbook.examples.bench.DbCeilingLine;
import org.slotbook.examples.bench.NaiveLine;
import org.slotbook.examples.bench.Options;
import org.slotbook.examples.bench.Report;
import org.slotbook.examples.bench.Result;
import org.slotbook.examples.bench.SlotbookLine;

/**
 * The benchmark's workloads with very small numbers: every Slotbook line must end with zero seats
 * oversold and zero students double-booked, counted by SQL on the tables (through the store's reads
 * for the in-memory lines). No timing is asserted.
 */
class BenchTest {
    private static final String[] SMALL = {"--students", "120", "--seats", "5", "--slots", "8", "--requests", "160",
        "--mix-seconds", "1", "--threads", "4", "--capacity-holds", "20", "--capacity-seats", "500", "--no-warmup",
        "--no-profile"};

    private static Report bench(String... extra) throws Exception {
        List<String> args = new ArrayList<>(List.of(SMALL));
        args.addAll(List.of(extra));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        Report report = Bench.run(Options.parse(args.toArray(String[]::new)),
                new PrintStream(out, true, StandardCharsets.UTF_8));
        System.out.print(out.toString(StandardCharsets.UTF_8));
        return report;
    }

    /**
     * @param slotbookLines Slotbook hot, spread and mix lines (the capacity line adds two per database)
     * @param databases     databases of the capacity line
     */
    private static void assertNoOversell(Report report, int slotbookLines, int databases) {
        List<Result> slotbook = report.slotbookResults();
        assertThat(slotbook).hasSize(slotbookLines + 2 * databases);
        for (Result r : slotbook) {
            assertThat(r.oversold()).as("oversold, %s %s", r.workload(), r.label()).isZero();
            assertThat(r.doubleBooked()).as("double-booked, %s %s", r.workload(), r.label()).isZero();
            assertThat(r.errors()).as("errors, %s %s: %s", r.workload(), r.label(), r.note()).isZero();
            assertThat(r.decisions()).as("decisions, %s %s", r.workload(), r.label()).isPositive();
        }
        report.results().stream().filter(r -> !r.workload().equals("mix")).forEach(r ->
                assertThat(r.decisions()).as("every request answered, %s %s", r.workload(), r.label())
                        .isEqualTo(switch (r.workload()) {
                            case "hot" -> 120;
                            case "capacity" -> 20;
                            default -> 160;
                        }));
        assertThat(report.capacities()).hasSize(databases).allSatisfy(c -> {
            // every hold on either slot took a seat: the small slot never runs out
            assertThat(c.small().holds()).isEqualTo(20);
            assertThat(c.large().holds()).isEqualTo(20);
            assertThat(c.largeSeats()).isEqualTo(500);
            assertThat(c.ratio()).isPositive();
        });
        assertThat(report.results()).anySatisfy(r -> assertThat(r.line()).isEqualTo(NaiveLine.NAME));
        assertThat(report.heapAfterGcMegabytes()).isNotEmpty();
    }

    @Test
    void h2WithEmbeddedRedis() throws Exception {
        // H2 DB-only, H2 behind the gate and the in-memory store, three workloads each, and the capacity line on H2
        Report report = bench();
        assertNoOversell(report, 9, 1);
        assertThat(report.slotbookResults()).filteredOn(r -> r.line().equals(SlotbookLine.MEMORY))
                .extracting(Result::workload).containsExactly("hot", "spread", "mix");
    }

    @Test
    void onlyRunsTheNamedLines() throws Exception {
        Report report = bench("--no-redis", "--only", "spread-h2,naive");
        assertThat(report.capacities()).isEmpty();
        assertThat(report.results()).extracting(Result::workload).containsOnly("hot", "spread");
        assertThat(report.slotbookResults()).singleElement().satisfies(r -> {
            assertThat(r.workload()).isEqualTo("spread");
            assertThat(r.oversold()).isZero();
            assertThat(r.doubleBooked()).isZero();
        });
    }

    @Test
    void realServersWhenConfigured() throws Exception {
        String pg = System.getenv("SLOTBOOK_TEST_POSTGRES_URL");
        String mariadb = System.getenv("SLOTBOOK_TEST_MARIADB_URL");
        String redis = System.getenv("SLOTBOOK_TEST_REDIS_URL");
        if (pg == null || redis == null) {
            if (Boolean.parseBoolean(System.getenv("SLOTBOOK_TEST_REQUIRE_SERVICES"))) {
                throw new AssertionError("SLOTBOOK_TEST_POSTGRES_URL and SLOTBOOK_TEST_REDIS_URL are required");
            }
            Assumptions.abort("no PostgreSQL/Redis configured (SLOTBOOK_TEST_POSTGRES_URL, SLOTBOOK_TEST_REDIS_URL)");
        }
        if (mariadb == null) {
            // PostgreSQL DB-only, H2 DB-only, PostgreSQL behind the gate and the in-memory store; capacity on
            // PostgreSQL and H2
            Report report = bench("--jdbc", pg, "--redis", redis);
            assertNoOversell(report, 12, 2);
            assertNothingLeft(report, pg);
        } else {
            // and MariaDB DB-only with its ceiling; capacity on all three databases
            Report report = bench("--jdbc", pg, "--mariadb", mariadb, "--redis", redis);
            assertNoOversell(report, 15, 3);
            assertThat(report.results()).anySatisfy(r -> {
                assertThat(r.line()).isEqualTo(DbCeilingLine.NAME);
                assertThat(r.backend()).isEqualTo("MariaDB");
            });
            assertNothingLeft(report, pg, mariadb);
        }
    }

    /** The run's Slotbook tenants have no row left in any shipped table of these databases. */
    private static void assertNothingLeft(Report report, String... urls) throws Exception {
        // the DB-only and gated lines of three workloads, and the capacity line
        assertThat(report.tenants()).hasSizeGreaterThanOrEqualTo(7);
        for (String url : urls) {
            assertThat(RowsLeft.of(url, report.tenants())).as("rows of the run's tenants on %s", url).isZero();
        }
    }

    @Test
    void theInMemoryLinesNeedNoServerAndHaveNoCeiling() throws Exception {
        Report report = bench("--no-redis", "--only", "memory");
        assertThat(report.results()).hasSize(3).allSatisfy(r -> {
            assertThat(r.label()).isEqualTo("Slotbook in memory (InMemoryStore)");
            assertThat(report.ratioToCeiling(r)).isNull();
        });
        assertThat(report.results()).extracting(Result::workload).containsExactly("hot", "spread", "mix");
        assertThat(report.slotbookResults()).allSatisfy(r -> {
            assertThat(r.oversold()).isZero();
            assertThat(r.doubleBooked()).isZero();
            assertThat(r.errors()).isZero();
        });
        // every hold of the hot slot answered, its seats taken; the spread took seats too
        assertThat(report.results().get(0).decisions()).isEqualTo(120);
        assertThat(report.results().get(0).holds()).isEqualTo(5);
        assertThat(report.results().get(1).decisions()).isEqualTo(160);
        assertThat(report.results().get(1).holds()).isPositive();
        assertThat(report.heapAfterGcMegabytes()).containsOnlyKeys("Slotbook in memory (InMemoryStore)");
        assertThat(report.capacities()).isEmpty();
        assertThat(report.clean()).isTrue();
    }

    @Test
    void theReportIsMarkdownWithItsChartsBetweenTheMarkers(@TempDir Path dir) throws Exception {
        Path page = dir.resolve("benchmarks.md");
        // the page names the markers in its prose too: only the lines that are markers count
        String prose = "The lines `" + BenchMarkdown.BEGIN + "` and `" + BenchMarkdown.END + "`.\n";
        Files.writeString(page, "# Benchmarks\n\n" + prose + "\n" + BenchMarkdown.BEGIN + "\nold figures\n"
                + BenchMarkdown.END + "\n\n## Method\n\n" + prose);
        Report report = bench("--no-redis", "--only", "spread-h2,naive,capacity", "--report", page.toString());
        String text = Files.readString(page);
        assertThat(text).startsWith("# Benchmarks\n\n" + prose + "\n" + BenchMarkdown.BEGIN + "\nCommand:")
                .endsWith(BenchMarkdown.END + "\n\n## Method\n\n" + prose).doesNotContain("old figures")
                .contains("--only spread-h2,naive,capacity", "Machine: " + Runtime.getRuntime().availableProcessors()
                        + " cores", "load average");
        // every measured line is a row of the table, with its ratio to its ceiling where it has one
        List<String> bars = new ArrayList<>();
        List<String> labels = new ArrayList<>();
        for (Result r : report.results()) {
            Double ratio = report.ratioToCeiling(r);
            assertThat(text).contains("| " + r.workload() + " | " + r.label() + " | 4 | ");
            if (ratio != null) {
                bars.add(String.valueOf(Math.round(100 * ratio)));
                String kind = r.line().equals(NaiveLine.NAME) ? "naive" : "DB-only";
                labels.add("\"" + r.workload() + " " + kind + " H2\"");
            }
        }
        // the spread line and the naive line against the spread ceiling, hot naive against the hot ceiling
        assertThat(bars).hasSize(3);
        assertThat(text).contains("```mermaid\nxychart-beta horizontal\n")
                .contains("    x-axis [" + String.join(", ", labels) + "]\n")
                .contains("    bar [" + String.join(", ", bars) + "]\n");
        // the capacity chart: one bar per database, its ratio as the table prints it
        assertThat(report.capacities()).singleElement().satisfies(c -> assertThat(text)
                .contains("```mermaid\nxychart-beta\n")
                .contains("    x-axis [\"H2\"]\n")
                .contains(String.format(Locale.ROOT, "    bar [%.2f]%n", c.ratio()))
                .contains(String.format(Locale.ROOT, "| H2 | %,.0f | %,.0f | 500 | %.2fx |",
                        c.small().decisionsPerSecond(), c.large().decisionsPerSecond(), c.ratio())));

        // a file without the markers is written whole, inside them, so the next run can replace it
        Path fresh = dir.resolve("bench/latest.md");
        BenchMarkdown.write(fresh, "figures\n");
        assertThat(Files.readString(fresh)).isEqualTo(BenchMarkdown.BEGIN + "\nfigures\n" + BenchMarkdown.END + "\n");
        BenchMarkdown.write(fresh, "newer\n");
        assertThat(Files.readString(fresh)).isEqualTo(BenchMarkdown.BEGIN + "\nnewer\n" + BenchMarkdown.END + "\n");
    }

    @Test
    void badFlagsAreNamed() {
        assertThatThrownBy(() -> Options.parse("--mix-seconds", "soon"))
                .hasMessage("--mix-seconds must be a number, got 'soon'");
        assertThatThrownBy(() -> Options.parse("--threads", "0"))
                .hasMessage("--threads must be between 1 and 512, got 0");
        assertThatThrownBy(() -> Options.parse("--turbo")).hasMessage("unknown flag '--turbo'");
        assertThatThrownBy(() -> Options.parse("--redis")).hasMessage("--redis needs a value");
        assertThatThrownBy(() -> Options.parse("--report")).hasMessage("--report needs a value");
        assertThat(Options.parse("--report", "docs/benchmarks.md").report()).isEqualTo("docs/benchmarks.md");
        assertThat(Options.parse().report()).isNull();
        assertThatThrownBy(() -> Options.parse("--jdbc", "postgres://x"))
                .hasMessageContaining("must be a JDBC URL");
        assertThatThrownBy(() -> Options.parse("--no-redis", "--redis", "redis://127.0.0.1:6379"))
                .hasMessageContaining("exclude each other");
        assertThat(Options.parse().students()).isEqualTo(10_000);
    }

    @Test
    void badOnlyValuesAreNamed() {
        assertThatThrownBy(() -> Options.parse("--only", "spread-pg,turbo", "--jdbc",
                "jdbc:postgresql://127.0.0.1/test"))
                .hasMessageStartingWith("--only: unknown line 'turbo'; lines: hot-pg, spread-pg, mix-pg");
        assertThatThrownBy(() -> Options.parse("--only", "")).hasMessageContaining("--only: unknown line ''");
        assertThatThrownBy(() -> Options.parse("--only")).hasMessage("--only needs a value");
        assertThatThrownBy(() -> Options.parse("--only", "spread-pg"))
                .hasMessage("--only spread-pg needs --jdbc (PostgreSQL)");
        assertThatThrownBy(() -> Options.parse("--only", "mariadb"))
                .hasMessage("--only hot-mariadb needs --mariadb");
        assertThatThrownBy(() -> Options.parse("--only", "gate", "--no-redis"))
                .hasMessage("--only hot-gate needs Redis (not --no-redis)");
        assertThatThrownBy(() -> Options.parse("--mariadb", "jdbc:postgresql://127.0.0.1/test"))
                .hasMessageContaining("must be a JDBC URL of MariaDB");
        assertThat(Options.parse("--only", "h2,capacity").only())
                .containsExactlyInAnyOrder("hot-h2", "spread-h2", "mix-h2", "capacity");
        assertThat(Options.parse("--only", "memory,spread-h2").only())
                .containsExactlyInAnyOrder("hot-memory", "spread-memory", "mix-memory", "spread-h2");
        assertThat(Options.parse("--no-redis", "--only", "hot-memory").only()).containsExactly("hot-memory");
        assertThatThrownBy(() -> Options.parse("--only", "memory-hot"))
                .hasMessageContaining("--only: unknown line 'memory-hot'")
                .hasMessageEndingWith("(or pg, citus, mariadb, h2, gate, memory for all three workloads)");
        assertThat(Options.USAGE).contains("spread-pg", "hot-pg", "spread-mariadb", "spread-h2", "spread-gate",
                "hot-memory, spread-memory, mix-memory", "naive", "capacity");
    }
}
