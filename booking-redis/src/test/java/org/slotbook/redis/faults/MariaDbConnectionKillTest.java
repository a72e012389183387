package org.slotbook.redis.faults;

import org.slotbook.jdbc.testing.TestDatabases;
import org.slotbook.jdbc.testing.TestDatabases.TestDatabase;

/** Scenario 6 on MariaDB: {@code KILL CONNECTION} of the engine's connections. */
class MariaDbConnectionKillTest extends ConnectionKillScenario {
    @Override
    TestDatabase openDatabase() {
        return TestDatabases.mariadb();
    }
}
