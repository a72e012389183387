package org.slotbook.examples.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;

/** The bars a run is held to, each MET or MISSED, from its results. */
final class Targets {
    private final List<Result> results;
    private final List<String> lines = new ArrayList<>();

    private Targets(List<Result> results) {
        this.results = results;
    }

    /** @param mainName the name of the {@code --jdbc} database (or H2 in its place) */
    static List<String> of(List<Result> results, List<Capacity> capacities, String mainName) {
        Targets t = new Targets(results);
        t.noViolations();
        results.stream().filter(r -> r.line().equals(NaiveLine.NAME)).forEach(r -> t.lines.add(String.format(
                Locale.ROOT, "info    naive line, %s: %d seats oversold", r.workload(), r.oversold())));
        // the bars of the main database are PostgreSQL's; H2 in its place (no --jdbc) keeps its own
        if (!mainName.equals("H2")) {
            t.spreadAboveNaive(mainName);
            t.ratio("DB-only hot slot", "hot", SlotbookLine.DB_ONLY, mainName, DbCeilingLine.NAME, mainName, 0.5,
                    false);
            t.ratio("gate + database spread", "spread", SlotbookLine.GATED, mainName, DbCeilingLine.NAME, mainName,
                    0.45, true);
        }
        t.ratio("DB-only spread", "spread", SlotbookLine.DB_ONLY, "MariaDB", DbCeilingLine.NAME, "MariaDB", 0.40, true);
        // H2 is the embedded default for demos and tests: its share of an in-process ceiling is shown, not held to a bar
        t.ratio("DB-only spread", "spread", SlotbookLine.DB_ONLY, "H2", DbCeilingLine.NAME, "H2", 0, true);
        t.ratio("gated hot slot vs the plain Jedis EVALSHA loop", "hot", SlotbookLine.GATED, mainName,
                RedisCeilingLine.NAME, RedisCeilingLine.BACKEND, 0.80, false);
        for (Capacity c : capacities) {
            boolean met = c.ratio() <= 1.5 && c.ratio() >= 1 / 1.5;
            t.lines.add(String.format(Locale.ROOT, "%s  capacity on %s: a hold costs the same at %,d and %d seats"
                            + " within 1.5x: %.0f vs %.0f holds/s, ratio %.2fx", verdict(met), c.backend(),
                    c.largeSeats(), CapacityLine.SMALL_SEATS, c.small().decisionsPerSecond(),
                    c.large().decisionsPerSecond(), c.ratio()));
        }
        return List.copyOf(t.lines);
    }

    private void noViolations() {
        List<Result> slotbook = results.stream().filter(Result::isSlotbook).toList();
        long bad = slotbook.stream().filter(r -> !Objects.equals(r.oversold(), 0L)
                || !Objects.equals(r.doubleBooked(), 0L)).count();
        lines.add(String.format(Locale.ROOT, "%s  zero oversell and zero double-booking on every Slotbook line"
                + " (%d lines checked by SQL or the in-memory store's reads, %d with a violation)", verdict(bad == 0), slotbook.size(), bad));
    }

    private void spreadAboveNaive(String mainName) {
        find("spread", SlotbookLine.DB_ONLY, mainName).ifPresent(r -> find("spread", DbCeilingLine.NAME, mainName)
                .ifPresent(c -> {
                    double ratio = r.holdsPerSecond() / c.holdsPerSecond();
                    Optional<Result> naive = find("spread", NaiveLine.NAME, mainName);
                    boolean aboveNaive = naive.map(n -> r.holdsPerSecond() > n.holdsPerSecond()).orElse(true);
                    lines.add(String.format(Locale.ROOT, "%s  DB-only spread on %s >= 50%% of its single-statement"
                                    + " ceiling and above the naive line: %.0f vs %.0f holds/s = %.0f%%%s",
                            verdict(ratio >= 0.5 && aboveNaive), mainName, r.holdsPerSecond(), c.holdsPerSecond(),
                            100 * ratio, naive.map(n -> String.format(Locale.ROOT, "; naive %.0f holds/s (%.2fx)",
                                    n.holdsPerSecond(), r.holdsPerSecond() / n.holdsPerSecond())).orElse("")));
                }));
    }

    /** A target "line reaches {@code share} of its ceiling", on holds/s or on decisions/s. */
    private void ratio(String what, String workload, String line, String backend, String ceilingLine,
                       String ceilingBackend, double share, boolean holds) {
        find(workload, line, backend).ifPresent(r -> find(workload, ceilingLine, ceilingBackend).ifPresent(c -> {
            double value = holds ? r.holdsPerSecond() : r.decisionsPerSecond();
            double ceiling = holds ? c.holdsPerSecond() : c.decisionsPerSecond();
            double ratio = value / ceiling;
            if (share <= 0) {
                lines.add(String.format(Locale.ROOT, "info    %s on %s: %.0f vs %.0f %s of %s (%s) = %.0f%% (no bar)",
                        what, backend, value, ceiling, holds ? "holds/s" : "decisions/s", c.line(), c.backend(),
                        100 * ratio));
                return;
            }
            lines.add(String.format(Locale.ROOT, "%s  %s on %s >= %.0f%% of %s (%s): %.0f vs %.0f %s = %.0f%%",
                    verdict(ratio >= share), what, backend, 100 * share, c.line(), c.backend(),
                    value, ceiling, holds ? "holds/s" : "decisions/s", 100 * ratio));
        }));
    }

    private Optional<Result> find(String workload, String line, String backend) {
        return results.stream().filter(r -> r.workload().equals(workload) && r.line().equals(line)
                && r.backend().equals(backend)).findFirst();
    }

    private static String verdict(boolean met) {
        return met ? "MET   " : "MISSED";
    }
}
