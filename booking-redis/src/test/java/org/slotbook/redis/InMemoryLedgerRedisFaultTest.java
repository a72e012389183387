package org.slotbook.redis;

import org.slotbook.core.memory.InMemoryStore;

/** The fault sales over the in-memory ledger. */
class InMemoryLedgerRedisFaultTest extends AbstractRedisFaultTest {
    private final InMemoryStore store = InMemoryStore.create();

    @Override
    protected Ledger ledger() {
        return new Ledger(store.ledger(), store.conflicts());
    }
}
