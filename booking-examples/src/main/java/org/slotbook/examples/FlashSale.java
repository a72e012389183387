package org.slotbook.examples;

import java.io.PrintStream;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.atomic.LongAdder;
import org.slotbook.core.AlreadyBooked;
import org.slotbook.core.BookingEngine;
import org.slotbook.core.CoachId;
import org.slotbook.core.Conflict;
import org.slotbook.core.Full;
import org.slotbook.core.Held;
import org.slotbook.core.HoldRequest;
import org.slotbook.core.HoldResult;
import org.slotbook.core.RequestId;
import org.slotbook.core.RoomId;
import org.slotbook.core.SlotId;
import org.slotbook.core.SlotSpec;
import org.slotbook.core.StudentId;
import org.slotbook.core.TenantId;
import org.slotbook.core.TimeRange;
import org.slotbook.examples.bench.Backends;
import org.slotbook.examples.bench.Flags;
import org.slotbook.examples.bench.LoadDriver;
import org.slotbook.examples.bench.Measured;
import org.slotbook.examples.bench.ServerFlags;

/**
 * A star coach's Saturday slot opens and every student presses "book" in the same second.
 *
 * <p>With no arguments it needs nothing installed: the ledger is H2 in memory and the gate a real
 * Redis started from the embedded-redis package. {@code --jdbc URL} and {@code --redis URL} point it
 * at real servers; {@code --no-redis} runs DB-only. The summary counts oversold seats with an
 * independent query on the database, not from the engine's answers.
 */
public final class FlashSale {
    private FlashSale() {
    }

    /** The run's settings, parsed from the command line. */
    public record Options(String jdbcUrl, String redisUrl, boolean noRedis, int students, int seats, int threads) {
        static final String USAGE = String.join("\n",
                "usage: FlashSale [--jdbc URL] [--redis URL | --no-redis] [--students N] [--seats N] [--threads N]",
                "  --jdbc URL      ledger database (jdbc:postgresql:..., jdbc:mariadb:..., jdbc:h2:...);"
                        + " default: H2 in memory",
                "  --redis URL     Redis gate (redis://127.0.0.1:6379); default: an embedded Redis",
                "  --no-redis      no gate: the database alone decides (small-institution mode)",
                "  --students N    students pressing book at once (default 2000)",
                "  --seats N       seats in the slot (default 10)",
                "  --threads N     client threads (default 64)");

        public static Options parse(String... args) {
            ServerFlags servers = new ServerFlags();
            int students = 2000;
            int seats = 10;
            int threads = 64;
            for (int i = 0; i < args.length; i++) {
                String flag = args[i];
                switch (flag) {
                    case "--students" -> students = Flags.number(args, ++i, flag, 1, 10_000_000);
                    case "--seats" -> seats = Flags.number(args, ++i, flag, 1, 100_000);
                    case "--threads" -> threads = Flags.number(args, ++i, flag, 1, 2_000);
                    default -> i = servers.read(args, i);
                }
            }
            return new Options(servers.jdbc(), servers.redis(), servers.noRedis(), students, seats, threads);
        }
    }

    /** What a sale did, counted from the answers and, for oversold, from the database. */
    public record Summary(int students, int seats, int booked, int full, int conflicts, int other, Duration duration,
                          double decisionsPerSecond, double p50Millis, double p99Millis, long storedBookings,
                          long oversold, long gateFullAnswers) {
        String render() {
            return String.format(Locale.ROOT, String.join("%n",
                    "students          %d",
                    "seats             %d",
                    "booked            %d",
                    "full              %d",
                    "conflicts         %d",
                    "other answers     %d",
                    "duration          %d ms",
                    "decisions/s       %.0f",
                    "latency p50       %.2f ms",
                    "latency p99       %.2f ms",
                    "answered by gate  %d (full, no database work)",
                    "stored bookings   %d (independent query on the database)",
                    "oversold          %d"),
                    students, seats, booked, full, conflicts, other, duration.toMillis(), decisionsPerSecond,
                    p50Millis, p99Millis, gateFullAnswers, storedBookings, oversold);
        }
    }

    public static void main(String[] args) throws Exception {
        Options options = Flags.parseOrExit("FlashSale", Options.USAGE, Options::parse, args);
        System.exit(run(options, System.out).oversold() == 0 ? 0 : 1);
    }

    /** Runs one sale with the given options, printing progress and the summary to {@code out}. */
    public static Summary run(Options options, PrintStream out) throws Exception {
        try (Backends backends = Backends.open(options.jdbcUrl(), options.redisUrl(), options.noRedis(), out)) {
            BookingEngine engine = backends.engine();
            TenantId tenant = TenantId.of("flash-" + UUID.randomUUID());
            SlotId slot = SlotId.of("saturday-star");
            Instant start = Instant.now().truncatedTo(ChronoUnit.DAYS).plus(Duration.ofDays(3));
            engine.schedule(tenant, new SlotSpec(slot, CoachId.of("star-coach"), RoomId.of("main-hall"),
                    TimeRange.of(start, Duration.ofMinutes(90)), options.seats()));
            out.printf(Locale.ROOT, "Flash sale: %d students, %d seats, %d threads, ledger %s, gate %s%n",
                    options.students(), options.seats(), options.threads(), backends.ledgerName(),
                    backends.gateName());
            // the sale's rows stay in the ledger, to be looked at under this tenant
            out.printf(Locale.ROOT, "tenant %s, slot %s%n", tenant.value(), slot.value());

            LongAdder full = new LongAdder();
            LongAdder conflicts = new LongAdder();
            LongAdder other = new LongAdder();
            Measured m = LoadDriver.threads(options.threads())
                    .progress(Duration.ofMillis(500), answered -> out.printf(Locale.ROOT,
                            "  ... %d of %d answered%n", answered, options.students()))
                    .requests(options.students(), (thread, n) -> {
                        HoldResult r = engine.book(tenant,
                                HoldRequest.of(RequestId.random(), slot, StudentId.of("student-" + n)));
                        if (r instanceof Full) {
                            full.increment();
                        } else if (r instanceof Conflict || r instanceof AlreadyBooked) {
                            conflicts.increment();
                        } else if (!(r instanceof Held)) {
                            other.increment();
                        }
                        return r instanceof Held;
                    })
                    .requireNoErrors("flash sale");
            long stored = backends.countLiveBookings(tenant, slot);
            Summary summary = new Summary(options.students(), options.seats(), (int) m.holds(), full.intValue(),
                    conflicts.intValue(), other.intValue(), m.duration(), options.students() / m.seconds(),
                    m.latencies().percentileMillis(50), m.latencies().percentileMillis(99), stored,
                    Math.max(0, stored - options.seats()), engine.metrics().gateFull());
            out.println(summary.render());
            return summary;
        }
    }
}
