package org.slotbook.core.tck.faults;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import org.slotbook.core.BookingEngine;
import org.slotbook.core.Full;
import org.slotbook.core.Held;
import org.slotbook.core.HoldRequest;
import org.slotbook.core.HoldResult;
import org.slotbook.core.RequestId;
import org.slotbook.core.SlotId;
import org.slotbook.core.StudentId;
import org.slotbook.core.TenantId;
import org.slotbook.core.tck.Concurrent;

/**
 * A flash sale through a {@link BookingEngine}: every student asks once for one of the slots (student
 * i for slot i mod n, request id {@code r<i>}), from many threads, while a fault callback sees the
 * running answer count. Every answer must be {@code Held} or {@code Full}; what the sale means for
 * the store is checked by {@link Invariants#checkSale}.
 */
public final class FlashSale {
    /** What the engine answered. */
    public record Result(List<Held> held, int answers, int requests, long slowestNanos) {
        public Duration slowest() {
            return Duration.ofNanos(slowestNanos);
        }

        public List<Held> heldIn(SlotId slot) {
            return held.stream().filter(h -> h.booking().slotId().equals(slot)).toList();
        }
    }

    private FlashSale() {
    }

    public static Result run(BookingEngine engine, TenantId tenant, List<SlotId> slots, int students, int threads,
                             Concurrent.Progress fault) {
        ConcurrentLinkedQueue<Held> held = new ConcurrentLinkedQueue<>();
        AtomicLong slowest = new AtomicLong();
        Concurrent.Load load = Concurrent.load(threads, students, i -> {
            SlotId slot = slots.get(i % slots.size());
            long begin = System.nanoTime();
            HoldResult result = engine.hold(tenant,
                    HoldRequest.of(RequestId.of("r" + i), slot, StudentId.of("student-" + i)));
            slowest.accumulateAndGet(System.nanoTime() - begin, Math::max);
            if (result instanceof Held h) {
                held.add(h);
            } else if (!(result instanceof Full)) {
                throw new AssertionError("student " + i + " was answered " + result);
            }
        }, fault);
        if (load.thrownTotal() > 0) {
            throw new AssertionError("the sale's requests failed: " + load.thrown() + " " + load.samples());
        }
        return new Result(List.copyOf(held), load.operations(), students, slowest.get());
    }
}
