package org.slotbook.examples;

import java.io.PrintStream;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import org.slotbook.core.Booking;
import org.slotbook.core.BookingEngine;
import org.slotbook.core.BookingListener;
import org.slotbook.core.CancelResult;
import org.slotbook.core.Cancelled;
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
import org.slotbook.core.Waitlisted;
import org.slotbook.examples.bench.Backends;
import org.slotbook.examples.bench.Flags;
import org.slotbook.examples.bench.Latencies;
import org.slotbook.examples.bench.LoadDriver;
import org.slotbook.examples.bench.Measured;
import org.slotbook.examples.bench.ServerFlags;

/**
 * A waitlisted hot slot: students press "book" on a slot with few seats at once, some of them asking
 * to wait; then the seat holders cancel one after the other while newcomers keep pressing "book". Each
 * cancel promotes the first waiter in the same transaction. Reports the promotion latency, from the
 * start of the cancel call to the promoted booking reaching the listener (the cancel's commit and the
 * waiter's HELD are one commit, so this is what a student waiting on the list sees), and checks with
 * SQL that every promotion went to the earliest waiter, that nobody waits while a seat is free, and
 * that the slot was never oversold.
 *
 * <pre>
 * WaitlistBench [--jdbc URL] [--redis URL | --no-redis] [--students N] [--seats N] [--waiters N]
 *               [--cancels N] [--threads N]
 * </pre>
 */
public final class WaitlistBench {
    private WaitlistBench() {
    }

    /** The run's settings. */
    public record Options(String jdbc, String redis, boolean noRedis, int students, int seats, int waiters,
                          int cancels, int threads) {
        static final String USAGE = String.join("\n",
                "usage: WaitlistBench [--jdbc URL] [--redis URL | --no-redis] [--students N] [--seats N]"
                        + " [--waiters N] [--cancels N] [--threads N]",
                "  --jdbc URL     the database (default H2 in memory)",
                "  --redis URL    the gate (default an embedded Redis; --no-redis for DB-only)",
                "  --students N   students pressing book at the opening (default 10000)",
                "  --seats N      seats of the slot (default 10)",
                "  --waiters N    of those, how many ask to wait when it is full (default 500)",
                "  --cancels N    cancels arriving afterwards, one at a time, each promoting a waiter (default 200)",
                "  --threads N    client threads (default 32)");

        public static Options parse(String... args) {
            ServerFlags servers = new ServerFlags();
            int students = 10_000;
            int seats = 10;
            int waiters = 500;
            int cancels = 200;
            int threads = 32;
            for (int i = 0; i < args.length; i++) {
                String flag = args[i];
                switch (flag) {
                    case "--students" -> students = Flags.number(args, ++i, flag, 2, 10_000_000);
                    case "--seats" -> seats = Flags.number(args, ++i, flag, 1, 100_000);
                    case "--waiters" -> waiters = Flags.number(args, ++i, flag, 1, 1_000_000);
                    case "--cancels" -> cancels = Flags.number(args, ++i, flag, 1, 1_000_000);
                    case "--threads" -> threads = Flags.number(args, ++i, flag, 1, 2_000);
                    default -> i = servers.read(args, i);
                }
            }
            if (waiters >= students) {
                throw new IllegalArgumentException("--waiters must be fewer than --students, got " + waiters);
            }
            return new Options(servers.jdbc(), servers.redis(), servers.noRedis(), students, seats, waiters, cancels,
                    threads);
        }
    }

    /** What the run measured and what SQL found. */
    public record Report(int held, int waitlisted, int full, int errors, double openingSeconds, int cancels,
                         int promoted, double p50Millis, double p99Millis, double maxMillis, long outOfOrder,
                         long waitingWhileFree, long oversold) {
        public boolean clean() {
            return errors == 0 && outOfOrder == 0 && waitingWhileFree == 0 && oversold == 0;
        }
    }

    public static void main(String[] args) throws Exception {
        Options options = Flags.parseOrExit("WaitlistBench", Options.USAGE, Options::parse, args);
        System.exit(run(options, System.out).clean() ? 0 : 1);
    }

