package org.slotbook.examples;

import java.io.PrintStream;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.atomic.LongAdder;
import org.slotbook.core.BookingEngine;
import org.slotbook.core.CoachId;
import org.slotbook.core.Full;
import org.slotbook.core.Held;
import org.slotbook.core.HoldPolicy;
import org.slotbook.core.HoldRequest;
import org.slotbook.core.HoldResult;
import org.slotbook.core.RequestId;
import org.slotbook.core.RoomId;
import org.slotbook.core.SlotId;
import org.slotbook.core.SlotSpec;
import org.slotbook.core.StudentId;
import org.slotbook.core.TenantId;
import org.slotbook.core.TimeRange;
import org.slotbook.core.shard.TenantRoutedStore;
import org.slotbook.examples.bench.Backends;
import org.slotbook.examples.bench.Flags;
import org.slotbook.examples.bench.LoadDriver;
import org.slotbook.examples.bench.Measured;

/**
 * The flash-sale line of the load benchmark over one shard and over two, in the same run: many
 * tenants (campuses) each open one slot at the same instant and their students press "book" at once;
 * the engine runs DB-only (the judge is what sharding scales). Lines run 1 shard, 2 shards, 1 shard
 * again, each with fresh tenants, and the scaling factor is the 2-shard rate over the mean of the two
 * 1-shard rates. Oversold seats are counted by SQL on every shard after each line.
 *
 * <pre>
 * ShardBench --jdbc URL --jdbc2 URL [--tenants N] [--seats N] [--students N] [--threads N] [--no-warmup]
 * </pre>
 * Both URLs must be different database servers for the factor to mean anything; on one host they
 * share its cores, and the factor shows what the host, not the design, allows.
 */
public final class ShardBench {
    private ShardBench() {
    }

    /** The run's settings. */
    public record Options(String jdbc, String jdbc2, int tenants, int seats, int students, int threads,
                          boolean warmup) {
        static final String USAGE = String.join("\n",
                "usage: ShardBench --jdbc URL --jdbc2 URL [--tenants N] [--seats N] [--students N] [--threads N]"
                        + " [--no-warmup]",
                "  --jdbc URL    first shard (the 1-shard lines run on it alone)",
                "  --jdbc2 URL   second shard, another database server",
                "  --tenants N   campuses, each opening one slot (default 40)",
                "  --seats N     seats of each slot (default 50)",
                "  --students N  hold requests per line, spread evenly over the tenants (default 8000)",
                "  --threads N   client threads (default 32)");

        public static Options parse(String... args) {
            String jdbc = null;
            String jdbc2 = null;
            int tenants = 40;
            int seats = 50;
            int students = 8000;
            int threads = 32;
            boolean warmup = true;
            for (int i = 0; i < args.length; i++) {
                String flag = args[i];
                switch (flag) {
                    case "--jdbc" -> jdbc = Flags.value(args, ++i, flag);
                    case "--jdbc2" -> jdbc2 = Flags.value(args, ++i, flag);
                    case "--tenants" -> tenants = Flags.number(args, ++i, flag, 1, 100_000);
                    case "--seats" -> seats = Flags.number(args, ++i, flag, 1, 100_000);
                    case "--students" -> students = Flags.number(args, ++i, flag, 1, 10_000_000);
                    case "--threads" -> threads = Flags.number(args, ++i, flag, 1, 2_000);
                    case "--no-warmup" -> warmup = false;
                    default -> throw new IllegalArgumentException("unknown flag '" + flag + "'");
                }
            }
            if (jdbc == null || jdbc2 == null) {
                throw new IllegalArgumentException("--jdbc and --jdbc2 are both required");
            }
            return new Options(jdbc, jdbc2, tenants, seats, students, threads, warmup);
        }
    }

    /** One line: its shard count, what was answered, how fast, and what SQL found oversold. */
    public record Line(int shards, int decisions, int holds, int full, int errors, double seconds,
                       double p50Millis, double p99Millis, long oversold) {
        public double decisionsPerSecond() {
            return decisions / seconds;
        }

        public double holdsPerSecond() {
            return holds / seconds;
        }
    }

    /** The three lines and the factor. */
    public record Report(List<Line> lines, double factor) {
    }

    public static void main(String[] args) throws Exception {
        Options options = Flags.parseOrExit("ShardBench", Options.USAGE, Options::parse, args);
        Report report = run(options, System.out);
        System.exit(report.lines().stream().allMatch(l -> l.oversold() == 0 && l.errors() == 0) ? 0 : 1);
    }

