package org.slotbook.core.memory;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.function.Function;
import org.junit.jupiter.api.Nested;
import org.slotbook.core.TenantId;
import org.slotbook.core.spi.BookingStore;
import org.slotbook.core.spi.ConflictDetector;
import org.slotbook.core.spi.SeatLedger;
import org.slotbook.core.spi.SeatReservation;
import org.slotbook.core.spi.StoreTransaction;
import org.slotbook.core.tck.BookingEngineContract;
import org.slotbook.core.tck.BookingStoreContract;
import org.slotbook.core.tck.ConflictDetectorContract;
import org.slotbook.core.tck.MutableClock;
import org.slotbook.core.tck.SeatLedgerContract;
import org.slotbook.core.tck.SeatReservationContract;

/**
 * Every contract on the in-memory backends: the store, the engine over it (DB-only and behind the
 * in-memory gate), the gate, and the building blocks the store is made of.
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

    @Nested
    class LedgerContract extends SeatLedgerContract {
        private final InMemoryPrimitives primitives = InMemoryPrimitives.create();

        @Override
        protected SeatLedger ledger() {
            return primitives.ledger();
        }
    }

    @Nested
    class ConflictContract extends ConflictDetectorContract {
        private final InMemoryPrimitives primitives = InMemoryPrimitives.create();
        private final InMemoryPrimitives other = InMemoryPrimitives.create();

        @Override
        protected SeatLedger ledger() {
            return primitives.ledger();
        }

        @Override
        protected ConflictDetector detector() {
            return primitives.conflicts();
        }

        @Override
        protected <T> Optional<T> inForeignTransaction(TenantId tenantId, Function<StoreTransaction, T> work) {
            return Optional.of(other.ledger().inTransaction(tenantId, work));
        }
    }
}
