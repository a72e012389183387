package org.slotbook.jdbc;

import org.slotbook.jdbc.testing.TestDatabases;
import org.slotbook.jdbc.testing.TestDatabases.TestDatabase;

class MariaDbStoreTest extends JdbcStoreTests {
    @Override
    protected TestDatabase openDatabase() {
        return TestDatabases.mariadb();
    }

    @Override
    protected String connectionIdQuery() {
        return "SELECT CONNECTION_ID()";
    }

    @Override
    protected void kill(long id) {
        sql.useHandle(h -> h.execute("KILL " + id));
    }
}
