package org.slotbook.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.slotbook.core.BookingEngine;
import org.slotbook.core.BookingStoreException;
import org.slotbook.core.CoachId;
import org.slotbook.core.Full;
import org.slotbook.core.Held;
import org.slotbook.core.HoldRequest;
import org.slotbook.core.HoldResult;
import org.slotbook.core.RequestId;
import org.slotbook.core.RoomId;
import org.slotbook.core.SlotId;
import org.slotbook.core.SlotSpec;
import org.slotbook.core.StudentId;
import org.slotbook.core.TenantFencedException;
import org.slotbook.core.TenantId;
import org.slotbook.core.TimeRange;
import org.slotbook.core.shard.ShardMapping;
import org.slotbook.core.shard.TenantRoutedStore;
import org.slotbook.core.tck.Fixtures;
import org.slotbook.jdbc.testing.TestDatabases.TestDatabase;

/**
 * The fence of a router's move ({@link TenantMove}), over two shards (two databases of the dialect): a
 * tenant moved while a node whose mapping is never switched keeps calling the old shard loses no
 * {@code Held} answer, and its calls there are refused with a retryable {@link TenantFencedException}.
 * Checked by SQL on both shards afterwards. Each test moves tenants of its own, so the two databases serve
 * the whole class.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class TenantFenceTests {
    private static final int SLOTS = 3;
    private static final int SEATS = 400;

    private TestDatabase a;
    private TestDatabase b;
    private final Instant start = Instant.now().truncatedTo(ChronoUnit.HOURS).plus(Duration.ofDays(2));

    protected abstract TestDatabase openDatabase();

    @BeforeAll
    void twoShards() {
        a = openDatabase();
        b = openDatabase();
    }

    @AfterAll
    void close() {
        if (a != null) {
            a.close();
        }
        if (b != null) {
            b.close();
        }
    }

    private BookingEngine node(Map<TenantId, String> mapping) {
        TenantRoutedStore routed = TenantRoutedStore.builder()
                .shard("a", a.store())
                .shard("b", b.store())
                .mapping(ShardMapping.table(mapping, t -> "a"))
                .build();
        return BookingEngine.builder().store(routed).build();
    }

    private void schedule(BookingEngine engine, TenantId tenant, SlotId slot, int seats, int hour) {
        engine.schedule(tenant, new SlotSpec(slot, CoachId.of("coach-" + slot.value()), RoomId.of("room-" + slot.value()),
                TimeRange.of(start.plus(Duration.ofHours(hour)), Duration.ofMinutes(50)), seats));
    }

    @Test
    void aStaleNodeKeepsSellingOnTheOldShardDuringAMoveAndNoHeldAnswerIsLost() throws Exception {
        TenantId tenant = Fixtures.tenant();
        Map<TenantId, String> fresh = new ConcurrentHashMap<>(Map.of(tenant, "a"));
        Map<TenantId, String> stale = Map.of(tenant, "a");
        BookingEngine freshNode = node(fresh);
        BookingEngine staleNode = node(stale);
        List<SlotId> slots = new ArrayList<>();
        for (int s = 0; s < SLOTS; s++) {
            slots.add(SlotId.of("s" + s));
            schedule(freshNode, tenant, slots.get(s), SEATS, 2 * s);
        }

        AtomicBoolean stop = new AtomicBoolean();
        Set<String> held = ConcurrentHashMap.newKeySet();
        AtomicInteger staleHeld = new AtomicInteger();
        AtomicInteger staleRefused = new AtomicInteger();
        AtomicInteger freshRefused = new AtomicInteger();
        ConcurrentLinkedQueue<Throwable> unexpected = new ConcurrentLinkedQueue<>();
        AtomicInteger students = new AtomicInteger();
        List<TenantMove.Fence> fences = new ArrayList<>();
        ExecutorService pool = Executors.newFixedThreadPool(6);
        List<Future<?>> workers = new ArrayList<>();
        for (int w = 0; w < 6; w++) {
            boolean isStale = w % 2 == 0;
            BookingEngine engine = isStale ? staleNode : freshNode;
            workers.add(pool.submit(() -> {
                while (!stop.get()) {
                    int n = students.incrementAndGet();
                    SlotId slot = slots.get(n % SLOTS);
                    try {
                        HoldResult r = engine.hold(tenant, HoldRequest.of(RequestId.random(), slot,
                                StudentId.of("st-" + n)));
                        if (r instanceof Held h) {
                            held.add(h.booking().bookingId().value());
                            if (isStale) {
                                staleHeld.incrementAndGet();
                            }
                        } else if (!(r instanceof Full)) {
                            unexpected.add(new AssertionError("answer " + r));
                        }
                    } catch (TenantFencedException refused) {
                        if (!refused.retryable() || refused.outcomeUnknown()) {
                            unexpected.add(refused);
                        }
                        (isStale ? staleRefused : freshRefused).incrementAndGet();
                    } catch (RuntimeException e) {
                        unexpected.add(e);
                    }
                    try {
                        Thread.sleep(1);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        return;
                    }
                }
            }));
        }
        try {
            awaitHeld(held, 30);
            TenantMove move = TenantMove.builder(a.dataSource(), b.dataSource())
                    .sourcePrefix(a.prefix()).targetPrefix(b.prefix()).build();
            Map<String, Integer> copied = move.copy(tenant);
            assertThat(copied.get("booking")).isPositive();
            fresh.put(tenant, "b");
            int before = held.size();
            awaitHeld(held, before + 30);
            assertThat(move.deleteFromSource(tenant)).isPositive();
            // the stale node keeps calling the old shard for a while after the delete
            long until = System.nanoTime() + Duration.ofMillis(200).toNanos();
            long latest = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while ((staleRefused.get() == 0 || System.nanoTime() < until) && System.nanoTime() < latest) {
                Thread.sleep(10);
            }
            fences.add(move.fence(false, tenant));
            fences.add(move.fence(true, tenant));
        } finally {
            stop.set(true);
            for (Future<?> f : workers) {
                f.get(60, TimeUnit.SECONDS);
            }
            pool.shutdownNow();
        }
        // every Held answer has its booking row on the target, live; nothing of the tenant is left on the source
        Set<String> onTarget = new HashSet<>(strings(b, "SELECT booking_id FROM " + b.table("booking")
                + " WHERE tenant_id = ? AND status = 'HELD'", tenant.value()));
        Set<String> lost = new HashSet<>(held);
        lost.removeAll(onTarget);
        assertThat(lost.size()).as("Held answers without a booking row on the target").isZero();
        assertThat(unexpected).as("no failure but the fence's refusal").isEmpty();
        assertThat(staleHeld.get()).as("the stale node sold before the fence").isPositive();
        assertThat(staleRefused.get()).as("the stale node's calls on the old shard after the fence").isPositive();
        assertThat(onTarget).as("no booking row without a Held answer").hasSize(held.size());
        assertThat(fences).as("the source's fence, then the target's")
                .containsExactly(new TenantMove.Fence("MOVED", 1), new TenantMove.Fence("OWNED", 1));
        assertThat(a.count("SELECT COUNT(*) FROM " + a.table("booking") + " WHERE tenant_id = ?", tenant.value()))
                .isZero();
        // not oversold: per slot at most its seats live, each live booking on a seat of its own that names it
        for (SlotId slot : slots) {
            int live = b.count("SELECT COUNT(*) FROM " + b.table("booking")
                    + " WHERE tenant_id = ? AND slot_id = ? AND status IN ('HELD', 'CONFIRMED')", tenant.value(),
                    slot.value());
            assertThat(live).isLessThanOrEqualTo(SEATS);
            assertThat(b.count("SELECT COUNT(*) FROM " + b.table("booking") + " k JOIN " + b.table("slot_seat")
                    + " e ON e.tenant_id = k.tenant_id AND e.slot_id = k.slot_id AND e.seq = k.seat"
                    + " AND e.booking_id = k.booking_id WHERE k.tenant_id = ? AND k.slot_id = ?"
                    + " AND k.status IN ('HELD', 'CONFIRMED')", tenant.value(), slot.value()))
                    .as("live bookings of %s on their own seats", slot).isEqualTo(live);
        }
    }

    @Test
    void everyDecisionOfAMovedTenantIsRefusedOnTheOldShardAndOtherTenantsAreServed() {
        TenantId moved = Fixtures.tenant();
        TenantId stays = Fixtures.tenant();
        BookingEngine staleNode = node(Map.of());
        SlotId slot = SlotId.of("yoga");
        schedule(staleNode, moved, slot, 5, 0);
        schedule(staleNode, stays, slot, 5, 0);
        Held before = (Held) staleNode.hold(moved, HoldRequest.of(RequestId.random(), slot, StudentId.of("x")));

        TenantMove.builder(a.dataSource(), b.dataSource()).sourcePrefix(a.prefix()).targetPrefix(b.prefix()).build()
                .copy(moved);

        int rowsBefore = a.count("SELECT COUNT(*) FROM " + a.table("booking") + " WHERE tenant_id = ?", moved.value());
        assertRefused(() -> staleNode.hold(moved, HoldRequest.of(RequestId.random(), slot, StudentId.of("y"))));
        assertRefused(() -> staleNode.confirm(moved, before.booking().bookingId(), before.booking().studentId()));
        assertRefused(() -> staleNode.cancel(moved, before.booking().bookingId(), before.booking().studentId()));
        assertRefused(() -> schedule(staleNode, moved, SlotId.of("new"), 3, 4));
        assertRefused(() -> staleNode.cancelSlot(moved, slot));
        assertThat(a.count("SELECT COUNT(*) FROM " + a.table("booking") + " WHERE tenant_id = ?", moved.value()))
                .as("nothing written on the old shard").isEqualTo(rowsBefore);
        assertThat(a.count("SELECT COUNT(*) FROM " + a.table("slot") + " WHERE tenant_id = ?", moved.value()))
                .isEqualTo(1);
        assertThat(staleNode.hold(stays, HoldRequest.of(RequestId.random(), slot, StudentId.of("z"))))
                .as("another tenant of the old shard").isInstanceOf(Held.class);
        // the new shard serves the tenant, its hold taken before the move included
        BookingEngine freshNode = node(Map.of(moved, "b"));
        assertThat(freshNode.confirm(moved, before.booking().bookingId(), before.booking().studentId()))
                .isInstanceOf(org.slotbook.core.Confirmed.class);
        assertThatThrownBy(() -> TenantMove.builder(a.dataSource(), b.dataSource()).sourcePrefix(a.prefix())
                .targetPrefix(b.prefix()).build().copy(moved)).isInstanceOf(IllegalStateException.class);
    }

    private static void assertRefused(Runnable call) {
        assertThatThrownBy(call::run).isInstanceOfSatisfying(TenantFencedException.class, e -> {
            assertThat(e.retryable()).isTrue();
            assertThat(e.outcomeUnknown()).isFalse();
        }).isInstanceOf(BookingStoreException.class);
    }

    private static void awaitHeld(Set<String> held, int atLeast) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (held.size() < atLeast) {
            assertThat(System.nanoTime()).as("%s holds within a minute", atLeast).isLessThan(deadline);
            Thread.sleep(5);
        }
    }

    private static List<String> strings(TestDatabase db, String query, Object... args) throws SQLException {
        try (Connection c = db.dataSource().getConnection(); PreparedStatement ps = c.prepareStatement(query)) {
            for (int i = 0; i < args.length; i++) {
                ps.setObject(i + 1, args[i]);
            }
            List<String> out = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(rs.getString(1));
                }
            }
            return out;
        }
    }
}
