package org.slotbook.examples.combined;

import org.slotbook.core.spi.BookingStore;
import org.slotbook.jdbc.testing.TestDatabases.TestDatabase;
import org.slotbook.redis.faults.RedisFaultSuite;

/**
 * The fault suite of the scenarios that need a database and Redis: a test database with fresh
 * tables as the store (its rows read by {@link SqlInvariants}), and the Redis gate of
 * {@link RedisFaultSuite} on a redis-server process the suite owns.
 */
abstract class SqlFaultSuite extends RedisFaultSuite {
    TestDatabase db;

    /** Opens the database of this suite (a {@code TestDatabases} factory). */
    abstract TestDatabase openDatabase();

    @Override
    protected BookingStore openStore() {
        db = openDatabase();
        return db.store();
    }

    @Override
    protected void closeStore() {
        if (db != null) {
            db.close();
        }
    }

    @Override
    protected SqlInvariants invariants() {
        return new SqlInvariants(db, store, gate, tenant);
    }

    @Override
    protected String storeName() {
        return db.name();
    }

}
