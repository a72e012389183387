package org.slotbook.redis.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.function.Function;
import org.junit.jupiter.api.Disabled;
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
import org.slotbook.core.spi.StoreTransaction;
import org.slotbook.core.tck.ForwardingLedger;
import org.slotbook.jdbc.testing.TestDatabases;
import org.slotbook.jdbc.testing.TestDatabases.TestDatabase;

/**
 * A hold whose commit went through but whose acknowledgement was lost (the connection died right
 * after COMMIT): the client saw {@link BookingStoreException} and retries the same request id.
 *
 * <p>Known gap, found by this suite: on any ledger exception the engine releases the gate hold it
 * took, although the commit may have happened. When the gate is full at the time of the retry (the
 * freed seat is being tried by another student), the retry is answered {@code Full} while the
 * request's booking exists. The invariants on seats still hold (the database judges); the answer to
 * the retry is what is wrong. A possible fix in the engine: after a ledger exception, release the
 * gate hold only when the ledger confirms that the request has no booking (otherwise keep it; TTL and
 * reconcile reclaim it), so that the retry finds its own gate hold (DUPLICATE) and is answered from
 * the ledger.
 */
@Disabled("known gap: a retry after a lost commit acknowledgement can be answered Full; see the class comment")
class RetryAfterLostCommitTest extends FaultSuiteBase {
    @Override
    TestDatabase openDatabase() {
        return TestDatabases.h2();
    }

    @Test
    void retryAfterALostCommitAcknowledgementAnswersTheCommittedBooking() {
        SlotId slot = schedule("lost-ack", 1);
        boolean[] loseNext = {true};
        ForwardingLedger lossy = new ForwardingLedger(store.ledger()) {
            @Override
            public <T> T inTransaction(TenantId tenantId, Function<StoreTransaction, T> work) {
                T result = delegate.inTransaction(tenantId, work);
                if (loseNext[0]) { // the first transaction of the hold below: its claim (the gate is initialized)
                    loseNext[0] = false;
                    throw new BookingStoreException("connection lost after COMMIT", null);
                }
                return result;
            }
        };
        BookingEngine lossyEngine = engine(lossy, gate, POLICY);
        HoldRequest request = HoldRequest.of(RequestId.of("r-a"), slot, StudentId.of("a"));
        assertThatThrownBy(() -> lossyEngine.hold(tenant, request)).isInstanceOf(BookingStoreException.class);
        assertThat(invariants().liveBookings(slot, clock.instant())).hasSize(1);
        // another student is in flight for the seat the gate believes free
        assertThat(gate.tryHold(tenant, slot, StudentId.of("b"), RequestId.of("r-b"), clock.instant(),
                clock.instant().plus(POLICY.gateTtl())).outcome()).isEqualTo(GateOutcome.HELD);
        HoldResult retry = lossyEngine.hold(tenant, request);
        assertThat(retry).as("the retry of a request whose booking committed").isInstanceOf(Held.class);
    }
}
