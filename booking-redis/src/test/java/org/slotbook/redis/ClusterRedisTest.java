package org.slotbook.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.slotbook.core.RequestId;
import org.slotbook.core.SlotId;
import org.slotbook.core.StudentId;
import org.slotbook.core.memory.InMemoryStore;
import org.slotbook.core.spi.BookingStore;
import org.slotbook.core.spi.GateDecision;
import org.slotbook.core.spi.GateView;
import org.slotbook.core.spi.SeatReservation;
import org.slotbook.core.tck.BookingEngineContract;
import org.slotbook.core.tck.faults.FaultSuite;
import org.slotbook.core.tck.faults.FlashSale;
import org.slotbook.core.tck.faults.ServerProcess;
import org.slotbook.core.tck.faults.Violations;
import org.slotbook.redis.internal.SlotKeys;
import org.slotbook.redis.support.TestCluster;
import org.slotbook.redis.support.TestRedis;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisCluster;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.providers.ClusterConnectionProvider;
import redis.clients.jedis.util.JedisClusterCRC16;

/**
 * The Redis gate on a real three-master cluster, through this build's cluster client
 * ({@code RedisClusterClient}; {@code JedisCluster} on Jedis 6.x and 7.0): the gate contract, the
 * engine contract with the in-memory store behind the gate, what the gate does beyond the contract,
 * and a master killed in the middle of a sale (on a cluster of its own).
 */
class ClusterRedisTest {
    private static TestCluster cluster;
    private static UnifiedJedis client;

    @BeforeAll
    static void connect() {
        cluster = TestCluster.shared();
        client = cluster.client();
    }

    @AfterAll
    static void disconnect() {
        if (client != null) {
            client.close();
        }
    }

    private static RedisSeatReservation gate(String name) {
        return RedisSeatReservation.builder(client).keyPrefix(TestRedis.freshPrefix(name)).build();
    }

    /** The gate contract; its tests run side by side, and this class ends only when they all have. */
    @Nested
    class GateContract {
        @Nested
        class SideBySide extends RedisGateContract {
            SideBySide() {
                super(client);
            }
        }
    }

    @Nested
    class EngineContract extends BookingEngineContract {
        private final InMemoryStore store = InMemoryStore.create();
        private final RedisSeatReservation gate = gate("engine");

        @Override
        protected BookingStore store() {
            return store;
        }

        @Override
        protected SeatReservation reservation() {
            return gate;
        }

        @Override
        protected boolean gateKeepsTheTestClock() {
            return false;
        }

        @Override
        public Object gateState(SlotId slot) {
            return TestRedis.slotState(client, gate, testTenant(), slot);
        }

        /**
         * The in-memory store's outbox relays 10,000 events in InMemoryTest; here each delivered batch also
         * reaches the Redis gate.
         */
        @Override
        public int relayedEvents() {
            return 2_000;
        }
    }

    @Nested
    class Gate extends RedisGateTests {
        @Override
        protected UnifiedJedis jedis() {
            return client;
        }

        @Override
        protected void flushScripts() {
            for (int i = 0; i < TestCluster.MASTERS; i++) {
                try (Jedis node = cluster.connect(i)) {
                    node.scriptFlush();
                }
            }
        }

        @Test
        @SuppressWarnings("deprecation") // JedisCluster is deprecated in Jedis 8 (RedisClusterClient), not in 6.x and 7.x
        void theLegacyJedisClusterClientWorksToo() {
            try (JedisCluster legacy = new JedisCluster(cluster.seeds(), TestRedis.clientConfig(), 2,
                    Duration.ofMillis(500))) {
                RedisSeatReservation viaLegacy = RedisSeatReservation.builder(legacy).keyPrefix(prefix).build();
                SlotId slot = SlotId.of("legacy");
                viaLegacy.initialize(tenant, slot, 1, keep());
                assertThat(viaLegacy.tryHold(tenant, slot, StudentId.of("a"), RequestId.of("r1"),
                        Duration.ofMinutes(5))).isEqualTo(GateDecision.HELD);
                // the same keys, seen through the other client
                assertThat(gate.tryHold(tenant, slot, StudentId.of("a"), RequestId.of("r2"),
                        Duration.ofMinutes(5))).isEqualTo(GateDecision.duplicate(RequestId.of("r1")));
            }
        }

