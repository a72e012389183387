package org.slotbook.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.slotbook.core.BookingEngine;
import org.slotbook.core.CoachId;
import org.slotbook.core.HoldPolicy;
import org.slotbook.core.RoomId;
import org.slotbook.core.Scheduled;
import org.slotbook.core.SlotId;
import org.slotbook.core.SlotSpec;
import org.slotbook.core.TenantId;
import org.slotbook.core.TimeRange;
import org.slotbook.core.memory.InMemoryStore;
import org.slotbook.core.tck.MutableClock;
import org.slotbook.redis.internal.SlotKeys;
import org.slotbook.redis.support.TestCluster;
import org.slotbook.redis.support.TestRedis;
import redis.clients.jedis.UnifiedJedis;

/** One master of a three-master cluster dies in the middle of a sale over slots spread on all three. */
class ClusterRedisFaultTest {
    private static final HoldPolicy POLICY = HoldPolicy.ofDefaults();
    private static final int CAPACITY = 20;

    @Test
    void aMasterKilledMidSaleOnlyItsSlotsGoToTheDatabaseAlone() throws Exception {
        try (TestCluster cluster = TestCluster.start();
             UnifiedJedis client = cluster.client(2, Duration.ofMillis(500))) {
            String prefix = TestRedis.freshPrefix("cluster-fault");
            RedisSeatReservation gate = RedisSeatReservation.builder(client).keyPrefix(prefix).build();
            InMemoryStore store = InMemoryStore.create();
            MutableClock clock = new MutableClock();
            BookingEngine engine = BookingEngine.builder().store(store)
                    .reservation(gate).holdPolicy(POLICY).clock(clock).build();
            TenantId tenant = TenantId.of("t-" + UUID.randomUUID());

            // one slot on each master
            List<SlotId> slots = new ArrayList<>();
            Set<Integer> masters = new HashSet<>();
            for (int i = 0; slots.size() < TestCluster.MASTERS; i++) {
                SlotId slot = SlotId.of("class-" + i);
                if (masters.add(cluster.masterOf(SlotKeys.keys(prefix, tenant, slot).get(0)))) {
                    slots.add(slot);
                }
            }
            Instant start = clock.instant().truncatedTo(ChronoUnit.HOURS).plus(Duration.ofDays(1));
            for (SlotId slot : slots) {
                assertThat(engine.schedule(tenant, new SlotSpec(slot, CoachId.of("coach-" + slot),
                        RoomId.of("room-" + slot), TimeRange.of(start, Duration.ofHours(1)), CAPACITY)))
                        .isInstanceOf(Scheduled.class);
            }
            int victim = cluster.masterOf(SlotKeys.keys(prefix, tenant, slots.get(0)).get(0));

            int students = 1_500;
            // Answers past a third wait until the kill has landed, so the next holds find the master dead
            // however fast the sale runs (a warmed-up JVM answers the rest before a kill completes); it comes
            // back once two thirds are answered and some hold has found it dead.
            CountDownLatch killed = new CountDownLatch(1);
            AtomicBoolean restarted = new AtomicBoolean();
            FlashSale.Result sale = FlashSale.run(engine, tenant, slots, students, 24, answered -> {
                if (answered == students / 3) {
                    cluster.node(victim).kill();
                    killed.countDown();
                } else if (answered > students / 3) {
                    awaitQuietly(killed);
                    if (answered >= 2 * students / 3 && gate.unavailableCount() > 0
                            && restarted.compareAndSet(false, true)) {
                        restart(cluster, victim);
                    }
                }
            });
            if (restarted.compareAndSet(false, true)) {
                restart(cluster, victim);
            }

            for (SlotId slot : slots) {
                FlashSale.assertInvariants(store, tenant, slot, CAPACITY, sale, clock.instant());
            }
            System.out.printf("cluster master killed mid-sale: %d students, %d held, %d holds without the gate, "
                    + "slowest answer %d ms%n", students, sale.held().size(), gate.unavailableCount(),
                    sale.slowest().toMillis());
            assertThat(gate.unavailableCount()).as("holds that found the master dead").isPositive();
            assertThat(sale.slowest()).as("slowest answer").isLessThan(Duration.ofSeconds(10));

            clock.advance(POLICY.inFlightGrace().plusSeconds(1));
            assertThat(engine.reconcileAll(tenant).slotsUnreachable()).isZero();
            for (SlotId slot : slots) {
                FlashSale.assertGateMatchesLedger(gate, store, tenant, slot, CAPACITY, clock.instant());
            }
        }
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while the master was being killed", e);
        }
    }

    private static void restart(TestCluster cluster, int master) {
        cluster.node(master).start();
        cluster.awaitOk();
    }
}
