package org.slotbook.redis.faults;

import org.slotbook.jdbc.testing.TestDatabases;
import org.slotbook.jdbc.testing.TestDatabases.TestDatabase;

/** Scenarios 1-3 and the reconcile race on H2 and a Redis process the suite owns. */
class H2RedisFaultsTest extends RedisFaultScenarios {
    /** An in-process database on two cores: more client threads only wait on each other's row locks. */
    @Override
    int saleClients() {
        return 4;
    }
    @Override
    TestDatabase openDatabase() {
        return TestDatabases.h2();
    }
}