        /**
         * A plain UnifiedJedis over a cluster provider routes single calls by key, but its
         * {@code pipelined()} is one node's connection: holds pipelined to the wrong node are
         * redirected, sent again on their own, and the gate sends single calls from then on. Every
         * hold gets its answer; read back from the cluster, each slot keeps the students answered HELD.
         */
        @Test
        void aUnifiedJedisOverAClusterProviderAnswersEveryConcurrentHold() throws Exception {
            int slots = 12;
            int threads = 24;
            try (UnifiedJedis plain = new UnifiedJedis(new ClusterConnectionProvider(cluster.seeds(),
                    TestRedis.clientConfig()), 2, Duration.ofMillis(500))) {
                RedisSeatReservation viaPlain = RedisSeatReservation.builder(plain).keyPrefix(prefix).build();
                Set<Integer> masters = new HashSet<>();
                for (int s = 0; s < slots; s++) {
                    SlotId slot = SlotId.of("plain-" + s);
                    viaPlain.initialize(tenant, slot, threads, keep());
                    masters.add(cluster.masterOf(SlotKeys.keys(prefix, tenant, slot).get(0)));
                }
                assertThat(masters).hasSize(TestCluster.MASTERS);
                ExecutorService pool = Executors.newFixedThreadPool(threads);
                CountDownLatch start = new CountDownLatch(1);
                List<Future<List<GateDecision>>> answers = new ArrayList<>();
                try {
                    for (int t = 0; t < threads; t++) {
                        int thread = t;
                        answers.add(pool.submit(() -> {
                            start.await();
                            List<GateDecision> mine = new ArrayList<>();
                            for (int s = 0; s < slots; s++) {
                                mine.add(viaPlain.tryHold(tenant, SlotId.of("plain-" + s),
                                        StudentId.of("st-" + thread), RequestId.random(), Duration.ofMinutes(5)));
                            }
                            return mine;
                        }));
                    }
                    start.countDown();
                    for (Future<List<GateDecision>> answer : answers) {
                        assertThat(answer.get(60, TimeUnit.SECONDS)).containsOnly(GateDecision.HELD);
                    }
                } finally {
                    pool.shutdownNow();
                }
                assertThat(viaPlain.unavailableCount()).isZero();
                for (int s = 0; s < slots; s++) {
                    SlotId slot = SlotId.of("plain-" + s);
                    GateView view = gate.inspect(tenant, slot).orElseThrow();
                    assertThat(view.holders()).hasSize(threads);
                    RedisGateTests.assertStoredHolders(client, gate, tenant, slot, view);
                }
            }
        }

        @Test
        void slotsSpreadOverAllMastersAndEachSlotLivesOnItsOwner() {
            Map<Integer, Integer> perMaster = new HashMap<>();
            for (int i = 0; i < 24; i++) {
                SlotId slot = SlotId.of("spread-" + i);
                List<String> keys = SlotKeys.keys(prefix, tenant, slot);
                int master = cluster.masterOf(keys.get(0));
                perMaster.merge(master, 1, Integer::sum);
                gate.initialize(tenant, slot, 2, keep());
                assertThat(gate.tryHold(tenant, slot, StudentId.of("a"), RequestId.random(),
                        Duration.ofMinutes(5))).isEqualTo(GateDecision.HELD);
                try (Jedis owner = cluster.connect(master)) {
                    for (String key : keys) {
                        assertThat(owner.clusterKeySlot(key)).isEqualTo(JedisClusterCRC16.getSlot(keys.get(0)));
                        assertThat(owner.exists(key)).as("%s on its owner, master %d", key, master).isTrue();
                    }
                }
            }
            assertThat(perMaster.keySet()).as("masters that own the test's slots").hasSize(TestCluster.MASTERS);
        }
    }

