package org.slotbook.core.tck.faults;

import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.Optional;
import org.slotbook.core.RequestId;
import org.slotbook.core.SlotId;
import org.slotbook.core.StudentId;
import org.slotbook.core.TenantId;
import org.slotbook.core.spi.GateDecision;
import org.slotbook.core.spi.GateHolder;
import org.slotbook.core.spi.GateMark;
import org.slotbook.core.spi.GateSync;
import org.slotbook.core.spi.GateView;
import org.slotbook.core.spi.SeatReservation;

/** A gate that forwards every call; fault scenarios override the call they break. */
public class ForwardingGate implements SeatReservation {
    protected final SeatReservation delegate;

    public ForwardingGate(SeatReservation delegate) {
        this.delegate = delegate;
    }

    @Override
    public GateDecision tryHold(TenantId tenantId, SlotId slotId, StudentId studentId, RequestId requestId,
                                Duration ttl) {
        return delegate.tryHold(tenantId, slotId, studentId, requestId, ttl);
    }

    @Override
    public void confirm(TenantId tenantId, SlotId slotId, StudentId studentId, RequestId requestId) {
        delegate.confirm(tenantId, slotId, studentId, requestId);
    }

    @Override
    public boolean release(TenantId tenantId, SlotId slotId, StudentId studentId, RequestId requestId) {
        return delegate.release(tenantId, slotId, studentId, requestId);
    }

    @Override
    public boolean releaseEnded(TenantId tenantId, SlotId slotId, StudentId studentId, RequestId requestId) {
        return delegate.releaseEnded(tenantId, slotId, studentId, requestId);
    }

    @Override
    public void initialize(TenantId tenantId, SlotId slotId, int capacity, Instant keepUntil) {
        delegate.initialize(tenantId, slotId, capacity, keepUntil);
    }

    @Override
    public GateSync reconcile(TenantId tenantId, SlotId slotId, int capacity, Collection<GateHolder> truth,
                              Duration inFlightGrace, Instant keepUntil) {
        return delegate.reconcile(tenantId, slotId, capacity, truth, inFlightGrace, keepUntil);
    }

    @Override
    public void initialize(TenantId tenantId, SlotId slotId, int capacity, Instant opensAt, Instant keepUntil) {
        delegate.initialize(tenantId, slotId, capacity, opensAt, keepUntil);
    }

    @Override
    public GateSync reconcile(TenantId tenantId, SlotId slotId, int capacity, Instant opensAt,
                              Collection<GateHolder> truth, Duration truthAge, Duration inFlightGrace,
                              Instant keepUntil) {
        return delegate.reconcile(tenantId, slotId, capacity, opensAt, truth, truthAge, inFlightGrace, keepUntil);
    }

    @Override
    public GateDecision transfer(TenantId tenantId, SlotId slotId, StudentId studentId, RequestId from, RequestId to,
                                 Duration ttl) {
        return delegate.transfer(tenantId, slotId, studentId, from, to, ttl);
    }

    @Override
    public boolean withdraw(TenantId tenantId, SlotId slotId, StudentId studentId, RequestId requestId) {
        return delegate.withdraw(tenantId, slotId, studentId, requestId);
    }

    @Override
    public GateMark mark(TenantId tenantId, SlotId slotId) {
        return delegate.mark(tenantId, slotId);
    }

    @Override
    public GateSync reconcileFrom(TenantId tenantId, SlotId slotId, int capacity, Instant opensAt,
                                  Collection<GateHolder> truth, GateMark readFrom, Duration inFlightGrace,
                                  Instant keepUntil) {
        return delegate.reconcileFrom(tenantId, slotId, capacity, opensAt, truth, readFrom, inFlightGrace, keepUntil);
    }

    @Override
    public void close(TenantId tenantId, SlotId slotId, Instant keepUntil) {
        delegate.close(tenantId, slotId, keepUntil);
    }

    @Override
    public Optional<GateView> inspect(TenantId tenantId, SlotId slotId) {
        return delegate.inspect(tenantId, slotId);
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "[" + delegate + "]";
    }
}
