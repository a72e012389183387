package org.slotbook.examples.combined;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.slotbook.core.BookingEngine;
import org.slotbook.core.Held;
import org.slotbook.core.HoldRequest;
import org.slotbook.core.HoldResult;
import org.slotbook.core.RequestId;
import org.slotbook.core.SlotId;
import org.slotbook.core.StudentId;
import org.slotbook.core.spi.BookingStore;
import org.slotbook.core.spi.GateOutcome;
import org.slotbook.core.tck.faults.Invariants;
import org.slotbook.core.tck.faults.LossyStore;
import org.slotbook.jdbc.testing.TestDatabases;
import org.slotbook.jdbc.testing.TestDatabases.TestDatabase;
import org.slotbook.redis.faults.RedisFaultScenarios;
import org.slotbook.redis.faults.RedisOutageScenarios;

/**
 * The H2 store behind the Redis gate: the engine contract, the Redis outages and faults with H2 as
 * the ledger, the faults in clients and clock, and a commit whose acknowledgement was lost.
 */
class H2WithRedisTest {

    @Nested
    class EngineContract extends RedisEngineContract {
        @Override
        TestDatabase openDatabase() {
            return TestDatabases.h2();
        }
    }

    /** Flash sales over H2 while its Redis is killed, flushed or down. */
    @Nested
    class Outages extends RedisOutageScenarios {
        private TestDatabase db;

        @Override
        protected BookingStore openStore() {
            db = TestDatabases.h2();
            return db.store();
        }

        @Override
        protected void closeStore() {
            if (db != null) {
                db.close();
            }
        }

        @Override
        protected Invariants invariants() {
            return new SqlInvariants(db, store, gate, tenant);
        }

        @Override
        protected String storeName() {
            return db.name();
        }
    }

    /** Scenarios 1 to 3 and 8 over H2. */
    @Nested
    class RedisFaults extends RedisFaultScenarios {
        private TestDatabase db;

        /** An in-process database on two cores: more client threads only wait on each other's row locks. */
        @Override
        protected int saleClients() {
            return 4;
        }

        @Override
        protected BookingStore openStore() {
            db = TestDatabases.h2();
            return db.store();
        }

        @Override
        protected void closeStore() {
            if (db != null) {
                db.close();
            }
        }

        @Override
        protected Invariants invariants() {
            return new SqlInvariants(db, store, gate, tenant);
        }

        @Override
        protected String storeName() {
            return db.name();
        }
    }

    /** Scenarios 4, 5 and 7 on H2. */
    @Nested
    class LedgerFaults extends LedgerFaultScenarios {
        @Override
        TestDatabase openDatabase() {
            return TestDatabases.h2();
        }
    }

    /**
     * A hold whose commit went through but whose acknowledgement was lost (the connection died right
     * after COMMIT). The engine asks the store whether the request committed before it gives the gate
     * hold back: it did, so the caller gets the booking, the gate keeps counting the seat, and a retry of
     * the same request id is answered with the same booking instead of {@code Full}.
     */
    @Nested
    class LostCommit extends SqlFaultSuite {
        @Override
        TestDatabase openDatabase() {
            return TestDatabases.h2();
        }

        @Test
        void retryAfterALostCommitAcknowledgementAnswersTheCommittedBooking() {
            SlotId slot = schedule("lost-ack", 1);
            LossyStore lossy = new LossyStore(store);
            BookingEngine lossyEngine = engine(lossy, gate, POLICY);
            HoldRequest request = HoldRequest.of(RequestId.of("r-a"), slot, StudentId.of("a"));
            // its database call commits (the gate is initialized), then the connection is lost
            lossy.loseNextHold.set(true);
            HoldResult first = lossyEngine.hold(tenant, request);
            assertThat(first).as("a hold whose commit went through").isInstanceOf(Held.class);
            assertThat(invariants().liveBookings(slot, clock.instant())).hasSize(1);
            // the gate still counts the committed seat: another student is turned away by the gate alone
            assertThat(gate.tryHold(tenant, slot, StudentId.of("b"), RequestId.of("r-b"),
                    POLICY.gateTtl()).outcome()).isEqualTo(GateOutcome.FULL);
            HoldResult retry = lossyEngine.hold(tenant, request);
            assertThat(retry).as("the retry of a request whose booking committed").isInstanceOf(Held.class);
            assertThat(((Held) retry).booking().bookingId()).isEqualTo(((Held) first).booking().bookingId());
            assertThat(invariants().liveBookings(slot, clock.instant())).hasSize(1);
        }
    }
}
