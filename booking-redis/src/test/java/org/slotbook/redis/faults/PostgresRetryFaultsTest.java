package org.slotbook.redis.faults;

import org.slotbook.jdbc.testing.TestDatabases;
import org.slotbook.jdbc.testing.TestDatabases.TestDatabase;

/** Scenarios 9 to 14 on PostgreSQL, with a Redis process the suite owns as the gate. */
class PostgresRetryFaultsTest extends RetryFaultScenarios {
    @Override
    TestDatabase openDatabase() {
        return TestDatabases.postgres();
    }
}
