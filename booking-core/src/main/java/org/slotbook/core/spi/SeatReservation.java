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

/**
 * The optional fast gate in front of the ledger (Redis in production). It answers the flood — a full
 * slot costs one round trip and no database work — but never decides alone that a seat is sold: a
 * gate hold that the ledger refuses is released.
 *
 * <p>Per slot the gate keeps a capacity and a set of holders keyed by student, each put there by one
 * request id, with an expiry (or pinned once confirmed). Remaining seats are derived,
 * {@code capacity - live holders}; an expired holder is reclaimed by a later {@link #tryHold} on
 * that slot, with no sweeper.
 *
 * <p><b>Time is the gate's own.</b> Hold expiries, "taken at" instants and liveness are read from the
 * gate's clock (Redis: {@code TIME} inside the script), never from the caller's, so callers whose
 * clocks drift apart cannot cut each other's holds short. The only instants a caller passes are
 * {@code keepUntil}, which bounds how long a slot's state (or its closed marker) is kept in memory.
 *
 * <p><b>Request ids.</b> {@link #confirm} and {@link #release} act on a student's holder only when
 * that holder was put there by the given request id: a late release of an old request never takes
 * away the seat a newer request of the same student holds. A release also leaves a tombstone of the
 * request id (kept as long as the slot's state), so a {@link #reconcile} working from a ledger read
 * taken before the release never puts the holder back. Every holder that leaves (released, expired,
 * replaced) leaves such a tombstone, so a retry on a full slot is told from a new request
 * ({@link GateOutcome#REPLAY}). {@link #transfer} gives a student's holder to the request the ledger
 * granted in one step; {@link #withdraw} takes back a refused bad request's holder leaving no trace.
 *
 * <p><b>Partial state.</b> A gate that keeps a slot's state in several entries which may be lost one
 * by one (a cache evicting keys) treats a partially present state as missing: {@link #tryHold}
 * answers {@link GateOutcome#MISSING}, so the engine rebuilds the state from the ledger.
 *
 * <p>{@link #tryHold} reports an unreachable gate as {@link GateOutcome#UNAVAILABLE} within a
 * bounded time. The other methods may throw any {@link RuntimeException} on an infrastructure fault;
 * the engine then carries on as if the gate were absent, and reconciliation repairs it later.
 */
public interface SeatReservation {

    /**
     * Takes a seat for the student for {@code ttl} (from the gate's clock), in one atomic step, which
     * decides in this order: the slot is closed → {@link GateOutcome#CLOSED}; the gate has no (or only
     * partial) state for it → {@link GateOutcome#MISSING}; the student already has a live holder →
     * {@link GateOutcome#DUPLICATE} naming that holder's request id (checked before the capacity, so a
     * retry of a held request is never answered full); the request's booking ended
     * ({@link #releaseEnded}) → {@link GateOutcome#REPLAY}; live holders reach the capacity →
     * {@link GateOutcome#REPLAY} when {@code requestId} has had a holder in this slot (every holder
     * that leaves the gate, released, expired, reclaimed or replaced, leaves a tombstone of its request
     * id, kept as long as the slot's state) or the student is marked (see {@link #release}), else
     * {@link GateOutcome#FULL}; else the holder is added,
     * expiring at gate now + {@code ttl} → {@link GateOutcome#HELD}. A refused hold writes nothing
     * but the reclaim of expired holders.
     *
     * @param tenantId the tenant whose data the call reads or changes
     * @param slotId the slot, by its id within the tenant
     * @param studentId the student the booking or entry belongs to
     * @param requestId the client's request id, which makes a repeat answer as the first call
     * @param ttl how long the hold lasts before it expires
     * @return the gate's decision: held, or why not
     */
    GateDecision tryHold(TenantId tenantId, SlotId slotId, StudentId studentId, RequestId requestId, Duration ttl);

