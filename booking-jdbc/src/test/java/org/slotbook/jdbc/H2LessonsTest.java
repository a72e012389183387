package org.slotbook.jdbc;

import org.slotbook.jdbc.testing.TestDatabases;
import org.slotbook.jdbc.testing.TestDatabases.TestDatabase;

class H2LessonsTest extends LessonsStoreTests {
    @Override
    protected TestDatabase openDatabase() {
        return TestDatabases.h2();
    }
}
