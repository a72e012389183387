package org.slotbook.core.spi;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.slotbook.core.Availability;
import org.slotbook.core.Booking;
import org.slotbook.core.BookingId;
import org.slotbook.core.CancelResult;
import org.slotbook.core.CancelSlotResult;
import org.slotbook.core.ConfirmResult;
import org.slotbook.core.HoldResult;
import org.slotbook.core.RequestId;
import org.slotbook.core.ScheduleResult;
import org.slotbook.core.Slot;
import org.slotbook.core.SlotId;
import org.slotbook.core.StudentId;
import org.slotbook.core.TenantId;

/**
 * A store that forwards every call to {@link #delegate()}: the base of a store that wraps another
 * (a decorator that counts, logs or injects faults overrides the calls it changes) and of a store
 * whose rules live in an object of its own.
 */
public abstract class ForwardingStore implements BookingStore {

    /** The store every call goes to. */
    protected abstract BookingStore delegate();

    @Override
    public ScheduleResult schedule(TenantId tenantId, Slot slot, Duration longestSession) {
        return delegate().schedule(tenantId, slot, longestSession);
    }

    @Override
    public StoreOutcome<HoldResult> hold(TenantId tenantId, HoldCommand command) {
        return delegate().hold(tenantId, command);
    }

    @Override
    public StoreOutcome<ConfirmResult> confirm(TenantId tenantId, BookingId bookingId, StudentId studentId,
                                               Instant now) {
        return delegate().confirm(tenantId, bookingId, studentId, now);
    }

    @Override
    public StoreOutcome<CancelResult> cancel(TenantId tenantId, BookingId bookingId, StudentId studentId,
                                             Instant now) {
        return delegate().cancel(tenantId, bookingId, studentId, now);
    }

    @Override
    public StoreOutcome<CancelSlotResult> cancelSlot(TenantId tenantId, SlotId slotId, Instant now) {
        return delegate().cancelSlot(tenantId, slotId, now);
    }

    @Override
    public List<Booking> expireDue(TenantId tenantId, Instant now, int limit) {
        return delegate().expireDue(tenantId, now, limit);
    }

    @Override
    public Optional<Availability> availability(TenantId tenantId, SlotId slotId, Instant now) {
        return delegate().availability(tenantId, slotId, now);
    }

    @Override
    public Optional<LiveSlot> liveSlot(TenantId tenantId, SlotId slotId, Instant now) {
        return delegate().liveSlot(tenantId, slotId, now);
    }

    @Override
    public Optional<Booking> findBooking(TenantId tenantId, BookingId bookingId) {
        return delegate().findBooking(tenantId, bookingId);
    }

    @Override
    public Optional<Booking> findByRequest(TenantId tenantId, RequestId requestId) {
        return delegate().findByRequest(tenantId, requestId);
    }

    @Override
    public List<Slot> slots(TenantId tenantId, SlotId after, int limit) {
        return delegate().slots(tenantId, after, limit);
    }

    @Override
    public List<TenantId> tenants(TenantId after, int limit) {
        return delegate().tenants(after, limit);
    }
}
