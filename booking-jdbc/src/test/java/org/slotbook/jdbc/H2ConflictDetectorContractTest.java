package org.slotbook.jdbc;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.slotbook.core.spi.ConflictDetector;
import org.slotbook.core.spi.SeatLedger;
import org.slotbook.core.tck.ConflictDetectorContract;
import org.slotbook.jdbc.testing.TestDatabases;
import org.slotbook.jdbc.testing.TestDatabases.TestDatabase;

@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class H2ConflictDetectorContractTest extends ConflictDetectorContract {
    private TestDatabase db;
    private JdbcStore store;

    @BeforeAll
    void openStore() {
        db = TestDatabases.h2();
        store = db.store();
    }

    @AfterAll
    void closeStore() {
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
