package org.slotbook.core.memory;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Nested;
import org.slotbook.core.spi.BookingStore;
import org.slotbook.core.spi.SeatReservation;
import org.slotbook.core.tck.BookingEngineContract;
import org.slotbook.core.tck.BookingStoreContract;
import org.slotbook.core.tck.MutableClock;
import org.slotbook.core.tck.SeatReservationContract;

/**
 * Every contract on the in-memory backends: the store, the engine over it (DB-only and behind the
 * in-memory gate), and the gate.
 */
class InMemoryTest {
    private static final InMemoryStore STORE = InMemoryStore.create();

    @Nested
    class StoreContract extends BookingStoreContract {
        @Override
        protected BookingStore store() {
            return STORE;
        }
    }

    @Nested
    class EngineContract extends BookingEngineContract {
        @Override
        protected BookingStore store() {
            return STORE;
        }
    }

    @Nested
    class GatedEngineContract extends BookingEngineContract {
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

        /**
         * {@link EngineContract} relays 10,000 events over the same store; here each delivered batch also reaches
         * the gate.
         */
        @Override
        public int relayedEvents() {
            return 2_000;
        }
    }

    /** The gate contract, on a test clock that the suite moves instead of sleeping. */
    @Nested
    class GateContract extends SeatReservationContract {
        private final MutableClock clock = new MutableClock();
        private final InMemorySeatReservation gate = InMemorySeatReservation.create(clock);

        @Override
        protected SeatReservation reservation() {
            return gate;
        }

        @Override
        protected Instant gateNow() {
            return clock.instant();
        }

        @Override
        protected void elapse(Duration duration) {
            clock.advance(duration);
        }
    }
}
