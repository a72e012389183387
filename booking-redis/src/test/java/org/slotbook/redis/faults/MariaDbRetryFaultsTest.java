package org.slotbook.redis.faults;

import org.slotbook.jdbc.testing.TestDatabases;
import org.slotbook.jdbc.testing.TestDatabases.TestDatabase;

/** Scenarios 9 to 14 on MariaDB, with a Redis process the suite owns as the gate. */
class MariaDbRetryFaultsTest extends RetryFaultScenarios {
    @Override
    TestDatabase openDatabase() {
        return TestDatabases.mariadb();
    }
}
