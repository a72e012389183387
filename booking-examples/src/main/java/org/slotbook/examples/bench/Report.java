package org.slotbook.examples.bench;

import java.io.PrintStream;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.slotbook.core.TenantId;

/**
 * Everything a run of the load benchmark measured, and the tables it prints; {@code tenants} are the
 * Slotbook tenants its lines booked under, whose rows the run deleted at its end.
 */
public record Report(List<Result> results, List<Capacity> capacities, Map<String, List<Double>> heapAfterGcMegabytes,
                     List<String> targets, List<String> profiles, List<TenantId> tenants) {
    public List<Result> slotbookResults() {
        return results.stream().filter(Result::isSlotbook).toList();
    }

    /**
     * No Slotbook line oversold a seat or double-booked a student (both counted from the ledger's state:
     * by SQL, or through the in-memory store's reads).
     */
    public boolean clean() {
        return slotbookResults().stream()
                .allMatch(r -> Objects.equals(r.oversold(), 0L) && Objects.equals(r.doubleBooked(), 0L));
    }

    /** The results table, the capacity table, the heap samples and the targets. */
    public void print(PrintStream out) {
        out.println();
        out.println("| workload | line | threads | decisions | decisions/s | holds/s | p50 ms | p99 ms | max ms"
                + " | errors | oversold | double-booked | decisions ÷ ceiling | holds ÷ ceiling |");
        out.println("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
        for (Result r : results) {
            Result ceiling = ceilingOf(r);
            String decisionsRatio = ceiling == null ? "" : percent(r.decisionsPerSecond(), ceiling.decisionsPerSecond());
            String holdsRatio = ceiling == null ? "" : percent(r.holdsPerSecond(), ceiling.holdsPerSecond());
            out.printf(Locale.ROOT, "| %s | %s | %d | %,d | %,.0f | %,.0f | %.2f | %.2f | %.2f | %d | %s | %s | %s | %s |%n",
                    r.workload(), r.label(), r.threads(), r.decisions(), r.decisionsPerSecond(), r.holdsPerSecond(),
                    r.p50Millis(), r.p99Millis(), r.maxMillis(), r.errors(), text(r.oversold()),
                    text(r.doubleBooked()), decisionsRatio, holdsRatio);
        }
        out.println();
        out.println("Ratios: DB lines against the single-statement claim on the same database and workload;"
                + " the gate line against the Jedis EVALSHA loop of hold.lua on the same workload;"
                + " mix lines against the spread ceiling; the in-memory lines have no ceiling.");
        if (!capacities.isEmpty()) {
            out.println();
            out.println("| capacity | threads | holds | holds/s, " + CapacityLine.SMALL_SEATS + " seats | p50 ms | holds/s,"
                    + " large slot | p50 ms | large slot seats | ratio (cost large ÷ cost small) |");
            out.println("|---|---:|---:|---:|---:|---:|---:|---:|---:|");
            for (Capacity c : capacities) {
                out.printf(Locale.ROOT, "| %s | %d | %,d + %,d | %,.0f | %.2f | %,.0f | %.2f | %,d | %.2fx |%n",
                        c.backend(), c.small().threads(), c.small().holds(), c.large().holds(),
                        c.small().decisionsPerSecond(), c.small().p50Millis(), c.large().decisionsPerSecond(),
                        c.large().p50Millis(), c.largeSeats(),
                        c.ratio());
            }
        }
        out.println();
        out.println("Used heap after GC during the mix (MB):");
        heapAfterGcMegabytes.forEach((line, samples) -> out.printf(Locale.ROOT, "  %-45s %s%n", line,
                megabytes(samples)));
        out.println();
        out.println("Targets:");
        targets.forEach(t -> out.println("  " + t));
        results.stream().filter(r -> r.errors() > 0).forEach(r -> out.printf(Locale.ROOT,
                "  errors in %s, %s: %d (%s)%n", r.workload(), r.label(), r.errors(), r.note()));
    }

    /** One result as the run prints it when it is measured. */
    static void printProgress(PrintStream out, Result r) {
        out.printf(Locale.ROOT, "  %-52s %9.0f decisions/s %9.0f holds/s  p50 %7.2f  p99 %7.2f  max %8.2f ms"
                        + "  errors %d  oversold %s  double-booked %s%s%n",
                r.label(), r.decisionsPerSecond(), r.holdsPerSecond(), r.p50Millis(), r.p99Millis(),
                r.maxMillis(), r.errors(), text(r.oversold()), text(r.doubleBooked()),
                r.note().isEmpty() ? "" : "  [" + r.note() + "]");
    }

    /**
     * A line's rate as a share of its ceiling's (1.0: as fast), on decisions/s in the hot slot (nearly
     * every answer there is a refusal) and on holds/s elsewhere; null for a ceiling or a line without one.
     */
    public @Nullable Double ratioToCeiling(Result r) {
        Result ceiling = ceilingOf(r);
        if (ceiling == null) {
            return null;
        }
        double base = r.workload().equals("hot") ? ceiling.decisionsPerSecond() : ceiling.holdsPerSecond();
        double value = r.workload().equals("hot") ? r.decisionsPerSecond() : r.holdsPerSecond();
        return base <= 0 ? null : value / base;
    }

    /**
     * The ceiling a result is compared with: the Redis one for the gate line, else its database's; mix
     * against spread; none for an in-memory line.
     */
    @Nullable Result ceilingOf(Result r) {
        if (r.isCeiling() || r.line().equals(SlotbookLine.MEMORY)) {
            return null;
        }
        String workload = r.workload().equals("mix") ? "spread" : r.workload();
        String line = r.line().equals(SlotbookLine.GATED) ? RedisCeilingLine.NAME : DbCeilingLine.NAME;
        String backend = line.equals(RedisCeilingLine.NAME) ? RedisCeilingLine.BACKEND : r.backend();
        return results.stream().filter(c -> c.workload().equals(workload) && c.line().equals(line)
                && c.backend().equals(backend)).findFirst().orElse(null);
    }

    private static String percent(double value, double ceiling) {
        return ceiling <= 0 ? "" : String.format(Locale.ROOT, "%.0f%%", 100 * value / ceiling);
    }

    private static String text(Long value) {
        return value == null ? "-" : Long.toString(value);
    }

    static String megabytes(List<Double> samples) {
        StringBuilder b = new StringBuilder();
        for (Double s : samples) {
            b.append(b.length() == 0 ? "" : ", ").append(String.format(Locale.ROOT, "%.1f", s));
        }
        return b.toString();
    }
}
