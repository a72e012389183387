package org.slotbook.redis;

import org.junit.jupiter.api.AfterAll;
import org.slotbook.jdbc.JdbcStore;
import org.slotbook.jdbc.testing.TestDatabases;
import org.slotbook.jdbc.testing.TestDatabases.TestDatabase;

/** The fault sales over the H2 ledger. */
class H2LedgerRedisFaultTest extends AbstractRedisFaultTest {
    private TestDatabase db;

    @Override
    protected Ledger ledger() {
        db = TestDatabases.h2();
        JdbcStore store = db.store();
        return new Ledger(store.ledger(), store.conflicts());
    }

    @AfterAll
    void closeDatabase() {
        if (db != null) {
            db.close();
        }
    }
}
