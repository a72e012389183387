package org.slotbook.redis.faults;

import org.slotbook.jdbc.testing.TestDatabases;
import org.slotbook.jdbc.testing.TestDatabases.TestDatabase;

/** Scenarios 4, 5 and 7 on H2, with a Redis process the suite owns as the gate. */
class H2LedgerFaultsTest extends LedgerFaultScenarios {
    @Override
    TestDatabase openDatabase() {
        return TestDatabases.h2();
    }
}
