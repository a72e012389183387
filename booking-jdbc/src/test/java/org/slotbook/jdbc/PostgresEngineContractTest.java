package org.slotbook.jdbc;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.slotbook.core.spi.ConflictDetector;
import org.slotbook.core.spi.SeatLedger;
import org.slotbook.core.tck.BookingEngineContract;
import org.slotbook.jdbc.testing.TestDatabases;
import org.slotbook.jdbc.testing.TestDatabases.TestDatabase;

class PostgresEngineContractTest extends BookingEngineContract {
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
    protected SeatLedger ledger() {
        return store.ledger();
    }

    @Override
    protected ConflictDetector detector() {
        return store.conflicts();
    }
}
