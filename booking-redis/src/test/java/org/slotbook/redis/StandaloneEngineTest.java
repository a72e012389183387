package org.slotbook.redis;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.slotbook.core.memory.InMemoryStore;
import org.slotbook.core.spi.BookingStore;
import org.slotbook.core.spi.SeatReservation;
import org.slotbook.core.tck.BookingEngineContract;
import org.slotbook.redis.support.TestRedis;
import redis.clients.jedis.UnifiedJedis;

/** The engine contract with the in-memory store behind the Redis gate on a standalone server. */
class StandaloneEngineTest extends BookingEngineContract {
    private static final InMemoryStore STORE = InMemoryStore.create();
    private static UnifiedJedis client;
    private static RedisSeatReservation gate;

    @BeforeAll
    static void connect() {
        client = TestRedis.client(TestRedis.standalone());
        gate = RedisSeatReservation.builder(client).keyPrefix(TestRedis.freshPrefix("engine")).build();
    }

    @AfterAll
    static void disconnect() {
        if (client != null) {
            client.close();
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
