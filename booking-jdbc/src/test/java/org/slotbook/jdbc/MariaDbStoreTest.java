package org.slotbook.jdbc;

import org.slotbook.jdbc.testing.TestDatabases;
import org.slotbook.jdbc.testing.TestDatabases.TestDatabase;

class MariaDbStoreTest extends JdbcStoreTests {
    @Override
    protected TestDatabase openDatabase() {
        return TestDatabases.mariadb();
    }

    @Override
    protected String blockedHoldQuery() {
        return "SELECT ID FROM information_schema.PROCESSLIST WHERE ID <> CONNECTION_ID() AND COMMAND = 'Query'"
                + " AND INFO LIKE '%" + db.prefix() + "%' AND INFO NOT LIKE '%PROCESSLIST%'";
    }

    @Override
    protected void kill(long id) {
        sql.useHandle(h -> h.execute("KILL " + id));
    }
}
