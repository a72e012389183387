package org.slotbook.redis;

import org.slotbook.core.memory.InMemoryStore;
import org.slotbook.core.spi.BookingStore;

/** The fault sales over the in-memory store. */
class InMemoryLedgerRedisFaultTest extends AbstractRedisFaultTest {
    private final InMemoryStore store = InMemoryStore.create();

    @Override
    protected BookingStore store() {
        return store;
    }
}
