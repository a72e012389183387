package org.slotbook.redis;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.slotbook.core.spi.BookingStore;
import org.slotbook.core.spi.SeatReservation;
import org.slotbook.core.tck.BookingEngineContract;
import org.slotbook.jdbc.JdbcStore;
import org.slotbook.jdbc.testing.TestDatabases;
import org.slotbook.jdbc.testing.TestDatabases.TestDatabase;
import org.slotbook.redis.support.TestRedis;
import redis.clients.jedis.UnifiedJedis;

/** The engine contract with the H2 store behind the Redis gate on a standalone server. */
class H2EngineRedisTest extends BookingEngineContract {
    private static TestDatabase db;
    private static JdbcStore store;
    private static UnifiedJedis client;
    private static RedisSeatReservation gate;

    @BeforeAll
    static void open() {
        client = TestRedis.client(TestRedis.standalone());
        gate = RedisSeatReservation.builder(client).keyPrefix(TestRedis.freshPrefix("engine-h2")).build();
        db = TestDatabases.h2();
        store = db.store();
    }

    @AfterAll
    static void close() {
        if (db != null) {
            db.close();
        }
        if (client != null) {
            client.close();
        }
    }

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
}
