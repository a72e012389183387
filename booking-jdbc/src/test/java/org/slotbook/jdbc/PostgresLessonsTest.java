package org.slotbook.jdbc;

import org.slotbook.jdbc.testing.TestDatabases;
import org.slotbook.jdbc.testing.TestDatabases.TestDatabase;

class PostgresLessonsTest extends LessonsStoreTests {
    @Override
    protected TestDatabase openDatabase() {
        return TestDatabases.postgres();
    }
}
