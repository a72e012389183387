package org.slotbook.jdbc;

import org.slotbook.jdbc.testing.TestDatabases;
import org.slotbook.jdbc.testing.TestDatabases.TestDatabase;

class PostgresStoreTest extends JdbcStoreTests {
    @Override
    protected TestDatabase openDatabase() {
        return TestDatabases.postgres();
    }

    @Override
    protected String connectionIdQuery() {
        return "SELECT pg_backend_pid()";
    }

    @Override
    protected void kill(long id) {
        boolean killed = sql.withHandle(h -> h.createQuery("SELECT pg_terminate_backend(:pid)")
                .bind("pid", (int) id).mapTo(Boolean.class).one());
        if (!killed) {
            throw new IllegalStateException("backend " + id + " was not terminated");
        }
    }
}
