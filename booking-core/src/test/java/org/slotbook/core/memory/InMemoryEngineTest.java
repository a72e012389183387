package org.slotbook.core.memory;

import org.junit.jupiter.api.Nested;
import org.slotbook.core.spi.BookingStore;
import org.slotbook.core.spi.SeatReservation;
import org.slotbook.core.tck.BookingEngineContract;

/** The engine contract over the in-memory store, DB-only and behind the in-memory gate. */
class InMemoryEngineTest {
    private static final InMemoryStore STORE = InMemoryStore.create();

    @Nested
    class DbOnly extends BookingEngineContract {
        @Override
        protected BookingStore store() {
            return STORE;
        }
    }

    @Nested
    class Gated extends BookingEngineContract {
        private InMemorySeatReservation gate;
        @Override
        protected BookingStore store() {
            return STORE;
        }

        @Override
        protected SeatReservation reservation() {
            if (gate == null) {
                gate = InMemorySeatReservation.create(clock); // the gate keeps the engine's (test) time
            }
            return gate;
        }
    }
}
