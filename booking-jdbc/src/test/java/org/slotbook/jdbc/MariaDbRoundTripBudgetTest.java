package org.slotbook.jdbc;

import org.slotbook.jdbc.testing.TestDatabases;
import org.slotbook.jdbc.testing.TestDatabases.TestDatabase;

class MariaDbRoundTripBudgetTest extends RoundTripBudgetTests {
    @Override
    protected TestDatabase openDatabase() {
        return TestDatabases.mariadb();
    }
}
