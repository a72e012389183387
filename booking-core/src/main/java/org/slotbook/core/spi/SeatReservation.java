package org.slotbook.core.spi;

import java.time.Instant;
import java.util.Collection;
import java.util.Optional;
import org.slotbook.core.RequestId;
import org.slotbook.core.SlotId;
import org.slotbook.core.StudentId;
import org.slotbook.core.TenantId;

/**
 * The optional fast gate in front of the ledger (Redis in production). It answers the flood — a full
 * slot costs one round trip and no database work — but never decides alone that a seat is sold: a
 * gate hold that the ledger refuses is released.
 *
 * <p>Per slot the gate keeps a capacity and a set of holders keyed by student, each with an expiry
 * (or pinned once confirmed). Remaining seats are derived, {@code capacity - live holders}; an
 * expired holder is reclaimed by the next {@link #tryHold} on that slot, with no sweeper.
 *
 * <p>Time comes from the caller ({@code now}), never from the gate's own clock, except for the
 * expiry of whole slots ({@code keepUntil}), which only bounds memory.
 *
 * <p>{@link #tryHold} reports an unreachable gate as {@link GateOutcome#UNAVAILABLE} within a
 * bounded time. The other methods may throw any {@link RuntimeException} on an infrastructure fault;
 * the engine then carries on as if the gate were absent, and reconciliation repairs it later.
 */
public interface SeatReservation {

    /** Takes a seat for the student until {@code expiresAt}, in one atomic step. */
    GateDecision tryHold(TenantId tenantId, SlotId slotId, StudentId studentId, RequestId requestId, Instant now,
                         Instant expiresAt);

    /** Pins the student's hold (no expiry): the booking is confirmed. No-op when the student holds nothing. */
    void confirm(TenantId tenantId, SlotId slotId, StudentId studentId);

    /** Removes the student's hold. Idempotent: true only for the call that removed it. */
    boolean release(TenantId tenantId, SlotId slotId, StudentId studentId);

    /**
     * Creates the slot's state with {@code capacity} and no holders, unless it exists: existing state
     * is never overwritten (a slot at 0 remaining stays at 0). {@code keepUntil} bounds its lifetime.
     */
    void initialize(TenantId tenantId, SlotId slotId, int capacity, Instant keepUntil);

    /**
     * Converges the slot's state to the ledger's {@code truth} in one atomic step, creating it when
     * missing: sets the capacity, adds the truth holders it lacks (and gives a holder it has the
     * truth's expiry, pinning confirmed ones), and removes holders that the truth does not name, but
     * only those taken before {@code removeTakenBefore} (a younger one may belong to a transaction
     * still in flight). {@code added} counts holders that were missing, not expiry updates.
     */
    GateSync reconcile(TenantId tenantId, SlotId slotId, int capacity, Collection<GateHolder> truth, Instant now,
                       Instant removeTakenBefore, Instant keepUntil);

    /** Drops all of the slot's state (the session was called off). */
    void clear(TenantId tenantId, SlotId slotId);

    /** The slot's capacity and live holders at {@code now}, or empty when the gate has no state for it. */
    Optional<GateView> inspect(TenantId tenantId, SlotId slotId, Instant now);

    /** A gate that holds nothing and sends every request to the ledger: DB-only mode. */
    static SeatReservation none() {
        return NoGate.INSTANCE;
    }
}
