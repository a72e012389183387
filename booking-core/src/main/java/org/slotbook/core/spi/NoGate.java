package org.slotbook.core.spi;

import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.slotbook.core.RequestId;
import org.slotbook.core.SlotId;
import org.slotbook.core.StudentId;
import org.slotbook.core.TenantId;

/** DB-only mode: there is no gate. The engine does not call it; if anything does, it holds nothing. */
enum NoGate implements SeatReservation {
    INSTANCE;

    @Override
    public GateDecision tryHold(TenantId tenantId, SlotId slotId, StudentId studentId, RequestId requestId,
                                Duration ttl) {
        return GateDecision.UNAVAILABLE;
    }

    @Override
    public void confirm(TenantId tenantId, SlotId slotId, StudentId studentId, RequestId requestId) {
    }

    @Override
    public boolean release(TenantId tenantId, SlotId slotId, StudentId studentId, RequestId requestId) {
        return false;
    }

    @Override
    public void initialize(TenantId tenantId, SlotId slotId, int capacity, @Nullable Instant keepUntil) {
    }

    @Override
    public GateSync reconcile(TenantId tenantId, SlotId slotId, int capacity, Collection<GateHolder> truth,
                              Duration inFlightGrace, @Nullable Instant keepUntil) {
        return new GateSync(0, 0, false);
    }

    @Override
    public void close(TenantId tenantId, SlotId slotId, @Nullable Instant keepUntil) {
    }

    @Override
    public Optional<GateView> inspect(TenantId tenantId, SlotId slotId) {
        return Optional.empty();
    }

    @Override
    public String toString() {
        return "SeatReservation.none()";
    }
}
