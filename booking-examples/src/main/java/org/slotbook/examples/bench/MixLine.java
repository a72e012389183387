package org.slotbook.examples.bench;

import java.time.Duration;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.LongAdder;
import org.slotbook.core.BookingEngine;
import org.slotbook.core.BookingId;
import org.slotbook.core.Cancelled;
import org.slotbook.core.Confirmed;
import org.slotbook.core.Full;
import org.slotbook.core.Held;
import org.slotbook.core.HoldRequest;
import org.slotbook.core.HoldResult;
import org.slotbook.core.RequestId;
import org.slotbook.core.SlotId;
import org.slotbook.core.StudentId;
import org.slotbook.core.TenantId;

/**
 * The steady mix of one Slotbook engine, for a number of seconds: each thread drives its own students
 * through hold, confirm (80% of holds), cancel, and a rebook after a cancel, on slots picked at random,
 * while the used heap after GC is sampled. Oversold and double-booked are counted afterwards from the
 * ledger's own state (by SQL, or through the in-memory store's reads).
 */
final class MixLine {
    private MixLine() {
    }

    static Result run(String line, Ledger db, BookingEngine engine, TenantId tenant, Options sizes, Suite suite)
            throws Exception {
        int threads = sizes.threads();
        int slots = sizes.slots();
        SlotId[] ids = SlotbookLine.schedule(engine, tenant, slots, sizes.seats(), threads);
        // 1.5 students per seat: some holds find their slot full, most seats keep turning over
        int perThread = Math.max(2, (int) Math.ceil(1.5 * slots * sizes.seats() / threads));
        LongAdder confirms = new LongAdder();
        LongAdder cancels = new LongAdder();
        LongAdder rebooks = new LongAdder();
        LongAdder full = new LongAdder();
        HeapSampler sampler = new HeapSampler(Duration.ofSeconds(Math.min(3, Math.max(1, sizes.mixSeconds() / 3))));
        sampler.start();
        Measured m;
        try {
            m = LoadDriver.threads(threads).forDuration(Duration.ofSeconds(sizes.mixSeconds()), thread -> {
                SplittableRandom random = new SplittableRandom(tenant.value().hashCode() * 31L + thread);
                BookingId[] booking = new BookingId[perThread];
                byte[] state = new byte[perThread]; // 0 none, 1 held, 2 confirmed
                boolean[] cancelledBefore = new boolean[perThread];
                long[] requests = new long[1];
                return () -> {
                    int s = random.nextInt(perThread);
                    StudentId student = StudentId.of("m" + thread + "-" + s);
                    switch (state[s]) {
                        case 0 -> {
                            HoldResult r = engine.hold(tenant, HoldRequest.of(
                                    RequestId.of("m" + thread + "-" + requests[0]++), ids[random.nextInt(slots)],
                                    student));
                            if (r instanceof Held h) {
                                booking[s] = h.booking().bookingId();
                                state[s] = 1;
                                if (cancelledBefore[s]) {
                                    rebooks.increment();
                                }
                                return !h.replayed();
                            }
                            if (r instanceof Full) {
                                full.increment();
                            }
                            return false;
                        }
                        case 1 -> {
                            if (random.nextInt(10) < 8) {
                                state[s] = engine.confirm(tenant, booking[s], student) instanceof Confirmed
                                        ? (byte) 2 : 0;
                                confirms.increment();
                            } else {
                                cancel(engine, tenant, booking[s], student, cancels);
                                state[s] = 0;
                                cancelledBefore[s] = true;
                            }
                            return false;
                        }
                        default -> {
                            cancel(engine, tenant, booking[s], student, cancels);
                            state[s] = 0;
                            cancelledBefore[s] = true;
                            return false;
                        }
                    }
                };
            });
        } finally {
            sampler.stop();
        }
        String label = line + " (" + db.name() + ")";
        suite.keepHeap(label, sampler.samples());
        suite.out().printf(Locale.ROOT, "  %s: %d confirms, %d cancels, %d rebooks, %d holds refused as full;"
                        + " used heap after GC (MB): %s%n", label, confirms.sum(), cancels.sum(), rebooks.sum(),
                full.sum(), Report.megabytes(sampler.samples()));
        Ledger.Violations found = db.violations(tenant);
        return m.result("mix", line, db.name(), threads, found.oversold(), found.doubleBooked(), String.format(
                Locale.ROOT, "%d confirms, %d cancels, %d rebooks", confirms.sum(), cancels.sum(), rebooks.sum()));
    }

    private static void cancel(BookingEngine engine, TenantId tenant, BookingId booking, StudentId student,
                               LongAdder cancels) {
        if (engine.cancel(tenant, booking, student) instanceof Cancelled) {
            cancels.increment();
        }
    }
}
