package org.slotbook.examples.combined;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.slotbook.core.SlotId;
import org.slotbook.core.spi.BookingStore;
import org.slotbook.core.spi.SeatReservation;
import org.slotbook.core.tck.BookingEngineContract;
import org.slotbook.jdbc.JdbcStore;
import org.slotbook.jdbc.testing.TestDatabases.TestDatabase;
import org.slotbook.redis.RedisSeatReservation;
import org.slotbook.redis.support.TestRedis;
import redis.clients.jedis.UnifiedJedis;

/**
 * The engine contract (with its booking rules and lessons sections) with a database store behind
 * the Redis gate on the standalone test server.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class RedisEngineContract extends BookingEngineContract {
    private TestDatabase db;
    private JdbcStore store;
    private UnifiedJedis client;
    private RedisSeatReservation gate;

    /** Opens the database of this suite (a {@code TestDatabases} factory). */
    abstract TestDatabase openDatabase();

    @BeforeAll
    void open() {
        client = TestRedis.client(TestRedis.standalone());
        db = openDatabase();
        gate = RedisSeatReservation.builder(client).keyPrefix(TestRedis.freshPrefix("engine-" + db.name())).build();
        store = db.store();
    }

    @AfterAll
    void close() {
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

    @Override
    public Object gateState(SlotId slot) {
        return TestRedis.slotState(client, gate, testTenant(), slot);
    }

    /**
     * The stores' own runs (H2Test, PostgresTest, MariaDbTest) relay their events without a gate, PostgreSQL's
     * 10,000; here each delivered batch also reaches the Redis gate, which 2,000 events (20 batches of 100) go
     * through as well.
     */
    @Override
    public int relayedEvents() {
        return 2_000;
    }
}
