package org.slotbook.redis;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.TestInstance;
import org.slotbook.core.spi.BookingStore;
import org.slotbook.core.spi.SeatReservation;
import org.slotbook.core.tck.BookingEngineContract;
import org.slotbook.jdbc.JdbcStore;
import org.slotbook.jdbc.testing.TestDatabases;
import org.slotbook.jdbc.testing.TestDatabases.TestDatabase;
import org.slotbook.redis.support.TestRedis;
import redis.clients.jedis.UnifiedJedis;

/**
 * The engine contract (with its booking rules section) with a database store behind the Redis gate
 * on a standalone server: PostgreSQL and MariaDB.
 */
class JdbcEngineRedisTest {

    @TestInstance(TestInstance.Lifecycle.PER_CLASS)
    abstract static class Feeder extends BookingEngineContract {
        private TestDatabase db;
        private JdbcStore store;
        private UnifiedJedis client;
        private RedisSeatReservation gate;

        abstract TestDatabase openDatabase();

        @BeforeAll
        void open() {
            client = TestRedis.client(TestRedis.standalone());
            db = openDatabase();
            gate = RedisSeatReservation.builder(client).keyPrefix(TestRedis.freshPrefix("engine-" + db.name()))
                    .build();
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
    }

    @Nested
    class Postgres extends Feeder {
        @Override
        TestDatabase openDatabase() {
            return TestDatabases.postgres();
        }
    }

    @Nested
    class MariaDb extends Feeder {
        @Override
        TestDatabase openDatabase() {
            return TestDatabases.mariadb();
        }
    }
}
