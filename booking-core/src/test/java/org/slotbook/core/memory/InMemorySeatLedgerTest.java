package org.slotbook.core.memory;

import org.slotbook.core.spi.SeatLedger;
import org.slotbook.core.tck.SeatLedgerContract;

class InMemorySeatLedgerTest extends SeatLedgerContract {
    private static final InMemoryPrimitives STORE = InMemoryPrimitives.create();

    @Override
    protected SeatLedger ledger() {
        return STORE.ledger();
    }
}