    /**
     * The ledger granted {@code to} a live booking of the student while the gate holds the student's
     * seat under {@code from}, an earlier request whose booking is no longer live: in one atomic step the
     * holder becomes {@code to}'s (taken now, expiring at gate now + {@code ttl}), so there is no instant
     * at which the student holds nothing, and a late release of {@code from} finds nothing of its own.
     * {@code from} is recorded released in any case. When the student holds no live seat, takes one for
     * {@code to} as {@link #tryHold} would (ignoring the opening: the ledger decided). Answers
     * {@link GateOutcome#HELD} when the student's holder is {@code to}'s afterwards,
     * {@link GateOutcome#DUPLICATE} when a live holder of a third request holds it (left alone),
     * {@link GateOutcome#FULL}, {@link GateOutcome#MISSING} or {@link GateOutcome#CLOSED} as
     * {@link #tryHold} does.
     *
     * @param tenantId the tenant whose data the call reads or changes
     * @param slotId the slot, by its id within the tenant
     * @param studentId the student the booking or entry belongs to
     * @param from the earlier request whose holder is given away
     * @param to the request the ledger granted, which takes the holder
     * @param ttl how long the hold of {@code to} lasts before it expires
     * @return the gate's decision for {@code to}
     */
    default GateDecision transfer(TenantId tenantId, SlotId slotId, StudentId studentId, RequestId from,
                                  RequestId to, Duration ttl) {
        release(tenantId, slotId, studentId, from);
        GateDecision d = tryHold(tenantId, slotId, studentId, to, ttl);
        return d.outcome() == GateOutcome.DUPLICATE && to.equals(d.heldUnder()) ? GateDecision.HELD : d;
    }

    /**
     * Takes back the holder a {@link #tryHold} of {@code requestId} just put there, because the request
     * was refused as bad input (its id belongs to another slot or student): removes the student's holder
     * only when {@code requestId} put it there, and records nothing (no tombstone), so the refused
     * request leaves the slot's state as it found it. True when a holder was removed.
     *
     * @param tenantId the tenant whose data the call reads or changes
     * @param slotId the slot, by its id within the tenant
     * @param studentId the student the booking or entry belongs to
     * @param requestId the refused request's id
     * @return true when a holder was removed
     */
    default boolean withdraw(TenantId tenantId, SlotId slotId, StudentId studentId, RequestId requestId) {
        return release(tenantId, slotId, studentId, requestId);
    }

    /**
     * A mark on the gate's own clock for the slot, taken before the ledger read that a
     * {@link #reconcileFrom} brings; null when the gate keeps no such clock (the caller then passes
     * the read's age to {@link #reconcile(TenantId, SlotId, int, Instant, Collection, Duration, Duration,
     * Instant)}).
     *
     * @param tenantId the tenant whose data the call reads or changes
     * @param slotId the slot, by its id within the tenant
     * @return the mark, or null when the gate keeps no such clock
     */
    default @Nullable GateMark mark(TenantId tenantId, SlotId slotId) {
        return null;
    }

    /**
     * {@link #reconcile(TenantId, SlotId, int, Instant, Collection, Duration, Duration, Instant)} with the
     * truth dated on the gate's own clock: its read began after {@code readFrom} (a {@link #mark} of this
     * gate). A request released before the mark is in the truth only if the ledger still holds its
     * booking, so it is added back; one released at or after the mark is not. Holders the truth does
     * not name are removed only when taken {@code inFlightGrace} before the mark (a later one the read
     * could not know). By default, as with an unknown age: every released request stays out.
     *
     * @param tenantId the tenant whose data the call reads or changes
     * @param slotId the slot, by its id within the tenant
     * @param capacity the number of seats of the slot
     * @param opensAt when booking opens (null: open now)
     * @param truth the live holders according to the ledger
     * @param readFrom the mark taken before the ledger read of the truth began
     * @param inFlightGrace how long before the mark a holder the ledger does not know must have been taken
     *                      before it is removed, so a hold in flight survives
     * @param keepUntil when the gate may forget the slot's state (null: never on its own)
     * @return what the gate changed
     */
    default GateSync reconcileFrom(TenantId tenantId, SlotId slotId, int capacity, @Nullable Instant opensAt,
                                   Collection<GateHolder> truth, GateMark readFrom, Duration inFlightGrace,
                                   @Nullable Instant keepUntil) {
        return reconcile(tenantId, slotId, capacity, opensAt, truth, null, inFlightGrace, keepUntil);
    }

