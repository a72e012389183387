package org.slotbook.redis;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.slotbook.core.memory.InMemoryStore;
import org.slotbook.core.spi.BookingStore;
import org.slotbook.core.spi.SeatReservation;
import org.slotbook.core.tck.BookingEngineContract;
import org.slotbook.redis.support.TestCluster;
import org.slotbook.redis.support.TestRedis;
import redis.clients.jedis.UnifiedJedis;

/** The engine contract with the in-memory store behind the Redis gate on a three-master cluster. */
class ClusterEngineTest extends BookingEngineContract {
    private static final InMemoryStore STORE = InMemoryStore.create();
    private static TestCluster cluster;
    private static UnifiedJedis client;
    private static RedisSeatReservation gate;

    @BeforeAll
    static void startCluster() {
        cluster = TestCluster.start();
        client = cluster.client();
        gate = RedisSeatReservation.builder(client).keyPrefix(TestRedis.freshPrefix("engine")).build();
    }

    @AfterAll
    static void stopCluster() {
        if (client != null) {
            client.close();
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    @Override
    protected BookingStore store() {
        return STORE;
    }

    @Override
    protected SeatReservation reservation() {
        return gate;
    }

    @Override
    protected boolean gateKeepsTheTestClock() {
        return false;
    }
}