    public static Report run(Options o, PrintStream out) throws Exception {
        int pool = o.threads() + 2;
        try (Backends a = Backends.open(o.jdbc(), null, true, out, pool, HoldPolicy.ofDefaults());
             Backends b = Backends.open(o.jdbc2(), null, true, out, pool, HoldPolicy.ofDefaults())) {
            TenantRoutedStore one = TenantRoutedStore.builder().shard("a", a.store()).build();
            TenantRoutedStore two = TenantRoutedStore.builder().shard("a", a.store()).shard("b", b.store()).build();
            List<Backends> oneShard = List.of(a);
            List<Backends> twoShards = List.of(a, b);
            out.printf(Locale.ROOT, "ShardBench: %d tenants x 1 slot x %d seats, %d hold requests per line,"
                    + " %d threads, DB-only; shard a %s, shard b %s%n", o.tenants(), o.seats(), o.students(),
                    o.threads(), a.ledgerName(), b.ledgerName());
            if (o.warmup()) {
                Options small = new Options(o.jdbc(), o.jdbc2(), Math.min(o.tenants(), 10), o.seats(),
                        Math.min(o.students(), 2000), o.threads(), false);
                line(small, one, oneShard, 1);
                line(small, two, twoShards, 2);
            }
            List<Line> lines = new ArrayList<>();
            lines.add(line(o, one, oneShard, 1));
            lines.add(line(o, two, twoShards, 2));
            lines.add(line(o, one, oneShard, 1));
            double oneRate = (lines.get(0).decisionsPerSecond() + lines.get(2).decisionsPerSecond()) / 2;
            double factor = lines.get(1).decisionsPerSecond() / oneRate;
            out.println();
            out.println("| shards | decisions | holds | full | errors | decisions/s | holds/s | p50 ms | p99 ms | oversold |");
            out.println("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
            for (Line l : lines) {
                out.printf(Locale.ROOT, "| %d | %,d | %,d | %,d | %d | %,.0f | %,.0f | %.2f | %.2f | %d |%n",
                        l.shards(), l.decisions(), l.holds(), l.full(), l.errors(), l.decisionsPerSecond(),
                        l.holdsPerSecond(), l.p50Millis(), l.p99Millis(), l.oversold());
            }
            out.printf(Locale.ROOT, "%nscaling factor, 2 shards over 1 (mean of both 1-shard lines): %.2fx%n", factor);
            return new Report(List.copyOf(lines), factor);
        }
    }

    private static Line line(Options o, TenantRoutedStore store, List<Backends> shards, int shardCount)
            throws Exception {
        BookingEngine engine = BookingEngine.builder().store(store).build();
        String run = UUID.randomUUID().toString().substring(0, 8);
        SlotId slot = SlotId.of("opening");
        Instant start = Instant.now().truncatedTo(ChronoUnit.DAYS).plus(Duration.ofDays(3));
        List<TenantId> tenants = new ArrayList<>();
        for (int i = 0; i < o.tenants(); i++) {
            TenantId tenant = TenantId.of("campus-" + run + "-" + i);
            tenants.add(tenant);
            engine.schedule(tenant, new SlotSpec(slot, CoachId.of("coach"), RoomId.of("hall"),
                    TimeRange.of(start, Duration.ofMinutes(90)), o.seats()));
        }
        LongAdder full = new LongAdder();
        Measured m = LoadDriver.threads(o.threads()).requests(o.students(), (thread, n) -> {
            HoldResult r = engine.hold(tenants.get(n % tenants.size()), HoldRequest.of(RequestId.random(), slot,
                    StudentId.of("student-" + n)));
            if (r instanceof Full) {
                full.increment();
            }
            return r instanceof Held;
        });
        long oversold = 0;
        for (Backends shard : shards) {
            for (TenantId tenant : tenants) {
                oversold += Math.max(0, shard.countLiveBookings(tenant, slot) - o.seats());
            }
        }
        // counted: the line's rows go, so that the next line and the next run start from the same tables
        for (Backends shard : shards) {
            for (TenantId tenant : tenants) {
                shard.deleteTenant(tenant);
            }
        }
        return new Line(shardCount, o.students(), (int) m.holds(), full.intValue(), (int) m.errors(), m.seconds(),
                m.latencies().percentileMillis(50), m.latencies().percentileMillis(99), oversold);
    }
}