    /**
     * Pins the student's holder (no expiry: the booking is confirmed), but only when that holder was
     * put there by {@code requestId}. No-op otherwise.
     *
     * @param tenantId the tenant whose data the call reads or changes
     * @param slotId the slot, by its id within the tenant
     * @param studentId the student the booking or entry belongs to
     * @param requestId the client's request id, which makes a repeat answer as the first call
     */
    void confirm(TenantId tenantId, SlotId slotId, StudentId studentId, RequestId requestId);

    /**
     * Removes the student's holder, but only when it was put there by {@code requestId} (a student who
     * held again under a new request keeps the new hold). Records {@code requestId} as released in any
     * case, so {@link #reconcile} never adds it back. Idempotent: true only for the call that removed
     * the holder. A call that removes the holder marks the student: another delivery of the request, or
     * a newer request of the student, may be granted by the ledger meanwhile, its seat taken again only
     * after this release (a re-count, a {@link #transfer}); until then the student holds a live booking
     * and no seat here, so on a full slot {@link #tryHold} answers the student
     * {@link GateOutcome#REPLAY} (the ledger answers AlreadyBooked, or Full), never
     * {@link GateOutcome#FULL}. A {@link #transfer} that finds no seat marks the student too.
     *
     * @param tenantId the tenant whose data the call reads or changes
     * @param slotId the slot, by its id within the tenant
     * @param studentId the student the booking or entry belongs to
     * @param requestId the client's request id, which makes a repeat answer as the first call
     * @return true when this call removed the holder
     */
    boolean release(TenantId tenantId, SlotId slotId, StudentId studentId, RequestId requestId);

    /**
     * The request's booking ended (cancelled or expired in the ledger): releases as {@link #release}
     * does, and records the request as ended, for good (a request is granted at most one booking ever).
     * The gate then never takes a seat for it again: {@link #tryHold} of it answers
     * {@link GateOutcome#REPLAY} (the ledger answers the ended booking), {@link #transfer} to it takes
     * none (answering {@link GateOutcome#REPLAY}, the student's holder left as it is), and a reconcile
     * never adds it back from a ledger read that predates its end. So a late re-count or transfer of a
     * cancelled booking, arriving after its release, never leaves a seat behind that nothing backs. The
     * student is marked as by {@link #release}, holder or not. By default, {@link #release}.
     *
     * @param tenantId the tenant whose data the call reads or changes
     * @param slotId the slot, by its id within the tenant
     * @param studentId the student the booking belongs to
     * @param requestId the request whose booking ended
     * @return true when this call removed the holder
     */
    default boolean releaseEnded(TenantId tenantId, SlotId slotId, StudentId studentId, RequestId requestId) {
        return release(tenantId, slotId, studentId, requestId);
    }

    /**
     * Creates the slot's state with {@code capacity} and no holders, unless it exists (even partly) or
     * the slot is closed: existing state is never overwritten (a slot at 0 remaining stays at 0).
     * {@code keepUntil} bounds its lifetime (null: kept until closed).
     *
     * @param tenantId the tenant whose data the call reads or changes
     * @param slotId the slot, by its id within the tenant
     * @param capacity the number of seats of the slot
     * @param keepUntil when the gate may forget the slot's state (null: never on its own)
     */
    void initialize(TenantId tenantId, SlotId slotId, int capacity, @Nullable Instant keepUntil);

    /**
     * How far ahead of a slot's booking window the gate already lets requests through to the store,
     * which decides the opening by its own clock: the gate's and the database's clocks may differ by
     * this much without a request being refused early by the gate.
     */
    Duration OPENING_TOLERANCE = Duration.ofSeconds(1);

    /**
     * {@link #initialize(TenantId, SlotId, int, Instant)} for a slot whose booking opens at
     * {@code opensAt} (null: open now): until {@code opensAt - OPENING_TOLERANCE} by the gate's clock,
     * {@link #tryHold} answers {@link GateOutcome#NOT_OPEN} (after CLOSED and MISSING), so a flood that
     * comes early costs no database work. A gate without windows ignores {@code opensAt}: the store
     * refuses early requests anyway.
     *
     * @param tenantId the tenant whose data the call reads or changes
     * @param slotId the slot, by its id within the tenant
     * @param capacity the number of seats of the slot
     * @param opensAt when booking opens (null: open now)
     * @param keepUntil when the gate may forget the slot's state (null: never on its own)
     */
    default void initialize(TenantId tenantId, SlotId slotId, int capacity, @Nullable Instant opensAt,
                            @Nullable Instant keepUntil) {
        initialize(tenantId, slotId, capacity, keepUntil);
    }

