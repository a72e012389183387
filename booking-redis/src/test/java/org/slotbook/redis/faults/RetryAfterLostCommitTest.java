package org.slotbook.redis.faults;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.slotbook.core.BookingEngine;
import org.slotbook.core.BookingStoreException;
import org.slotbook.core.Held;
import org.slotbook.core.HoldRequest;
import org.slotbook.core.HoldResult;
import org.slotbook.core.RequestId;
import org.slotbook.core.SlotId;
import org.slotbook.core.StudentId;
import org.slotbook.core.TenantId;
import org.slotbook.core.spi.GateOutcome;
import org.slotbook.core.spi.HoldCommand;
import org.slotbook.core.spi.StoreOutcome;
import org.slotbook.core.tck.ForwardingStore;
import org.slotbook.jdbc.testing.TestDatabases;
import org.slotbook.jdbc.testing.TestDatabases.TestDatabase;

/**
 * A hold whose commit went through but whose acknowledgement was lost (the connection died right
 * after COMMIT). The engine asks the store whether the request committed before it gives the gate
 * hold back: it did, so the caller gets the booking, the gate keeps counting the seat, and a retry of
 * the same request id is answered with the same booking instead of {@code Full}.
 */
class RetryAfterLostCommitTest extends FaultSuiteBase {
    @Override
    TestDatabase openDatabase() {
        return TestDatabases.h2();
    }

    @Test
    void retryAfterALostCommitAcknowledgementAnswersTheCommittedBooking() {
        SlotId slot = schedule("lost-ack", 1);
        boolean[] loseNext = {true};
        ForwardingStore lossy = new ForwardingStore(store) {
            @Override
            public StoreOutcome<HoldResult> hold(TenantId tenantId, HoldCommand command) {
                StoreOutcome<HoldResult> result = delegate.hold(tenantId, command);
                if (loseNext[0]) { // the first hold below: its database call committed (the gate is initialized)
                    loseNext[0] = false;
                    throw new BookingStoreException("connection lost after COMMIT", null);
                }
                return result;
            }
        };
        BookingEngine lossyEngine = engine(lossy, gate, POLICY);
        HoldRequest request = HoldRequest.of(RequestId.of("r-a"), slot, StudentId.of("a"));
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
