package org.slotbook.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntConsumer;
import org.slotbook.core.Booking;
import org.slotbook.core.BookingEngine;
import org.slotbook.core.BookingId;
import org.slotbook.core.Full;
import org.slotbook.core.Held;
import org.slotbook.core.HoldRequest;
import org.slotbook.core.HoldResult;
import org.slotbook.core.RequestId;
import org.slotbook.core.SlotId;
import org.slotbook.core.StudentId;
import org.slotbook.core.TenantId;
import org.slotbook.core.spi.BookingStore;
import org.slotbook.core.spi.GateHolder;
import org.slotbook.core.spi.GateView;
import org.slotbook.core.spi.LiveSlot;
import org.slotbook.core.spi.SeatReservation;

/**
 * A flash sale through a {@link BookingEngine}: every student asks once for one of the slots (student
 * i for slot i mod n), from many threads, while a fault callback sees the running answer count. The
 * checks read the store back.
 */
final class FlashSale {
    /** What the engine answered. */
    record Result(List<Held> held, int answers, int requests, long slowestNanos) {
        Duration slowest() {
            return Duration.ofNanos(slowestNanos);
        }

        List<Held> heldIn(SlotId slot) {
            return held.stream().filter(h -> h.booking().slotId().equals(slot)).toList();
        }
    }

    private FlashSale() {
    }

    static Result run(BookingEngine engine, TenantId tenant, List<SlotId> slots, int students, int threads,
                      IntConsumer fault) throws Exception {
        ConcurrentLinkedQueue<Held> held = new ConcurrentLinkedQueue<>();
        AtomicInteger next = new AtomicInteger();
        AtomicInteger answers = new AtomicInteger();
        AtomicLong slowest = new AtomicLong();
        CountDownLatch start = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Callable<Void>> work = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                work.add(() -> {
                    start.await();
                    for (int i = next.getAndIncrement(); i < students; i = next.getAndIncrement()) {
                        SlotId slot = slots.get(i % slots.size());
                        long begin = System.nanoTime();
                        HoldResult result = engine.hold(tenant,
                                HoldRequest.of(RequestId.of("r" + i), slot, StudentId.of("student-" + i)));
                        slowest.accumulateAndGet(System.nanoTime() - begin, Math::max);
                        if (result instanceof Held h) {
                            held.add(h);
                        } else {
                            assertThat(result).as("student %d", i).isInstanceOf(Full.class);
                        }
                        fault.accept(answers.incrementAndGet());
                    }
                    return null;
                });
            }
            List<Future<Void>> futures = new ArrayList<>();
            for (Callable<Void> w : work) {
                futures.add(pool.submit(w));
            }
            start.countDown();
            for (Future<Void> f : futures) {
                f.get(120, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        return new Result(List.copyOf(held), answers.get(), students, slowest.get());
    }

    /** Every request answered; per slot no oversell, sold out, and answered Held = live bookings. */
    static void assertInvariants(BookingStore store, TenantId tenant, SlotId slot, int capacity, Result sale,
                                 Instant now) {
        assertThat(sale.answers()).as("every request answered").isEqualTo(sale.requests());
        List<Booking> live = liveBookings(store, tenant, slot, now);
        assertThat(live.size()).as("live bookings of %s (no oversell)", slot).isLessThanOrEqualTo(capacity);
        Set<BookingId> liveIds = new HashSet<>();
        live.forEach(b -> liveIds.add(b.bookingId()));
        List<Held> held = sale.heldIn(slot);
        Set<BookingId> answeredIds = new HashSet<>();
        held.forEach(h -> answeredIds.add(h.booking().bookingId()));
        assertThat(answeredIds).as("answered Held").hasSize(held.size());
        assertThat(liveIds).as("every answered Held is in the ledger, and nothing else").isEqualTo(answeredIds);
        assertThat(live).as("%s sold out", slot).hasSize(capacity);
    }

    /** The gate's live holders are exactly the store's live bookings. */
    static void assertGateMatchesLedger(SeatReservation gate, BookingStore store, TenantId tenant, SlotId slot,
                                        int capacity, Instant now) {
        GateView view = gate.inspect(tenant, slot).orElseThrow();
        assertThat(view.capacity()).isEqualTo(capacity);
        Set<StudentId> inGate = new HashSet<>();
        for (GateHolder h : view.holders()) {
            inGate.add(h.studentId());
        }
        Set<StudentId> inLedger = new HashSet<>();
        liveBookings(store, tenant, slot, now).forEach(b -> inLedger.add(b.studentId()));
        assertThat(inGate).as("gate holders = ledger's live bookings").isEqualTo(inLedger);
        assertThat(view.remaining()).isEqualTo(capacity - inLedger.size());
    }

    static List<Booking> liveBookings(BookingStore store, TenantId tenant, SlotId slot, Instant now) {
        return store.liveSlot(tenant, slot, now).map(LiveSlot::live).orElse(List.of());
    }
}
