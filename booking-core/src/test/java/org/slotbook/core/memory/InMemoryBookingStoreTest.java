package org.slotbook.core.memory;

import org.slotbook.core.spi.BookingStore;
import org.slotbook.core.tck.BookingStoreContract;

class InMemoryBookingStoreTest extends BookingStoreContract {
    private static final InMemoryStore STORE = InMemoryStore.create();

    @Override
    protected BookingStore store() {
        return STORE;
    }
}
