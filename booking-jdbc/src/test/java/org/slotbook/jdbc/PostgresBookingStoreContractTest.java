package org.slotbook.jdbc;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.slotbook.core.spi.BookingStore;
import org.slotbook.core.tck.BookingStoreContract;
import org.slotbook.jdbc.testing.TestDatabases;
import org.slotbook.jdbc.testing.TestDatabases.TestDatabase;

class PostgresBookingStoreContractTest extends BookingStoreContract {
    private static TestDatabase db;
    private static JdbcStore store;

    @BeforeAll
    static void openStore() {
        db = TestDatabases.postgres();
        store = db.store();
    }

    @AfterAll
    static void closeStore() {
        if (db != null) {
            db.close();
        }
    }

    @Override
    protected BookingStore store() {
        return store;
    }
}
