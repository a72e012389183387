package org.slotbook.examples.bench;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * A run of the load benchmark as Markdown, for {@code docs/benchmarks.md}: the command, the machine and
 * its load average, every measured line, and two Mermaid charts drawn from the same results (each line's
 * rate as a share of its ceiling, and the capacity ratios). Written by {@code Bench --report FILE}.
 */
public final class BenchMarkdown {
    /** The line after which {@link #write} replaces a file's text. */
    public static final String BEGIN = "<!-- bench report -->";
    /** The line before which {@link #write} stops replacing. */
    public static final String END = "<!-- end of bench report -->";

    private BenchMarkdown() {
    }

    /** Where a run was measured: cores, processor, system and Java, and the load average around the run. */
    public record Machine(int cores, String cpu, String os, String java, double loadAtStart, double loadAtEnd) {
        /** The one-minute load average now, or a negative number where the system does not tell. */
        public static double load() {
            return ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
        }

        /** This machine, with the load average taken before the run and now. */
        public static Machine of(double loadAtStart) {
            return new Machine(Runtime.getRuntime().availableProcessors(), processorName(),
                    System.getProperty("os.name") + " " + System.getProperty("os.version") + " "
                            + System.getProperty("os.arch"),
                    "Java " + System.getProperty("java.version") + " (" + System.getProperty("java.vendor") + ")",
                    loadAtStart, load());
        }

        private static String processorName() {
            Path info = Path.of("/proc/cpuinfo");
            if (Files.isReadable(info)) {
                try (Stream<String> lines = Files.lines(info)) {
                    return lines.filter(l -> l.startsWith("model name"))
                            .map(l -> l.substring(l.indexOf(':') + 1).strip())
                            .findFirst().orElse("unknown processor");
                } catch (IOException | RuntimeException e) {
                    return "unknown processor";
                }
            }
            return "unknown processor";
        }

        String describe() {
            return String.format(Locale.ROOT, "%d cores (%s), %s, %s; load average %s at the start, %s at the end",
                    cores, cpu, os, java, loadText(loadAtStart), loadText(loadAtEnd));
        }

        private static String loadText(double load) {
            return load < 0 ? "unknown" : String.format(Locale.ROOT, "%.2f", load);
        }
    }

    /** The Markdown of one run; {@code command} is quoted as given. */
    public static String of(Report report, String command, Machine machine) {
        StringBuilder md = new StringBuilder();
        md.append("Command:\n\n```\n").append(command).append("\n```\n\n");
        md.append("Machine: ").append(machine.describe()).append(".\n\n");
        md.append("| workload | line | threads | decisions | decisions/s | holds/s | p50 ms | p99 ms | max ms"
                + " | errors | oversold | double-booked | ÷ ceiling |\n");
        md.append("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for (Result r : report.results()) {
            Double ratio = report.ratioToCeiling(r);
            md.append(String.format(Locale.ROOT, "| %s | %s | %d | %,d | %,.0f | %,.0f | %.2f | %.2f | %.2f | %d | %s"
                            + " | %s | %s |%n", r.workload(), r.label(), r.threads(), r.decisions(),
                    r.decisionsPerSecond(), r.holdsPerSecond(), r.p50Millis(), r.p99Millis(), r.maxMillis(), r.errors(),
                    text(r.oversold()), text(r.doubleBooked()), ratio == null ? "" : percent(ratio) + "%"));
        }
        if (!report.capacities().isEmpty()) {
            md.append("\n| capacity | holds/s, ").append(CapacityLine.SMALL_SEATS)
                    .append(" seats | holds/s, large slot | large slot seats | cost large ÷ cost small |\n");
            md.append("|---|---:|---:|---:|---:|\n");
            for (Capacity c : report.capacities()) {
                md.append(String.format(Locale.ROOT, "| %s | %,.0f | %,.0f | %,d | %.2fx |%n", c.backend(),
                        c.small().decisionsPerSecond(), c.large().decisionsPerSecond(), c.largeSeats(), c.ratio()));
            }
        }
        md.append(ratioChart(report));
        md.append(capacityChart(report));
        if (!report.targets().isEmpty()) {
            md.append("\nTargets:\n\n");
            report.targets().forEach(t -> md.append("- `").append(t.strip()).append("`\n"));
        }
        return md.toString();
    }

