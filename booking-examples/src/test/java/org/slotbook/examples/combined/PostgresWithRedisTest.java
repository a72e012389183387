package org.slotbook.examples.combined;

import org.junit.jupiter.api.Nested;
import org.slotbook.core.spi.BookingStore;
import org.slotbook.core.tck.faults.Invariants;
import org.slotbook.jdbc.testing.TestDatabases;
import org.slotbook.jdbc.testing.TestDatabases.TestDatabase;
import org.slotbook.redis.faults.RedisFaultScenarios;

/**
 * PostgreSQL behind the Redis gate: the engine contract, the Redis faults with PostgreSQL as the
 * ledger, the faults in clients and clock, retries and lost acknowledgements, and the engine's
 * connections killed mid-transaction ({@code pg_terminate_backend}).
 */
class PostgresWithRedisTest {

    @Nested
    class EngineContract extends RedisEngineContract {
        @Override
        TestDatabase openDatabase() {
            return TestDatabases.postgres();
        }
    }

    /** Scenarios 1 to 3 and 8 over PostgreSQL. */
    @Nested
    class RedisFaults extends RedisFaultScenarios {
        private TestDatabase db;

        @Override
        protected BookingStore openStore() {
            db = TestDatabases.postgres();
            return db.store();
        }

        @Override
        protected void closeStore() {
            if (db != null) {
                db.close();
            }
        }

        @Override
        protected Invariants invariants() {
            return new SqlInvariants(db, store, gate, tenant);
        }

        @Override
        protected String storeName() {
            return db.name();
        }
    }

    /** Scenarios 4, 5 and 7 on PostgreSQL. */
    @Nested
    class LedgerFaults extends LedgerFaultScenarios {
        @Override
        TestDatabase openDatabase() {
            return TestDatabases.postgres();
        }
    }

    /** Scenarios 9 to 14 on PostgreSQL. */
    @Nested
    class RetryFaults extends RetryFaultScenarios {
        @Override
        TestDatabase openDatabase() {
            return TestDatabases.postgres();
        }
    }

    /** Scenario 6 on PostgreSQL: {@code pg_terminate_backend} of the engine's connections. */
    @Nested
    class ConnectionKill extends ConnectionKillScenario {
        @Override
        TestDatabase openDatabase() {
            return TestDatabases.postgres();
        }
    }
}
