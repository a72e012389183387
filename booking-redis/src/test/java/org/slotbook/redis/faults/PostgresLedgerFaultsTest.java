package org.slotbook.redis.faults;

import org.slotbook.jdbc.testing.TestDatabases;
import org.slotbook.jdbc.testing.TestDatabases.TestDatabase;

/** Scenarios 4, 5 and 7 on PostgreSQL, with a Redis process the suite owns as the gate. */
class PostgresLedgerFaultsTest extends LedgerFaultScenarios {
    @Override
    TestDatabase openDatabase() {
        return TestDatabases.postgres();
    }
}
