package org.slotbook.examples;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.slotbook.examples.bench.BenchMarkdown;
import org.slotbook.examples.bench.Flags;
import org.slotbook.examples.bench.Options;
import org.slotbook.examples.bench.Report;
import org.slotbook.examples.bench.Suite;

/**
 * The load benchmark: in one process, side by side on the same database and Redis, the naive way
 * (count, then insert), Slotbook DB-only (on the given database and on H2 in memory), and Slotbook
 * with the Redis gate, each compared with a raw ceiling measured in the same run; and Slotbook on the
 * in-memory store (no gate, no server, no ceiling), to compare builds of that store.
 *
 * <pre>
 * mvn -q -pl booking-examples -am package -DskipTests exec:java -Dexec.mainClass=org.slotbook.examples.Bench \
 *     -Dexec.args="--jdbc jdbc:postgresql://127.0.0.1:5432/test?user=postgres --redis redis://127.0.0.1:6379"
 * </pre>
 *
 * Workloads: (a) hot slot, every student holding a seat of one slot; (b) spread, students holding
 * seats of slots picked at random; (c) a steady mix of holds, confirms, cancels and rebooks for a
 * number of seconds, with the used heap after GC sampled along the way; (d) capacity, holds on a
 * small and a large slot. Oversold seats and double-booked students are counted by SQL queries of
 * their own on the tables (for the in-memory store, through its own reads: slots, roster and
 * availability), never from answers. Every run uses fresh tenants, tables rows and Redis keys, so the
 * same servers can be reused.
 *
 * <p>{@code Bench waitlist ...} runs {@link WaitlistBench}, {@code Bench shards ...} {@link ShardBench}.
 * The machinery (options, the load driver, one class per measured line, the report, the profiler)
 * is in {@link org.slotbook.examples.bench}.
 */
public final class Bench {
    private Bench() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length > 0 && (args[0].equals("waitlist") || args[0].equals("shards"))) {
            // the lines with flags of their own: a waitlisted hot slot, and the flash sale over shards
            String[] rest = Arrays.copyOfRange(args, 1, args.length);
            if (args[0].equals("waitlist")) {
                WaitlistBench.main(rest);
            } else {
                ShardBench.main(rest);
            }
            return;
        }
        Options options = Flags.parseOrExit("Bench", Options.USAGE, Options::parse, args);
        System.exit(run(options, System.out).clean() ? 0 : 1);
    }

    /**
     * Runs every selected line of every workload, prints progress and the tables to {@code out}, and with
     * {@code --report FILE} writes the results as Markdown to that file.
     */
    public static Report run(Options options, PrintStream out) throws Exception {
        double loadAtStart = BenchMarkdown.Machine.load();
        Report report = Suite.run(options, out);
        if (options.report() != null) {
            Path file = Path.of(options.report());
            BenchMarkdown.write(file, BenchMarkdown.of(report, command(options.arguments()),
                    BenchMarkdown.Machine.of(loadAtStart)));
            out.println("report written to " + file);
        }
        return report;
    }

    /** The Maven command that runs the benchmark with these arguments, as the report quotes it. */
    static String command(List<String> arguments) {
        return "mvn -B -q -pl booking-examples -am package -DskipTests exec:java"
                + " -Dexec.mainClass=org.slotbook.examples.Bench \\\n    -Dexec.args=\"" + String.join(" ", arguments) + "\"";
    }
}
