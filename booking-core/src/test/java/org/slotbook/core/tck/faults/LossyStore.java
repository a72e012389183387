package org.slotbook.core.tck.faults;

import java.time.Instant;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slotbook.core.BookingId;
import org.slotbook.core.BookingStoreException;
import org.slotbook.core.CancelResult;
import org.slotbook.core.HoldResult;
import org.slotbook.core.StudentId;
import org.slotbook.core.TenantId;
import org.slotbook.core.spi.BookingStore;
import org.slotbook.core.spi.HoldCommand;
import org.slotbook.core.spi.StoreOutcome;
import org.slotbook.core.spi.Terms;
import org.slotbook.core.tck.ForwardingStore;

/**
 * A store whose next hold or cancel, once armed, commits and then fails with a
 * {@link BookingStoreException}, as if the connection died right after COMMIT: the change is in the
 * database, the caller never heard of it.
 */
public final class LossyStore extends ForwardingStore {
    /** Arms the loss of the next hold's acknowledgement. */
    public final AtomicBoolean loseNextHold = new AtomicBoolean();
    /** Arms the loss of the next cancel's acknowledgement. */
    public final AtomicBoolean loseNextCancel = new AtomicBoolean();

    public LossyStore(BookingStore delegate) {
        super(delegate);
    }

    @Override
    public StoreOutcome<HoldResult> hold(TenantId tenantId, HoldCommand command) {
        StoreOutcome<HoldResult> out = delegate.hold(tenantId, command);
        if (loseNextHold.getAndSet(false)) {
            throw new BookingStoreException("connection lost after COMMIT of a hold", null);
        }
        return out;
    }

    @Override
    public StoreOutcome<CancelResult> cancel(TenantId tenantId, BookingId bookingId, StudentId studentId,
                                             Instant now, Terms terms) {
        StoreOutcome<CancelResult> out = delegate.cancel(tenantId, bookingId, studentId, now, terms);
        if (loseNextCancel.getAndSet(false)) {
            throw new BookingStoreException("connection lost after COMMIT of a cancel", null);
        }
        return out;
    }
}
