package org.slotbook.core.spi;

import java.time.Instant;
import java.util.Collection;
import java.util.Optional;
import org.slotbook.core.RequestId;
import org.slotbook.core.SlotId;
import org.slotbook.core.StudentId;
import org.slotbook.core.TenantId;

/** DB-only mode: every hold goes to the ledger. */
enum NoGate implements SeatReservation {
    INSTANCE;

    @Override
    public GateDecision tryHold(TenantId tenantId, SlotId slotId, StudentId studentId, RequestId requestId,
                                Instant now, Instant expiresAt) {
        return GateDecision.BYPASS;
    }

    @Override
    public void confirm(TenantId tenantId, SlotId slotId, StudentId studentId) {
    }

    @Override
    public boolean release(TenantId tenantId, SlotId slotId, StudentId studentId) {
        return false;
    }

    @Override
    public void initialize(TenantId tenantId, SlotId slotId, int capacity, Instant keepUntil) {
    }

    @Override
    public GateSync reconcile(TenantId tenantId, SlotId slotId, int capacity, Collection<GateHolder> truth,
                              Instant now, Instant removeTakenBefore, Instant keepUntil) {
        return new GateSync(0, 0, false);
    }

    @Override
    public void clear(TenantId tenantId, SlotId slotId) {
    }

    @Override
    public Optional<GateView> inspect(TenantId tenantId, SlotId slotId, Instant now) {
        return Optional.empty();
    }

    @Override
    public String toString() {
        return "SeatReservation.none()";
    }
}
