package org.slotbook.examples;

import java.io.PrintStream;
import java.util.Arrays;
import org.slotbook.examples.bench.Flags;
import org.slotbook.examples.bench.Options;
import org.slotbook.examples.bench.Report;
import org.slotbook.examples.bench.Suite;

/**
 * The load benchmark: in one process, side by side on the same database and Redis, the naive way
 * (count, then insert), Slotbook DB-only (on the given database and on H2 in memory), and Slotbook
 * with the Redis gate, each compared with a raw ceiling measured in the same run.
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
 * their own on the tables, never from answers. Every run uses fresh tenants, tables rows and Redis
 * keys, so the same servers can be reused.
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

    /** Runs every selected line of every workload, prints progress and the tables to {@code out}. */
    public static Report run(Options options, PrintStream out) throws Exception {
        return Suite.run(options, out);
    }
}
