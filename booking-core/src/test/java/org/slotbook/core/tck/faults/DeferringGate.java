package org.slotbook.core.tck.faults;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import org.slotbook.core.RequestId;
import org.slotbook.core.SlotId;
import org.slotbook.core.StudentId;
import org.slotbook.core.TenantId;
import org.slotbook.core.spi.GateDecision;
import org.slotbook.core.spi.GateHolder;
import org.slotbook.core.spi.GateMark;
import org.slotbook.core.spi.GateSync;
import org.slotbook.core.spi.SeatReservation;

/**
 * A gate whose calls can arrive late: the releases of one request id are held back until
 * {@link #deliverReleases()} (as a release sent by one node reaches Redis after another node's later
 * calls), and a hook runs before every reconcile reaches the gate (after the engine read the ledger),
 * followed by a delay; and a hook can run just before a chosen {@code tryHold} of one request reaches the
 * gate (as another thread's calls come in between).
 */
public final class DeferringGate extends ForwardingGate {
    private volatile RequestId deferred;
    private final List<Runnable> held = new ArrayList<>();
    private volatile Runnable beforeReconcile = () -> { };
    private volatile Duration reconcileDelay = Duration.ZERO;
    private volatile RequestId hookedHold;
    private final java.util.concurrent.atomic.AtomicInteger holdsUntilHook = new java.util.concurrent.atomic.AtomicInteger();
    private volatile Runnable beforeHold = () -> { };
    private volatile RequestId afterHoldOf;
    private volatile Runnable afterHold = () -> { };
    private volatile Runnable beforeTransfer;

    public DeferringGate(SeatReservation delegate) {
        super(delegate);
    }

    /** Holds back every release of {@code requestId} from now on. */
    public void deferReleasesOf(RequestId requestId) {
        this.deferred = requestId;
    }

    /** Delivers the releases held back, in their order, and stops holding any back; how many. */
    public int deliverReleases() {
        List<Runnable> late;
        synchronized (held) {
            deferred = null;
            late = new ArrayList<>(held);
            held.clear();
        }
        late.forEach(Runnable::run);
        return late.size();
    }

    /** Runs {@code hook}, then waits {@code delay}, before each reconcile reaches the gate. */
    public void beforeReconcile(Runnable hook, Duration delay) {
        this.beforeReconcile = hook;
        this.reconcileDelay = delay;
    }

    /** Runs {@code hook} once, just before the {@code nth} {@code tryHold} of {@code requestId} from now reaches the gate. */
    public void beforeHoldOf(RequestId requestId, int nth, Runnable hook) {
        this.beforeHold = hook;
        this.holdsUntilHook.set(nth);
        this.hookedHold = requestId;
    }

    /** Runs {@code hook} once, just after the next {@code tryHold} of {@code requestId} got the gate's answer. */
    public void afterHoldOf(RequestId requestId, Runnable hook) {
        this.afterHold = hook;
        this.afterHoldOf = requestId;
    }

    /** Runs {@code hook} once, just before the next {@code transfer} reaches the gate. */
    public void beforeTransfer(Runnable hook) {
        this.beforeTransfer = hook;
    }

    @Override
    public GateDecision tryHold(TenantId tenantId, SlotId slotId, StudentId studentId, RequestId requestId,
                                Duration ttl) {
        if (requestId.equals(hookedHold) && holdsUntilHook.decrementAndGet() == 0) {
            hookedHold = null;
            beforeHold.run();
        }
        GateDecision decision = delegate.tryHold(tenantId, slotId, studentId, requestId, ttl);
        if (requestId.equals(afterHoldOf)) {
            afterHoldOf = null;
            afterHold.run();
        }
        return decision;
    }

    @Override
    public GateDecision transfer(TenantId tenantId, SlotId slotId, StudentId studentId, RequestId from, RequestId to,
                                 Duration ttl) {
        Runnable hook = beforeTransfer;
        if (hook != null) {
            beforeTransfer = null;
            hook.run();
        }
        return delegate.transfer(tenantId, slotId, studentId, from, to, ttl);
    }

    @Override
    public boolean releaseEnded(TenantId tenantId, SlotId slotId, StudentId studentId, RequestId requestId) {
        synchronized (held) {
            if (requestId.equals(deferred)) {
                held.add(() -> delegate.releaseEnded(tenantId, slotId, studentId, requestId));
                return false;
            }
        }
        return delegate.releaseEnded(tenantId, slotId, studentId, requestId);
    }

    @Override
    public boolean release(TenantId tenantId, SlotId slotId, StudentId studentId, RequestId requestId) {
        synchronized (held) {
            if (requestId.equals(deferred)) {
                held.add(() -> delegate.release(tenantId, slotId, studentId, requestId));
                return false;
            }
        }
        return delegate.release(tenantId, slotId, studentId, requestId);
    }

    @Override
    public GateSync reconcile(TenantId tenantId, SlotId slotId, int capacity, Instant opensAt,
                              Collection<GateHolder> truth, Duration truthAge, Duration inFlightGrace,
                              Instant keepUntil) {
        delayed();
        return delegate.reconcile(tenantId, slotId, capacity, opensAt, truth, truthAge, inFlightGrace, keepUntil);
    }

    @Override
    public GateSync reconcileFrom(TenantId tenantId, SlotId slotId, int capacity, Instant opensAt,
                                  Collection<GateHolder> truth, GateMark readFrom, Duration inFlightGrace,
                                  Instant keepUntil) {
        delayed();
        return delegate.reconcileFrom(tenantId, slotId, capacity, opensAt, truth, readFrom, inFlightGrace, keepUntil);
    }

    private void delayed() {
        beforeReconcile.run();
        try {
            Thread.sleep(reconcileDelay.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
