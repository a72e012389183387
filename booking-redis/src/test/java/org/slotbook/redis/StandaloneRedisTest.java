package org.slotbook.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.slotbook.core.SlotId;
import org.slotbook.core.TenantId;
import org.slotbook.core.memory.InMemoryStore;
import org.slotbook.core.spi.BookingStore;
import org.slotbook.core.spi.SeatReservation;
import org.slotbook.core.tck.BookingEngineContract;
import org.slotbook.redis.faults.RedisFaultScenarios;
import org.slotbook.redis.faults.RedisOutageScenarios;
import org.slotbook.redis.support.TestRedis;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;

/**
 * The Redis gate on a standalone server: the gate contract, the engine contract with the in-memory
 * store behind the gate, what the gate does beyond the contract, and the faults that need only Redis
 * (each fault class on a redis-server process of its own, over the in-memory store).
 */
class StandaloneRedisTest {
    private static UnifiedJedis client;

    @BeforeAll
    static void connect() {
        client = TestRedis.client(TestRedis.standalone());
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
            client.scriptFlush();
        }
    }

    /** What an operator scans for: a gate's key pattern finds its keys, and only its keys, whatever its prefix. */
    @Nested
    class KeyPattern {
        @Test
        void theKeyPatternEscapesTheGlobCharactersOfThePrefix() {
            assertThat(RedisSeatReservation.create(client).keyPattern()).isEqualTo("slotbook:*");
            assertThat(RedisSeatReservation.builder(client).keyPrefix("a*b?[c]\\:").build().keyPattern())
                    .isEqualTo("a\\*b\\?\\[c\\]\\\\:*");
        }

        @Test
        void scanningWithTheKeyPatternFindsEveryKeyTheGateListsAndNoOther() {
            String base = TestRedis.freshPrefix("KeyPattern");
            RedisSeatReservation gate = RedisSeatReservation.builder(client).keyPrefix(base + "a*b?[c]\\:").build();
            TenantId tenant = TenantId.of("campus:north");
            Instant keep = Instant.now().plus(Duration.ofMinutes(10));
            List<String> listed = new ArrayList<>();
            for (String slot : List.of("yoga", "pilates{7}")) {
                gate.initialize(tenant, SlotId.of(slot), 3, keep);
                listed.addAll(gate.keys(tenant, SlotId.of(slot)));
            }
            // matched by the prefix read as a glob, not by the escaped pattern
            String lookalike = base + "aXbYc:lookalike";
            client.set(lookalike, "x");
            try {
                assertThat(scan(gate.keyPattern())).containsExactlyInAnyOrderElementsOf(listed);
                assertThat(scan(base + "a*b?[c]\\:*")).contains(lookalike);
            } finally {
                client.del(lookalike);
                listed.forEach(client::del);
            }
        }

        private Set<String> scan(String pattern) {
            Set<String> keys = new HashSet<>();
            ScanParams params = new ScanParams().match(pattern).count(1000);
            String cursor = ScanParams.SCAN_POINTER_START;
            do {
                ScanResult<String> page = client.scan(cursor, params);
                keys.addAll(page.getResult());
                cursor = page.getCursor();
            } while (!cursor.equals(ScanParams.SCAN_POINTER_START));
            return keys;
        }
    }

    /** Flash sales over the in-memory store while its Redis is killed, flushed or down. */
    @Nested
    class Outages extends RedisOutageScenarios {
        @Override
        protected BookingStore openStore() {
            return InMemoryStore.create();
        }
    }

    /** Scenarios 1 to 3 and 8 over the in-memory store. */
    @Nested
    class Faults extends RedisFaultScenarios {
        @Override
        protected BookingStore openStore() {
            return InMemoryStore.create();
        }
    }
}
