package org.slotbook.examples.bench;

import org.slotbook.core.TenantId;

/**
 * Where the bookings of a Slotbook line live, and how they are checked after the line: a database of
 * the run ({@link BenchDb}, by SQL on its tables) or the in-memory store ({@link BenchMemory}, by the
 * store's own read API). Either way the check reads the ledger's state, never the engine's answers.
 */
interface Ledger {
    /** Seats taken beyond a slot's capacity, and students with more than one live booking. */
    record Violations(long oversold, long doubleBooked) {
    }

    /** The backend's key in line names: {@code pg}, {@code citus}, {@code mariadb}, {@code h2}, {@code memory}. */
    String key();

    /** The backend's name in the tables: PostgreSQL, Citus, MariaDB, H2, InMemoryStore. */
    String name();

    /**
     * Over-capacity seats and double-booked students of the tenant, counted from the ledger's own state:
     * live bookings (HELD or CONFIRMED) per slot against its capacity, and students with more than one
     * live booking (all slots of a run share one time, so two live bookings overlap).
     */
    Violations violations(TenantId tenant) throws Exception;
}
