package org.slotbook.core.memory;

import org.junit.jupiter.api.Nested;
import org.slotbook.core.spi.ConflictDetector;
import org.slotbook.core.spi.SeatLedger;
import org.slotbook.core.spi.SeatReservation;
import org.slotbook.core.tck.BookingEngineContract;

/** The engine contract over the in-memory store, DB-only and behind the in-memory gate. */
class InMemoryEngineTest {
    private static final InMemoryStore STORE = InMemoryStore.create();

    @Nested
    class DbOnly extends BookingEngineContract {
        @Override
        protected SeatLedger ledger() {
            return STORE.ledger();
        }

        @Override
        protected ConflictDetector detector() {
            return STORE.conflicts();
        }
    }

    @Nested
    class Gated extends BookingEngineContract {
        private InMemorySeatReservation gate;
        @Override
        protected SeatLedger ledger() {
            return STORE.ledger();
        }

        @Override
        protected ConflictDetector detector() {
            return STORE.conflicts();
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
