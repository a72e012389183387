package org.slotbook.jdbc;

import java.util.Optional;
import java.util.function.Function;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.slotbook.core.TenantId;
import org.slotbook.core.spi.ConflictDetector;
import org.slotbook.core.spi.SeatLedger;
import org.slotbook.core.spi.StoreTransaction;
import org.slotbook.core.tck.ConflictDetectorContract;
import org.slotbook.jdbc.testing.TestDatabases;
import org.slotbook.jdbc.testing.TestDatabases.TestDatabase;

class MariaDbConflictDetectorContractTest extends ConflictDetectorContract {
    private static TestDatabase db;
    private static JdbcStore store;

    @BeforeAll
    static void openStore() {
        db = TestDatabases.mariadb();
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

    /** A second store on the same tables: its transactions are foreign to this one. */
    @Override
    protected <T> Optional<T> inForeignTransaction(TenantId tenantId, Function<StoreTransaction, T> work) {
        JdbcStore other = db.store();
        return Optional.of(other.ledger().inTransaction(tenantId, work));
    }
}
