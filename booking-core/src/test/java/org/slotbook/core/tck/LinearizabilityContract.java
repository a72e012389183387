package org.slotbook.core.tck;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.slotbook.core.BookingEngine;
import org.slotbook.core.BookingId;
import org.slotbook.core.CoachId;
import org.slotbook.core.HoldRequest;
import org.slotbook.core.RequestId;
import org.slotbook.core.RoomId;
import org.slotbook.core.Scheduled;
import org.slotbook.core.SlotId;
import org.slotbook.core.SlotSpec;
import org.slotbook.core.StudentId;
import org.slotbook.core.TenantId;
import org.slotbook.core.TimeRange;
import org.slotbook.core.tck.SlotHistory.Kind;
import org.slotbook.core.tck.SlotHistory.Recorder;

/**
 * Concurrent histories of one slot, checked for linearizability against the slot's sequential
 * specification ({@code docs/slot-specification.md}, {@link SlotModel}). Each history: a fresh slot
 * of 2 or 3 seats, 5 to 10 students, up to 16 threads running new holds, retries of earlier requests
 * (still running or answered), confirms, cancels and availability reads. A failing history is
 * printed minimized.
 *
 * <p>{@code -Dslotbook.linearizability.histories} (50), {@code -Dslotbook.linearizability.operations}
 * (100) and {@code -Dslotbook.linearizability.seed} (printed) set the run.
 */
public interface LinearizabilityContract {
    String HISTORIES = "slotbook.linearizability.histories";
    String OPERATIONS = "slotbook.linearizability.operations";
    String SEED = "slotbook.linearizability.seed";
    /** Search steps per history before the check gives up; far above what a passing history takes. */
    long BUDGET = 20_000_000L;

    /** The suite's engine: its store, its gate, a clock that stands still (no hold expires). */
    BookingEngine historyEngine();

    /** Whether a gate stands in front of the store (its {@code Full} may count holds in flight). */
    boolean historyBehindGate();

    TenantId testTenant();

    Instant testBase();

    int testRaceThreads();

    @Test
    default void everyHistoryOfOneSlotIsLinearizable() {
        int histories = Integer.getInteger(HISTORIES, 50);
        int operations = Integer.getInteger(OPERATIONS, 100);
        Long fixed = Long.getLong(SEED);
        long seed = fixed != null ? fixed : ThreadLocalRandom.current().nextLong();
        String where = getClass().getName();
        System.out.println("[slotbook] linearizability " + where + ": " + histories + " histories x " + operations
                + " operations, seed=" + seed + " (replay with -D" + SEED + "=" + seed + ")");
        long started = System.nanoTime();
        List<String> failures = new ArrayList<>();
        for (int h = 0; h < histories && failures.isEmpty(); h++) {
            SlotHistory history = record(new Random(seed + h), operations);
            Linearizability.Verdict verdict = Linearizability.check(history, historyBehindGate(), BUDGET);
            if (verdict != Linearizability.Verdict.LINEARIZABLE) {
                // the whole history too: what the minimized one dropped may show how the state got there
                System.out.println("[slotbook] linearizability " + where + ": history " + h + " of seed " + seed
                        + " in full, " + history.describe());
                SlotHistory small = verdict == Linearizability.Verdict.VIOLATION
                        ? Linearizability.minimize(history, historyBehindGate(), BUDGET) : history;
                failures.add("history " + h + " of seed " + seed + " (" + where + ") is " + verdict
                        + (historyBehindGate() ? " (behind the gate)" : "") + "; minimized, "
                        + small.describe());
            }
        }
        System.out.println("[slotbook] linearizability " + where + ": done in "
                + Duration.ofNanos(System.nanoTime() - started).toMillis() + " ms");
        assertThat(failures).as("non-linearizable histories").isEmpty();
    }

    private SlotHistory record(Random random, int operations) {
        BookingEngine engine = historyEngine();
        TenantId tenant = testTenant();
        int capacity = 2 + random.nextInt(2);
        int studentCount = 5 + random.nextInt(6);
        String id = Fixtures.shortRandom();
        SlotId slot = SlotId.of("lin-" + id);
        assertThat(engine.schedule(tenant, new SlotSpec(slot, CoachId.of("coach-" + id), RoomId.of("room-" + id),
                TimeRange.of(testBase(), Duration.ofHours(1)), capacity))).isInstanceOf(Scheduled.class);
        List<StudentId> students = new ArrayList<>();
        for (int s = 0; s < studentCount; s++) {
            students.add(StudentId.of("s" + s + "-" + id));
        }
        Recorder recorder = new Recorder(capacity, slot);
        List<Integer> granted = java.util.Collections.synchronizedList(new ArrayList<>());
        AtomicInteger next = new AtomicInteger();
        long threadSeed = random.nextLong();
        Concurrent.runAll(Math.min(16, testRaceThreads()), thread -> {
            Random r = new Random(threadSeed + thread);
            while (next.getAndIncrement() < operations) {
                int p = r.nextInt(100);
                int requests = recorder.requestCount();
                int request = -1;
                Kind kind;
                if (p < 35 || requests == 0) {
                    kind = Kind.HOLD;
                    request = recorder.newRequest(RequestId.random(), students.get(r.nextInt(studentCount)));
                } else if (p < 52) {
                    kind = Kind.HOLD; // a retry: of a recent request (often still running) or of any
                    request = r.nextBoolean() ? requests - 1 - r.nextInt(Math.min(4, requests)) : r.nextInt(requests);
                } else if (p < 85 && !granted.isEmpty()) {
                    kind = p < 67 ? Kind.CONFIRM : Kind.CANCEL;
                    synchronized (granted) {
                        request = granted.get(r.nextInt(granted.size()));
                    }
                } else {
                    kind = Kind.AVAILABILITY;
                }
                run(engine, tenant, slot, recorder, granted, thread, kind, request);
            }
        });
        return recorder.history();
    }

    private static void run(BookingEngine engine, TenantId tenant, SlotId slot, Recorder recorder,
                            List<Integer> granted, int thread, Kind kind, int request) {
        RequestId requestId = request < 0 ? null : recorder.requestId(request);
        StudentId student = request < 0 ? null : recorder.studentId(request);
        BookingId booking = request < 0 ? null : recorder.bookingOf(request);
        long invoked = System.nanoTime();
        Object result;
        try {
            result = switch (kind) {
                case HOLD -> engine.hold(tenant, HoldRequest.of(requestId, slot, student));
                case CONFIRM -> engine.confirm(tenant, booking, student);
                case CANCEL -> engine.cancel(tenant, booking, student);
                case AVAILABILITY -> engine.availability(tenant, slot);
            };
        } catch (RuntimeException e) {
            result = e;
        }
        long returned = System.nanoTime();
        recorder.record(thread, kind, request, invoked, returned, result);
        if (kind == Kind.HOLD && result instanceof org.slotbook.core.Held held && !held.replayed()) {
            granted.add(request);
        }
    }
}
