package org.slotbook.core.tck;

import org.slotbook.core.spi.SeatLedger;

/**
 * What every {@link SeatLedger} must do. A backend subclasses it once and returns its ledger; each
 * test uses a fresh tenant, so the backend may be shared by all tests of the class and reused
 * across runs on the same server.
 */
public abstract class SeatLedgerContract {
    /** The ledger under test (may be the same instance on every call). */
    protected abstract SeatLedger ledger();
}
