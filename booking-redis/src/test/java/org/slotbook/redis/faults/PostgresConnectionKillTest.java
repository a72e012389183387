package org.slotbook.redis.faults;

import org.slotbook.jdbc.testing.TestDatabases;
import org.slotbook.jdbc.testing.TestDatabases.TestDatabase;

/** Scenario 6 on PostgreSQL: {@code pg_terminate_backend} of the engine's connections. */
class PostgresConnectionKillTest extends ConnectionKillScenario {
    @Override
    TestDatabase openDatabase() {
        return TestDatabases.postgres();
    }
}
