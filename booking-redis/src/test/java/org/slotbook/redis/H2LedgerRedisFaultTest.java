package org.slotbook.redis;

import org.junit.jupiter.api.AfterAll;
import org.slotbook.core.spi.BookingStore;
import org.slotbook.jdbc.testing.TestDatabases;
import org.slotbook.jdbc.testing.TestDatabases.TestDatabase;

/** The fault sales over the H2 store. */
class H2LedgerRedisFaultTest extends AbstractRedisFaultTest {
    private TestDatabase db;

    @Override
    protected BookingStore store() {
        db = TestDatabases.h2();
        return db.store();
    }

    @AfterAll
    void closeDatabase() {
        if (db != null) {
            db.close();
        }
    }
}