    public static Report run(Options o, PrintStream out) throws Exception {
        try (Backends backends = Backends.open(o.jdbc(), o.redis(), o.noRedis(), out, o.threads() + 4,
                HoldPolicy.ofDefaults())) {
            Map<RequestId, Long> promotedAt = new ConcurrentHashMap<>();
            BookingEngine engine = BookingEngine.builder()
                    .store(backends.store())
                    .reservation(backends.gate())
                    .holdPolicy(HoldPolicy.ofDefaults())
                    .listener(new BookingListener() {
                        @Override
                        public void promoted(Booking booking) {
                            promotedAt.put(booking.requestId(), System.nanoTime());
                        }
                    })
                    .build();
            TenantId tenant = TenantId.of("waitlist-bench-" + UUID.randomUUID().toString().substring(0, 8));
            SlotId slot = SlotId.of("star-coach");
            Instant start = Instant.now().truncatedTo(ChronoUnit.DAYS).plus(Duration.ofDays(3));
            engine.schedule(tenant, new SlotSpec(slot, CoachId.of("li"), RoomId.of("hall-a"),
                    TimeRange.of(start, Duration.ofHours(1)), o.seats()));
            out.printf(Locale.ROOT, "WaitlistBench: %d students (%d ask to wait), %d seats, %d cancels, %d threads;"
                    + " ledger %s, gate %s%n", o.students(), o.waiters(), o.seats(), o.cancels(), o.threads(),
                    backends.ledgerName(), backends.gateName());

            // 1. the opening: everybody at once; every (students / waiters)-th student asks to wait
            int every = o.students() / o.waiters();
            LongAdder waitlisted = new LongAdder();
            LongAdder full = new LongAdder();
            List<Booking> seated = Collections.synchronizedList(new ArrayList<>());
            Measured opening = LoadDriver.threads(o.threads()).requests(o.students(), (thread, n) -> {
                HoldRequest request = HoldRequest.of(RequestId.random(), slot, StudentId.of("student-" + n));
                HoldResult r = engine.book(tenant, n % every == 0 && n / every < o.waiters()
                        ? request.orWaitlist() : request);
                if (r instanceof Held h) {
                    seated.add(h.booking());
                } else if (r instanceof Waitlisted) {
                    waitlisted.increment();
                } else if (r instanceof Full) {
                    full.increment();
                }
                return r instanceof Held;
            });

            // 2. cancels arrive one at a time, each promoting the first waiter, while newcomers keep
            // pressing book; each promoted waiter confirms, and is the next to cancel
            LoadDriver.Running newcomers = LoadDriver.threads(Math.max(1, o.threads() / 2)).start(thread -> {
                int[] k = {0};
                return () -> engine.hold(tenant, HoldRequest.of(RequestId.random(), slot,
                        StudentId.of("newcomer-" + thread + "-" + k[0]++))) instanceof Held;
            });
            List<Booking> queue = new ArrayList<>(seated);
            Latencies promotions = new Latencies();
            int failedCancels = 0;
            int cancelled = 0;
            int promoted = 0;
            while (cancelled < o.cancels() && !queue.isEmpty()) {
                Booking victim = queue.remove(0);
                long c0 = System.nanoTime();
                CancelResult result = engine.cancelByStaff(tenant, victim.bookingId());
                if (!(result instanceof Cancelled)) {
                    failedCancels++;
                    continue;
                }
                // the waiter who got the seat is the one whose promotion reached the listener now
                Booking next = null;
                for (Map.Entry<RequestId, Long> e : promotedAt.entrySet()) {
                    if (e.getValue() >= c0) {
                        Booking b = backends.store().findByRequest(tenant, e.getKey()).orElse(null);
                        if (b != null && b.status().isActive() && !b.equals(victim)) {
                            promotions.record(e.getValue() - c0);
                            promoted++;
                            next = b;
                            promotedAt.remove(e.getKey());
                            break;
                        }
                    }
                }
                cancelled++;
                if (next != null) {
                    engine.confirm(tenant, next.bookingId(), next.studentId());
                    queue.add(next);
                }
            }
            long errors = opening.errors() + newcomers.stop().errors() + failedCancels;

            long[] checks = check(backends, tenant.value(), slot.value(), o.seats());
            backends.deleteTenant(tenant);
            Report report = new Report((int) opening.holds(), waitlisted.intValue(), full.intValue(), (int) errors,
                    opening.seconds(), cancelled, promoted, promotions.percentileMillis(50),
                    promotions.percentileMillis(99), promotions.maxMillis(), checks[0], checks[1], checks[2]);
            out.println();
            out.println("| students | held | waitlisted | full | errors | opening s | cancels | promoted |"
                    + " promotion p50 ms | p99 ms | max ms | out of order (SQL) | waiting while free (SQL) |"
                    + " oversold (SQL) |");
            out.println("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
            out.printf(Locale.ROOT, "| %,d | %d | %d | %,d | %d | %.2f | %d | %d | %.2f | %.2f | %.2f | %d | %d | %d |%n",
                    o.students(), report.held(), report.waitlisted(), report.full(), report.errors(),
                    report.openingSeconds(), report.cancels(), report.promoted(), report.p50Millis(),
                    report.p99Millis(), report.maxMillis(), report.outOfOrder(), report.waitingWhileFree(),
                    report.oversold());
            return report;
        }
    }

    /**
     * From SQL: promotions that skipped the line (a waiter promoted while an earlier one, never skipped
     * nor gone, is still waiting), waiters waiting while a seat is free, and seats taken beyond capacity.
     */
    private static long[] check(Backends backends, String tenant, String slot, int seats) throws SQLException {
        String prefix = backends.store().tablePrefix();
        long outOfOrder = backends.count("SELECT COUNT(*) FROM " + prefix + "waiter p WHERE p.tenant_id = ?"
                + " AND p.slot_id = ? AND p.status = 'PROMOTED' AND EXISTS (SELECT 1 FROM " + prefix + "waiter w"
                + " WHERE w.tenant_id = p.tenant_id AND w.slot_id = p.slot_id AND w.status = 'WAITING'"
                + " AND w.seq < p.seq)", tenant, slot);
        long free = backends.count("SELECT COUNT(*) FROM " + prefix + "slot_seat WHERE tenant_id = ? AND slot_id = ?"
                + " AND status = 'FREE'", tenant, slot);
        long waiting = backends.count("SELECT COUNT(*) FROM " + prefix + "waiter WHERE tenant_id = ? AND slot_id = ?"
                + " AND status = 'WAITING'", tenant, slot);
        long taken = backends.count("SELECT COUNT(*) FROM " + prefix + "booking WHERE tenant_id = ? AND slot_id = ?"
                + " AND status IN ('HELD', 'CONFIRMED')", tenant, slot);
        return new long[] {outOfOrder, free > 0 && waiting > 0 ? waiting : 0, Math.max(0, taken - seats)};
    }
}
