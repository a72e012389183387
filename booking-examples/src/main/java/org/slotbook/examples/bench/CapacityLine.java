package org.slotbook.examples.bench;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import org.slotbook.core.BookingEngine;
import org.slotbook.core.Cancelled;
import org.slotbook.core.CoachId;
import org.slotbook.core.Held;
import org.slotbook.core.HoldRequest;
import org.slotbook.core.HoldResult;
import org.slotbook.core.RequestId;
import org.slotbook.core.RoomId;
import org.slotbook.core.ScheduleResult;
import org.slotbook.core.Scheduled;
import org.slotbook.core.SlotId;
import org.slotbook.core.SlotSpec;
import org.slotbook.core.StudentId;
import org.slotbook.core.TenantId;
import org.slotbook.core.TimeRange;

/**
 * The capacity line of one database: holds on two slots of {@value #SMALL_SEATS} seats, and on two slots of
 * {@code --capacity-seats} seats, of the same tenant, on the same threads (at most {@value #SMALL_SEATS}, so
 * a small slot always has a free seat: each thread cancels its hold, untimed, before its next one). The
 * sizes take turns ({@code --turns} blocks of each size, small first), so that a spell of the machine falls
 * on both; within a block the holds alternate between the size's two slots, so that the calls concurrent
 * holds share (hold lanes) have the same shape at both sizes and only the seat count differs. A size's
 * rate is its holds over the time the threads spent in them.
 */
final class CapacityLine {
    /** Seats of a small slot. */
    static final int SMALL_SEATS = 10;

    private CapacityLine() {
    }

    /** Measures both sizes, hands each size's result to {@code suite}, and answers the pair. */
    static Capacity run(BenchDb db, TenantId tenant, Options sizes, Suite suite) throws Exception {
        BookingEngine engine = db.dbOnly();
        int[] seats = {SMALL_SEATS, sizes.capacitySeats()};
        SlotId[][] slots = new SlotId[2][2];
        TimeRange time = TimeRange.of(Instant.now().truncatedTo(ChronoUnit.DAYS).plus(Duration.ofDays(3)),
                Duration.ofMinutes(60));
        for (int k = 0; k < 2; k++) {
            for (int j = 0; j < 2; j++) {
                slots[k][j] = SlotId.of("capacity-" + seats[k] + "-" + j);
                ScheduleResult r = engine.schedule(tenant, new SlotSpec(slots[k][j], CoachId.of("coach-c" + k + j),
                        RoomId.of("room-c" + k + j), time, seats[k]));
                if (!(r instanceof Scheduled)) {
                    throw new IllegalStateException("could not schedule " + slots[k][j] + ": " + r);
                }
            }
        }
        int threads = Math.min(sizes.threads(), SMALL_SEATS);
        Latencies[] latencies = {new Latencies(), new Latencies()};
        LongAdder[] nanos = {new LongAdder(), new LongAdder()};
        LongAdder[] decisions = {new LongAdder(), new LongAdder()};
        LongAdder[] holds = {new LongAdder(), new LongAdder()};
        LongAdder[] errors = {new LongAdder(), new LongAdder()};
        AtomicReference<Throwable> firstError = new AtomicReference<>();
        // the sizes take turns, each turn a block of one size's holds: holds of both sizes at once would share
        // calls (hold lanes), and a claim that costs more on a large slot would then slow the small slots' holds
        // alike and hide itself from the ratio
        int turns = Math.max(1, Math.min(sizes.turns(), sizes.capacityHolds()));
        int perSize = sizes.capacityHolds();
        for (int turn = 0; turn < turns; turn++) {
            for (int size = 0; size < 2; size++) {
                int k = size;
                LoadDriver.threads(threads).requests(turn * perSize / turns, (turn + 1) * perSize / turns, (thread, i) -> {
                    StudentId student = StudentId.of("c" + k + "-" + i);
                    long t0 = System.nanoTime();
                    HoldResult r;
                    try {
                        r = engine.hold(tenant, HoldRequest.of(RequestId.of("c" + k + "-" + i), slots[k][i & 1], student));
                    } catch (RuntimeException e) {
                        errors[k].increment();
                        firstError.compareAndSet(null, e);
                        throw e;
                    }
                    long elapsed = System.nanoTime() - t0;
                    latencies[k].record(elapsed);
                    nanos[k].add(elapsed);
                    decisions[k].increment();
                    if (r instanceof Held h) {
                        holds[k].increment();
                        if (!(engine.cancel(tenant, h.booking().bookingId(), student) instanceof Cancelled)) {
                            throw new IllegalStateException("could not cancel " + h.booking().bookingId());
                        }
                        return true;
                    }
                    return false;
                });
            }
        }
        Ledger.Violations found = db.violations(tenant);
        Result[] measured = new Result[2];
        for (int k = 0; k < 2; k++) {
            double seconds = nanos[k].sum() / 1e9 / threads;
            String note = firstError.get() == null ? "" : "first error: " + firstError.get();
            measured[k] = new Result("capacity", String.format(Locale.ROOT, "%s, %,d seats", SlotbookLine.DB_ONLY,
                    seats[k]), db.name(), threads, decisions[k].sum(), holds[k].sum(), errors[k].sum(),
                    seconds, latencies[k].percentileMillis(50), latencies[k].percentileMillis(99),
                    latencies[k].maxMillis(), found.oversold(), found.doubleBooked(), note);
            suite.add(measured[k]);
        }
        Capacity c = new Capacity(db.name(), seats[1], measured[0], measured[1]);
        suite.out().printf(Locale.ROOT, "  capacity (%s): a hold at %,d seats costs %.2fx a hold at %d seats%n",
                db.name(), seats[1], c.ratio(), SMALL_SEATS);
        return c;
    }
}
