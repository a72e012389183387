package org.slotbook.core.memory;

import java.util.Optional;
import java.util.function.Function;
import org.slotbook.core.TenantId;
import org.slotbook.core.spi.ConflictDetector;
import org.slotbook.core.spi.SeatLedger;
import org.slotbook.core.spi.StoreTransaction;
import org.slotbook.core.tck.ConflictDetectorContract;

class InMemoryConflictDetectorTest extends ConflictDetectorContract {
    private static final InMemoryPrimitives STORE = InMemoryPrimitives.create();
    private static final InMemoryPrimitives OTHER = InMemoryPrimitives.create();

    @Override
    protected SeatLedger ledger() {
        return STORE.ledger();
    }

    @Override
    protected ConflictDetector detector() {
        return STORE.conflicts();
    }

    @Override
    protected <T> Optional<T> inForeignTransaction(TenantId tenantId, Function<StoreTransaction, T> work) {
        return Optional.of(OTHER.ledger().inTransaction(tenantId, work));
    }
}
