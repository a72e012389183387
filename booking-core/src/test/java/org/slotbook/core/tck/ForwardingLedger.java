package org.slotbook.core.tck;

import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import org.slotbook.core.Booking;
import org.slotbook.core.BookingId;
import org.slotbook.core.RequestId;
import org.slotbook.core.Slot;
import org.slotbook.core.SlotId;
import org.slotbook.core.StudentId;
import org.slotbook.core.TenantId;
import org.slotbook.core.spi.NewBooking;
import org.slotbook.core.spi.SeatClaim;
import org.slotbook.core.spi.SeatCount;
import org.slotbook.core.spi.SeatLedger;
import org.slotbook.core.spi.StoreTransaction;

/** A ledger that forwards every call; fault-injection tests override the step they break. */
public class ForwardingLedger implements SeatLedger {
    protected final SeatLedger delegate;

    public ForwardingLedger(SeatLedger delegate) {
        this.delegate = delegate;
    }

    @Override
    public <T> T inTransaction(TenantId tenantId, Function<StoreTransaction, T> work) {
        return delegate.inTransaction(tenantId, work);
    }

    @Override
    public boolean insertSlot(StoreTransaction tx, Slot slot) {
        return delegate.insertSlot(tx, slot);
    }

    @Override
    public Optional<Slot> findSlot(StoreTransaction tx, SlotId slotId) {
        return delegate.findSlot(tx, slotId);
    }

    @Override
    public Optional<Booking> findBooking(StoreTransaction tx, BookingId bookingId) {
        return delegate.findBooking(tx, bookingId);
    }

    @Override
    public Optional<Booking> findByRequest(StoreTransaction tx, RequestId requestId) {
        return delegate.findByRequest(tx, requestId);
    }

    @Override
    public Optional<Booking> findActive(StoreTransaction tx, SlotId slotId, StudentId studentId) {
        return delegate.findActive(tx, slotId, studentId);
    }

    @Override
    public Optional<SeatClaim> claimSeat(StoreTransaction tx, NewBooking booking, Instant now) {
        return delegate.claimSeat(tx, booking, now);
    }

    @Override
    public boolean confirm(StoreTransaction tx, BookingId bookingId, Instant now) {
        return delegate.confirm(tx, bookingId, now);
    }

    @Override
    public boolean cancel(StoreTransaction tx, BookingId bookingId, Instant now) {
        return delegate.cancel(tx, bookingId, now);
    }

    @Override
    public boolean expire(StoreTransaction tx, BookingId bookingId, Instant now) {
        return delegate.expire(tx, bookingId, now);
    }

    @Override
    public List<BookingId> cancelSlot(StoreTransaction tx, SlotId slotId, Instant now) {
        return delegate.cancelSlot(tx, slotId, now);
    }

    @Override
    public boolean hasFreeSeat(StoreTransaction tx, SlotId slotId, Instant now) {
        return delegate.hasFreeSeat(tx, slotId, now);
    }

    @Override
    public SeatCount count(StoreTransaction tx, SlotId slotId, Instant now) {
        return delegate.count(tx, slotId, now);
    }

    @Override
    public List<Booking> liveBookings(StoreTransaction tx, SlotId slotId, Instant now) {
        return delegate.liveBookings(tx, slotId, now);
    }

    @Override
    public List<Booking> expireDue(StoreTransaction tx, Instant now, int limit) {
        return delegate.expireDue(tx, now, limit);
    }

    @Override
    public List<Slot> slots(StoreTransaction tx, SlotId after, int limit) {
        return delegate.slots(tx, after, limit);
    }

    @Override
    public List<TenantId> tenants(TenantId after, int limit) {
        return delegate.tenants(after, limit);
    }
}
