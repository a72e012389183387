package org.slotbook.examples.bench;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import org.slotbook.core.BookingEngine;
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
 * A Slotbook hold line, DB-only, behind the Redis gate, or on the in-memory store: the workload's slots
 * scheduled for a fresh tenant, then one {@code engine.hold} per student; oversold seats and
 * double-booked students are counted afterwards from the ledger's own state (by SQL on the tables, or
 * through the in-memory store's reads), never from the answers.
 */
public final class SlotbookLine {
    public static final String DB_ONLY = "Slotbook DB-only";
    public static final String GATED = "Slotbook Redis gate +";
    /** Slotbook on the in-memory store, without a gate; it has no ceiling. */
    public static final String MEMORY = "Slotbook in memory";

    private SlotbookLine() {
    }

    /**
     * The workload's slots scheduled for {@code tenant}, ready to be measured in turns.
     *
     * @param line    {@link #DB_ONLY}, {@link #GATED} or {@link #MEMORY}
     * @param db      the ledger the engine's store keeps its bookings in
     * @param profile whether to profile the line (when the run profiles at all)
     */
    static Turns prepare(String line, Ledger db, BookingEngine engine, Workload w, TenantId tenant, boolean profile,
                         Suite suite) throws Exception {
        SlotId[] ids = schedule(engine, tenant, w.slots(), w.seats(), w.threads());
        int[] pick = w.picks(tenant.value().hashCode());
        Profiler profiler = suite.profiler(db, profile);
        long gateFullBefore = engine.metrics().gateFull();
        return new Turns() {
            @Override
            public Measured run(int from, int to) throws Exception {
                return Suite.turn(profiler, w, from, to, (thread, i) -> {
                    // request ids as a host passes them in: unique per tenant, no random source (UUID)
                    HoldResult r = engine.hold(tenant, HoldRequest.of(RequestId.of("request-" + i), ids[pick[i]],
                            StudentId.of("student-" + i)));
                    return r instanceof Held h && !h.replayed();
                });
            }

            @Override
            public Result finish(Measured all) throws Exception {
                suite.keepProfile(profiler, w.name() + ", " + line + " (" + db.name() + ")");
                Ledger.Violations found = db.violations(tenant);
                long gateFull = engine.metrics().gateFull() - gateFullBefore;
                String note = gateFull > 0 ? gateFull + " answered full by the gate alone" : "";
                return all.result(w.name(), line, db.name(), w.threads(), found.oversold(), found.doubleBooked(),
                        note);
            }
        };
    }

    /** Schedules {@code slots} slots of {@code seats} seats at the same time, each with its own coach and room. */
    static SlotId[] schedule(BookingEngine engine, TenantId tenant, int slots, int seats, int threads)
            throws InterruptedException {
        TimeRange time = TimeRange.of(Instant.now().truncatedTo(ChronoUnit.DAYS).plus(Duration.ofDays(2)),
                Duration.ofMinutes(60));
        SlotId[] ids = new SlotId[slots];
        LoadDriver.threads(Math.min(threads, 8)).requests(slots, (thread, i) -> {
            ids[i] = SlotId.of("slot-" + i);
            ScheduleResult r = engine.schedule(tenant, new SlotSpec(ids[i], CoachId.of("coach-" + i),
                    RoomId.of("room-" + i), time, seats));
            if (!(r instanceof Scheduled)) {
                throw new IllegalStateException("could not schedule " + ids[i] + ": " + r);
            }
            return true;
        }).requireNoErrors("scheduling");
        return ids;
    }
}
