package org.slotbook.examples.combined;

import org.junit.jupiter.api.Nested;
import org.slotbook.jdbc.testing.TestDatabases;
import org.slotbook.jdbc.testing.TestDatabases.TestDatabase;

/**
 * MariaDB behind the Redis gate: the engine contract, the faults in clients and clock, retries and
 * lost acknowledgements, and the engine's connections killed mid-transaction ({@code KILL CONNECTION}).
 */
class MariaDbWithRedisTest {

    @Nested
    class EngineContract extends RedisEngineContract {
        @Override
        TestDatabase openDatabase() {
            return TestDatabases.mariadb();
        }
    }

    /** Scenarios 4, 5 and 7 on MariaDB. */
    @Nested
    class LedgerFaults extends LedgerFaultScenarios {
        @Override
        TestDatabase openDatabase() {
            return TestDatabases.mariadb();
        }
    }

    /** Scenarios 9 to 14 on MariaDB. */
    @Nested
    class RetryFaults extends RetryFaultScenarios {
        @Override
        TestDatabase openDatabase() {
            return TestDatabases.mariadb();
        }
    }

    /** Scenario 6 on MariaDB: {@code KILL CONNECTION} of the engine's connections. */
    @Nested
    class ConnectionKill extends ConnectionKillScenario {
        @Override
        TestDatabase openDatabase() {
            return TestDatabases.mariadb();
        }
    }
}