    /**
     * One master of a three-master cluster dies in the middle of a sale over slots spread on all
     * three: only its slots go to the store alone, and once it is back and reconciled the gate holds
     * exactly the store's live bookings. The cluster is this class's own, since it breaks it.
     */
    @Nested
    class Faults extends FaultSuite<RedisSeatReservation> {
        private static final int CAPACITY = 20;

        private TestCluster own;
        private UnifiedJedis ownClient;

        @BeforeAll
        void startOwnCluster() {
            own = TestCluster.start();
            ownClient = own.client(2, Duration.ofMillis(500));
        }

        @AfterAll
        void stopOwnCluster() {
            if (ownClient != null) {
                ownClient.close();
            }
            if (own != null) {
                own.close();
            }
        }

        @Override
        protected BookingStore openStore() {
            return InMemoryStore.create();
        }

        @Override
        protected RedisSeatReservation newGate() {
            return RedisSeatReservation.builder(ownClient).keyPrefix(TestRedis.freshPrefix("cluster-fault")).build();
        }

        @Override
        protected List<ServerProcess> servers() {
            List<ServerProcess> masters = new ArrayList<>();
            for (int i = 0; i < TestCluster.MASTERS; i++) {
                masters.add(own.master(i));
            }
            return masters;
        }

        @Test
        void aMasterKilledMidSaleOnlyItsSlotsGoToTheDatabaseAlone() {
            // one slot on each master
            List<SlotId> slots = new ArrayList<>();
            Set<Integer> masters = new HashSet<>();
            for (int i = 0; slots.size() < TestCluster.MASTERS; i++) {
                SlotId slot = SlotId.of("class-" + i);
                if (masters.add(own.masterOf(SlotKeys.keys(gate.keyPrefix(), tenant, slot).get(0)))) {
                    slots.add(schedule(slot.value(), CAPACITY));
                }
            }
            ServerProcess victim = own.master(own.masterOf(SlotKeys.keys(gate.keyPrefix(), tenant, slots.get(0))
                    .get(0)));

            int students = 1_500;
            // Answers past a third wait until the kill has landed, so the next holds find the master dead
            // however fast the sale runs (a warmed-up JVM answers the rest before a kill completes); it comes
            // back once two thirds are answered and some hold has found it dead.
            CountDownLatch killed = new CountDownLatch(1);
            AtomicBoolean restarted = new AtomicBoolean();
            FlashSale.Result sale = FlashSale.run(engine, tenant, slots, students, 24, answered -> {
                if (answered == students / 3) {
                    victim.kill();
                    killed.countDown();
                } else if (answered > students / 3) {
                    killed.await();
                    if (answered >= 2 * students / 3 && gate.unavailableCount() > 0
                            && restarted.compareAndSet(false, true)) {
                        victim.start();
                    }
                }
            });
            if (restarted.compareAndSet(false, true)) {
                victim.start();
            }

            Violations v = new Violations();
            for (SlotId slot : slots) {
                invariants().checkSale(slot, CAPACITY, sale, clock.instant(), v);
            }
            System.out.printf("cluster master killed mid-sale: %d students, %d held, %d holds without the gate, "
                    + "slowest answer %d ms%n", students, sale.held().size(), gate.unavailableCount(),
                    sale.slowest().toMillis());
            v.check(gate.unavailableCount() > 0, "no hold found the master dead");
            v.check(sale.slowest().compareTo(Duration.ofSeconds(10)) < 0, "slowest answer %d ms",
                    sale.slowest().toMillis());

            clock.advance(POLICY.inFlightGrace().plusSeconds(1));
            int unreachable = engine.reconcileAll(tenant).slotsUnreachable();
            v.check(unreachable == 0, "%d slots unreachable after the master came back", unreachable);
            for (SlotId slot : slots) {
                invariants().checkGate(slot, CAPACITY, clock.instant(), v);
            }
            report("cluster-master-killed-mid-sale", v);
        }
    }
}