    /**
     * {@link #reconcile(TenantId, SlotId, int, Collection, Duration, Instant)}, setting the opening as
     * well, and knowing how fresh the truth is: {@code truthAge} is how long before this call the caller
     * began reading {@code truth} from the ledger (null: unknown). A request released before that read
     * began is in the truth only if the ledger still holds its booking (another delivery of the same
     * request was granted after the release), so it is added back; one released later is not (the read
     * may predate the release). With {@code truthAge} null every released request stays out.
     *
     * @param tenantId the tenant whose data the call reads or changes
     * @param slotId the slot, by its id within the tenant
     * @param capacity the number of seats of the slot
     * @param opensAt when booking opens (null: open now)
     * @param truth the live holders according to the ledger
     * @param truthAge how old the ledger read of the truth is (null: unknown)
     * @param inFlightGrace how old a holder the ledger does not know must be before it is removed, so a hold in
     *                      flight survives
     * @param keepUntil when the gate may forget the slot's state (null: never on its own)
     * @return what the gate changed
     */
    default GateSync reconcile(TenantId tenantId, SlotId slotId, int capacity, @Nullable Instant opensAt,
                               Collection<GateHolder> truth, @Nullable Duration truthAge, Duration inFlightGrace,
                               @Nullable Instant keepUntil) {
        return reconcile(tenantId, slotId, capacity, truth, inFlightGrace, keepUntil);
    }

    /**
     * Converges the slot's state to the ledger's {@code truth} in one atomic step, creating it when
     * missing (or only partly present). A closed slot is never resurrected: the call does nothing and
     * returns {@code GateSync(0, 0, false)}. Otherwise it sets the capacity; adds the truth holders it
     * lacks, except those whose request id was released since (tombstoned) and those that are no
     * longer live by the gate's clock; pins the truth holders that are confirmed
     * ({@code expiresAt == null}); never un-pins a holder nor shortens its expiry; and removes holders
     * that the truth does not name (same student and request id) only when they were taken more than
     * {@code inFlightGrace} ago by the gate's clock (a younger one may belong to a transaction still
     * in flight). {@code added} counts holders that were missing, not expiry updates; {@code capacityFixed}
     * also when the opening changed.
     *
     * @param tenantId the tenant whose data the call reads or changes
     * @param slotId the slot, by its id within the tenant
     * @param capacity the number of seats of the slot
     * @param truth the live holders according to the ledger
     * @param inFlightGrace how old a holder the ledger does not know must be before it is removed, so a hold in
     *                      flight survives
     * @param keepUntil when the gate may forget the slot's state (null: never on its own)
     * @return what the gate changed
     */
    GateSync reconcile(TenantId tenantId, SlotId slotId, int capacity, Collection<GateHolder> truth,
                       Duration inFlightGrace, @Nullable Instant keepUntil);

    /**
     * The slot was called off: drops its holders and leaves a closed marker until {@code keepUntil}
     * (null: until the gate loses it), so {@link #tryHold} answers {@link GateOutcome#CLOSED} and
     * {@link #initialize} and {@link #reconcile} do not recreate it. Idempotent.
     *
     * @param tenantId the tenant whose data the call reads or changes
     * @param slotId the slot, by its id within the tenant
     * @param keepUntil when the gate may forget the slot's state (null: never on its own)
     */
    void close(TenantId tenantId, SlotId slotId, @Nullable Instant keepUntil);

    /**
     * The slot's capacity and live holders by the gate's clock, or empty when the gate has no (or only
     * partial) state for it, or the slot is closed.
     *
     * @param tenantId the tenant whose data the call reads or changes
     * @param slotId the slot, by its id within the tenant
     * @return the slot's state, or empty
     */
    Optional<GateView> inspect(TenantId tenantId, SlotId slotId);

    /** {@return a gate that holds nothing and sends every request to the ledger: DB-only mode} */
    static SeatReservation none() {
        return NoGate.INSTANCE;
    }
}
