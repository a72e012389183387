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
import org.slotbook.core.spi.GateHolder;
import org.slotbook.core.spi.GateMark;
import org.slotbook.core.spi.GateSync;
import org.slotbook.core.spi.SeatReservation;

/**
 * A gate whose calls can arrive late: the releases of one request id are held back until
 * {@link #deliverReleases()} (as a release sent by one node reaches Redis after another node's later
 * calls), and a hook runs before every reconcile reaches the gate (after the engine read the ledger),
 * followed by a delay.
 */
public final class DeferringGate extends ForwardingGate {
    private volatile RequestId deferred;
    private final List<Runnable> held = new ArrayList<>();
    private volatile Runnable beforeReconcile = () -> { };
    private volatile Duration reconcileDelay = Duration.ZERO;

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