    /** A horizontal bar chart of every line that has a ceiling: its rate in percent of the ceiling's. */
    static String ratioChart(Report report) {
        List<String> labels = new ArrayList<>();
        List<Long> values = new ArrayList<>();
        for (Result r : report.results()) {
            Double ratio = report.ratioToCeiling(r);
            if (ratio != null) {
                labels.add(chartLabel(r));
                values.add(Math.round(100 * ratio));
            }
        }
        if (labels.isEmpty()) {
            return "";
        }
        long top = Math.max(100, (values.stream().mapToLong(Long::longValue).max().orElse(100) + 49) / 50 * 50);
        return "\n```mermaid\nxychart-beta horizontal\n"
                + "    title \"Each line's rate in percent of its ceiling (hot: decisions/s, spread and mix: holds/s)\"\n"
                + "    x-axis [" + labels.stream().map(l -> "\"" + l + "\"").collect(Collectors.joining(", ")) + "]\n"
                + "    y-axis \"percent of the ceiling\" 0 --> " + top + "\n"
                + "    bar [" + values.stream().map(String::valueOf).collect(Collectors.joining(", ")) + "]\n"
                + "```\n";
    }

    /** A bar chart of the capacity ratios: what a hold on the large slot costs over one on the small slot. */
    static String capacityChart(Report report) {
        if (report.capacities().isEmpty()) {
            return "";
        }
        double top = Math.max(2, Math.ceil(report.capacities().stream().mapToDouble(Capacity::ratio).max().orElse(1)));
        return "\n```mermaid\nxychart-beta\n"
                + "    title \"Cost of a hold on a large slot over its cost on a slot of " + CapacityLine.SMALL_SEATS
                + " seats (1.0: the same)\"\n"
                + "    x-axis [" + report.capacities().stream().map(c -> "\"" + c.backend() + "\"")
                        .collect(Collectors.joining(", ")) + "]\n"
                + "    y-axis \"ratio\" 0 --> " + String.format(Locale.ROOT, "%.0f", top) + "\n"
                + "    bar [" + report.capacities().stream().map(c -> String.format(Locale.ROOT, "%.2f", c.ratio()))
                        .collect(Collectors.joining(", ")) + "]\n"
                + "```\n";
    }

    /** A short name for a chart: the workload, the kind of line and the backend, without quotes. */
    static String chartLabel(Result r) {
        String line = switch (r.line()) {
            case SlotbookLine.DB_ONLY -> "DB-only";
            case SlotbookLine.GATED -> "gate +";
            case NaiveLine.NAME -> "naive";
            default -> r.line();
        };
        return (r.workload() + " " + line + " " + r.backend()).replace('"', '\'');
    }

    /**
     * Writes {@code markdown} to {@code file}: between the lines {@link #BEGIN} and {@link #END} when
     * the file has both, each a line of its own (the rest of the file is kept), else as the whole file,
     * inside those lines.
     */
    public static void write(Path file, String markdown) throws IOException {
        String block = BEGIN + "\n" + markdown + END + "\n";
        if (Files.exists(file)) {
            List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
            int begin = lines.indexOf(BEGIN);
            int end = begin < 0 ? -1 : lines.subList(begin, lines.size()).indexOf(END) + begin;
            if (begin >= 0 && end > begin) {
                StringBuilder text = new StringBuilder();
                lines.subList(0, begin).forEach(l -> text.append(l).append('\n'));
                text.append(block);
                lines.subList(end + 1, lines.size()).forEach(l -> text.append(l).append('\n'));
                Files.writeString(file, text.toString(), StandardCharsets.UTF_8);
                return;
            }
        }
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        Files.writeString(file, block, StandardCharsets.UTF_8);
    }

    private static String percent(double ratio) {
        return String.format(Locale.ROOT, "%.0f", 100 * ratio);
    }

    private static String text(Long value) {
        return value == null ? "-" : Long.toString(value);
    }
}
