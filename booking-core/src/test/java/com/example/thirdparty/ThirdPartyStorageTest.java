package com.example.thirdparty;

import org.junit.jupiter.api.Nested;
import org.slotbook.core.memory.InMemorySeatReservation;
import org.slotbook.core.rules.RulesStore;
import org.slotbook.core.spi.BookingStore;
import org.slotbook.core.spi.SeatReservation;
import org.slotbook.core.tck.BookingEngineContract;
import org.slotbook.core.tck.BookingStoreContract;

/**
 * A third party's storage under the booking rules: {@link ListStorage}, written from the public API
 * alone, passes the store contract and the engine contract with the suites it mixes in (the booking
 * rules, lessons, hold credits), DB-only and behind the in-memory gate.
 */
class ThirdPartyStorageTest {
    private static final BookingStore STORE = RulesStore.over(new ListStorage());

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
    }
}
