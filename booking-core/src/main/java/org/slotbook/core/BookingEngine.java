package org.slotbook.core;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slotbook.core.internal.Checks;
import org.slotbook.core.spi.ConflictDetector;
import org.slotbook.core.spi.DuplicateBookingException;
import org.slotbook.core.spi.GateDecision;
import org.slotbook.core.spi.GateHolder;
import org.slotbook.core.spi.GateSync;
import org.slotbook.core.spi.NewBooking;
import org.slotbook.core.spi.Occupation;
import org.slotbook.core.spi.SeatClaim;
import org.slotbook.core.spi.SeatCount;
import org.slotbook.core.spi.SeatLedger;
import org.slotbook.core.spi.SeatReservation;
import org.slotbook.core.spi.StoreTransaction;

/**
 * Schedules sessions and sells their seats without overselling, without double-booking a coach,
 * room or student, and with idempotent cancels. Thread-safe; build one per application and share it.
 *
 * <pre>{@code
 * BookingEngine engine = BookingEngine.builder()
 *     .ledger(store.ledger())          // required: the source of truth
 *     .conflicts(store.conflicts())    // required: same store as the ledger
 *     .reservation(gate)               // optional fast gate (Redis)
 *     .build();
 * }</pre>
 *
 * <h2>The hold path</h2>
 * <ol>
 *   <li>The gate takes a seat in one round trip. {@code FULL} answers {@link Full} without touching
 *       the database; {@code DUPLICATE} is answered from the ledger (a replay or
 *       {@link AlreadyBooked}), or, when the ledger has no live booking behind it (a crash between
 *       gate and commit), released and tried once more; {@code UNAVAILABLE} goes on without the gate.</li>
 *   <li>One ledger transaction: lock the student, check his overlapping occupations, claim a free
 *       (or expired) seat by a conditional write, write booking and occupation; commit.</li>
 *   <li>Whenever step 2 refuses or fails, the gate hold of step 1 is released.</li>
 * </ol>
 * The gate never decides alone that a seat is sold: the ledger's constraints are the judge.
 */
public final class BookingEngine {
    private static final Logger LOG = LoggerFactory.getLogger(BookingEngine.class);
    private static final Duration GATE_LOG_INTERVAL = Duration.ofSeconds(10);
    private static final Duration GATE_KEY_MARGIN = Duration.ofHours(1);
    private static final int RECONCILE_PAGE = 200;
    private static final long REBUILD_WAIT_MILLIS = 5_000;

    private final SeatLedger ledger;
    private final ConflictDetector conflicts;
    private final SeatReservation gate;
    private final boolean gated;
    private final HoldPolicy policy;
    private final Clock clock;
    private final Duration maxSessionDuration;
    private final BookingListener listener;

    private final LongAdder gateFull = new LongAdder();
    private final LongAdder gateHeldLedgerRefused = new LongAdder();
    private final LongAdder gateUnavailable = new LongAdder();
    private final LongAdder gateOrphansReleased = new LongAdder();
    private final LongAdder gateRebuilds = new LongAdder();
    private final AtomicLong lastGateLog = new AtomicLong(Long.MIN_VALUE);
    private final ConcurrentHashMap<String, CompletableFuture<Void>> rebuilding = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, Long> rebuiltAtNanos = new ConcurrentHashMap<>();

    private BookingEngine(Builder b) {
        this.ledger = Checks.notNull("ledger", b.ledger);
        this.conflicts = Checks.notNull("conflicts", b.conflicts);
        this.gate = b.reservation == null ? SeatReservation.none() : b.reservation;
        this.gated = this.gate != SeatReservation.none();
        this.policy = b.holdPolicy;
        this.clock = b.clock;
        this.maxSessionDuration = b.maxSessionDuration;
        this.listener = b.listener;
    }

    public static Builder builder() {
        return new Builder();
    }

    // ------------------------------------------------------------------ schedule

    /**
     * Schedules a session: the coach and the room are checked for overlapping sessions and reserved,
     * and {@code capacity} seats are created, in one transaction. Scheduling the same spec again
     * answers {@link Scheduled} with the stored slot; the same slot id with another spec is refused.
     */
    public ScheduleResult schedule(TenantId tenantId, SlotSpec spec) {
        Checks.notNull("tenantId", tenantId);
        Checks.notNull("spec", spec);
        if (spec.time().duration().compareTo(maxSessionDuration) > 0) {
            throw new IllegalArgumentException("time: a session of " + spec.time().duration()
                    + " is longer than maxSessionDuration " + maxSessionDuration + " (slotId '" + spec.slotId() + "')");
        }
        ScheduleResult result = ledger.inTransaction(tenantId, tx -> {
            List<ResourceRef> resources = List.of(ResourceRef.of(spec.coachId()), ResourceRef.of(spec.roomId()));
            conflicts.lock(tx, resources);
            Optional<Slot> existing = ledger.findSlot(tx, spec.slotId());
            if (existing.isPresent()) {
                return new Scheduled(sameSpecOrThrow(existing.get(), spec));
            }
            List<ResourceConflict> clashes = conflicts.occupy(tx,
                    new Occupation(resources, spec.time(), spec.slotId(), null), maxSessionDuration);
            if (!clashes.isEmpty()) {
                tx.setRollbackOnly();
                return new Conflict(clashes);
            }
            Slot slot = Slot.open(tenantId, spec);
            if (!ledger.insertSlot(tx, slot)) {
                tx.setRollbackOnly();
                Slot other = ledger.findSlot(tx, spec.slotId()).orElseThrow(() -> new BookingStoreException(
                        "slot '" + spec.slotId() + "' could be neither inserted nor found"));
                return new Scheduled(sameSpecOrThrow(other, spec));
            }
            return new Scheduled(slot);
        });
        if (result instanceof Scheduled scheduled && gated) {
            Slot slot = scheduled.slot();
            gateCall("initialize", () -> gate.initialize(tenantId, slot.slotId(), slot.capacity(), keepUntil(slot)));
        }
        return result;
    }

    private static Slot sameSpecOrThrow(Slot stored, SlotSpec spec) {
        if (!stored.matches(spec)) {
            throw new IllegalArgumentException("slotId '" + spec.slotId() + "' is already scheduled as coach '"
                    + stored.coachId() + "', room '" + stored.roomId() + "', time " + stored.time() + ", capacity "
                    + stored.capacity() + "; refusing a different spec " + spec);
        }
        return stored;
    }

    // ------------------------------------------------------------------ hold / book

    /**
     * Holds a seat for the student until the hold policy's TTL runs out; {@link #confirm} makes it
     * final. Idempotent per request id.
     */
    public HoldResult hold(TenantId tenantId, HoldRequest request) {
        return acquire(tenantId, request, BookingStatus.HELD);
    }

    /** Hold and confirm in one step. Idempotent per request id. */
    public HoldResult book(TenantId tenantId, HoldRequest request) {
        return acquire(tenantId, request, BookingStatus.CONFIRMED);
    }

    private HoldResult acquire(TenantId tenantId, HoldRequest request, BookingStatus status) {
        Checks.notNull("tenantId", tenantId);
        Checks.notNull("request", request);
        Instant now = now();
        Instant heldUntil = now.plus(policy.holdTtl());
        boolean gateHeld = false;
        gateLoop:
        for (int attempt = 0; gated && attempt < 2; attempt++) {
            long askedAt = System.nanoTime();
            GateDecision decision = tryGate(tenantId, request, now);
            switch (decision.outcome()) {
                case FULL:
                    gateFull.increment();
                    return new Full(request.slotId());
                case HELD:
                    gateHeld = true;
                    break gateLoop;
                case DUPLICATE: {
                    HoldResult answer = answerFromLedger(tenantId, request, now);
                    if (answer != null) {
                        return answer;
                    }
                    // The gate holds a seat for this student that no live booking backs: an orphan.
                    gateOrphansReleased.increment();
                    gateCall("release", () -> gate.release(tenantId, request.slotId(), request.studentId(),
                            decision.heldUnder()));
                    continue gateLoop;
                }
                case MISSING:
                    if (attempt == 0) {
                        rebuildGate(tenantId, request.slotId(), askedAt);
                        continue gateLoop;
                    }
                    break gateLoop;
                case UNAVAILABLE:
                    gateUnavailable.increment();
                    logGate("tryHold", null);
                    break gateLoop;
                case CLOSED:
                default:
                    break gateLoop;
            }
        }

        Outcome<HoldResult> outcome;
        try {
            outcome = holdInLedger(tenantId, request, status, now, heldUntil, gateHeld);
        } catch (RuntimeException e) {
            if (gateHeld) {
                Held committed = committedDespite(tenantId, request, e);
                if (committed != null) {
                    // The commit went through and only its acknowledgement was lost: keep the gate
                    // hold and give the caller the booking it has.
                    return committed;
                }
                gateCall("release", () -> gate.release(tenantId, request.slotId(), request.studentId(),
                        request.requestId()));
            }
            throw e;
        }
        HoldResult result = outcome.result();
        if (gateHeld) {
            Booking backing = backingBooking(result, request.studentId(), now);
            if (backing == null) {
                if (result instanceof Full) {
                    gateHeldLedgerRefused.increment();
                }
                gateCall("release", () -> gate.release(tenantId, request.slotId(), request.studentId(),
                        request.requestId()));
            } else if (backing.status() == BookingStatus.CONFIRMED) {
                gateCall("confirm", () -> gate.confirm(tenantId, request.slotId(), request.studentId(),
                        request.requestId()));
            }
        }
        outcome.publish();
        return result;
    }

    /**
     * After a ledger failure whose outcome is unknown (a connection lost around the commit): the
     * request's booking if it was committed after all, else null. A ledger that cannot answer counts
     * as "not committed", so an outage never leaves gate holds behind.
     */
    private Held committedDespite(TenantId tenantId, HoldRequest request, RuntimeException failure) {
        if (failure instanceof IllegalArgumentException) {
            return null;
        }
        try {
            Booking stored = ledger.inTransaction(tenantId, tx -> {
                tx.setRollbackOnly();
                return ledger.findByRequest(tx, request.requestId()).orElse(null);
            });
            if (stored != null && stored.slotId().equals(request.slotId())
                    && stored.studentId().equals(request.studentId())) {
                LOG.info("Hold {} was committed although the ledger reported {}; answering it", request.requestId(),
                        failure.toString());
                return new Held(stored, true);
            }
        } catch (RuntimeException checkFailed) {
            failure.addSuppressed(checkFailed);
        }
        return null;
    }

    /** The live booking of this student that a gate hold stands for, or null when the gate hold must go. */
    private static Booking backingBooking(HoldResult result, StudentId student, Instant now) {
        Booking booking = null;
        if (result instanceof Held held) {
            booking = held.booking();
        } else if (result instanceof AlreadyBooked already) {
            booking = already.existing();
        }
        return booking != null && booking.studentId().equals(student) && booking.isLive(now) ? booking : null;
    }

    private Outcome<HoldResult> holdInLedger(TenantId tenantId, HoldRequest request, BookingStatus status,
                                             Instant now, Instant heldUntil, boolean gateHeld) {
        try {
            return ledger.inTransaction(tenantId, tx -> holdInTx(tx, request, status, now, heldUntil, gateHeld));
        } catch (DuplicateBookingException e) {
            // A unique key stopped a concurrent duplicate; answer from what is stored now.
            HoldResult answer = answerFromLedger(tenantId, request, now);
            if (answer != null) {
                return new Outcome<>(answer, List.of());
            }
            return ledger.inTransaction(tenantId, tx -> holdInTx(tx, request, status, now, heldUntil, gateHeld));
        }
    }

    /**
     * The ledger step of a hold. {@code gateHeld}: the gate already found a seat, so the cheap
     * full-slot pre-check would be a wasted round trip; without a gate it spares a full slot's
     * refusals every lock and write.
     */
    private Outcome<HoldResult> holdInTx(StoreTransaction tx, HoldRequest request, BookingStatus status,
                                         Instant now, Instant heldUntil, boolean gateHeld) {
        Optional<Slot> found = ledger.findSlot(tx, request.slotId());
        if (found.isEmpty()) {
            return new Outcome<>(new NotFound(), List.of());
        }
        Slot slot = found.get();
        if (slot.status() != SlotStatus.OPEN || !now.isBefore(slot.time().end())) {
            Optional<Booking> replay = ledger.findByRequest(tx, request.requestId());
            if (replay.isPresent()) {
                return new Outcome<>(new Held(samePayloadOrThrow(replay.get(), request), true), List.of());
            }
            return new Outcome<>(new SlotNotOpen(slot.slotId(), slot.status()), List.of());
        }
        if (!gateHeld && !ledger.hasFreeSeat(tx, slot.slotId(), now)) {
            // Full by committed seats: answer without locking anything, unless this request (or
            // this student) already has its seat.
            tx.setRollbackOnly();
            Optional<Booking> replay = ledger.findByRequest(tx, request.requestId());
            if (replay.isPresent()) {
                return new Outcome<>(new Held(samePayloadOrThrow(replay.get(), request), true), List.of());
            }
            Optional<Booking> mine = ledger.findActive(tx, slot.slotId(), request.studentId());
            if (mine.isPresent() && mine.get().isLive(now)) {
                return new Outcome<>(new AlreadyBooked(mine.get()), List.of());
            }
            return new Outcome<>(new Full(slot.slotId()), List.of());
        }
        // Everything about this student is decided under his lock: a retry of the same request
        // running concurrently sees the first attempt's committed booking here.
        ResourceRef student = ResourceRef.of(request.studentId());
        conflicts.lock(tx, List.of(student));
        Optional<Booking> replay = ledger.findByRequest(tx, request.requestId());
        if (replay.isPresent()) {
            return new Outcome<>(new Held(samePayloadOrThrow(replay.get(), request), true), List.of());
        }
        List<Event> events = new ArrayList<>(2);
        Optional<Booking> active = ledger.findActive(tx, slot.slotId(), request.studentId());
        if (active.isPresent()) {
            Booking existing = active.get();
            if (existing.isLive(now)) {
                return new Outcome<>(new AlreadyBooked(existing), List.of());
            }
            // The student's own earlier hold ran out: retire it before taking a new seat.
            if (ledger.expire(tx, existing.bookingId(), now)) {
                conflicts.releaseBooking(tx, existing.bookingId());
                events.add(new Event(EventKind.EXPIRED, existing.with(BookingStatus.EXPIRED, now)));
            }
        }
        BookingId bookingId = BookingId.random();
        List<ResourceConflict> clashes = conflicts.occupy(tx,
                new Occupation(List.of(student), slot.time(), slot.slotId(), bookingId), maxSessionDuration);
        if (!clashes.isEmpty()) {
            tx.setRollbackOnly();
            return new Outcome<>(new Conflict(clashes), List.of());
        }
        Optional<SeatClaim> claim = ledger.claimSeat(tx,
                new NewBooking(bookingId, request.requestId(), slot.slotId(), request.studentId(), status, heldUntil),
                now);
        if (claim.isEmpty()) {
            tx.setRollbackOnly();
            return new Outcome<>(new Full(slot.slotId()), List.of());
        }
        Optional<BookingId> displaced = claim.get().displaced();
        if (displaced.isPresent()) {
            conflicts.releaseBooking(tx, displaced.get());
            if (listener != BookingListener.NONE) {
                ledger.findBooking(tx, displaced.get()).ifPresent(b -> events.add(new Event(EventKind.EXPIRED, b)));
            }
        }
        Booking booking = claim.get().booking();
        events.add(new Event(status == BookingStatus.CONFIRMED ? EventKind.CONFIRMED : EventKind.HELD, booking));
        return new Outcome<>(new Held(booking, false), events);
    }

    /**
     * What the ledger says about a request the gate (or a unique key) found to be a duplicate: a
     * replay of the same request, the student's live booking under another request, or null when
     * nothing live backs it.
     */
    private HoldResult answerFromLedger(TenantId tenantId, HoldRequest request, Instant now) {
        return ledger.inTransaction(tenantId, tx -> {
            tx.setRollbackOnly();
            Optional<Booking> replay = ledger.findByRequest(tx, request.requestId());
            if (replay.isPresent()) {
                return new Held(samePayloadOrThrow(replay.get(), request), true);
            }
            Optional<Booking> active = ledger.findActive(tx, request.slotId(), request.studentId());
            if (active.isPresent() && active.get().isLive(now)) {
                Booking existing = active.get();
                if (existing.requestId().equals(request.requestId())) {
                    // the same request committed between the two reads: a replay, not a second booking
                    return new Held(existing, true);
                }
                return new AlreadyBooked(existing);
            }
            return null;
        });
    }

    private static Booking samePayloadOrThrow(Booking stored, HoldRequest request) {
        if (!stored.slotId().equals(request.slotId()) || !stored.studentId().equals(request.studentId())) {
            throw new IllegalArgumentException("requestId '" + request.requestId() + "' was already used for slot '"
                    + stored.slotId() + "' and student '" + stored.studentId() + "'; refusing it for slot '"
                    + request.slotId() + "' and student '" + request.studentId() + "'");
        }
        return stored;
    }

    // ------------------------------------------------------------------ confirm / cancel

    /**
     * Confirms the student's hold. Succeeds iff the ledger says the hold is live at the engine's
     * clock ({@code now < heldUntil}); at or after {@code heldUntil} the hold expires here and its seat
     * goes back. A repeated confirm answers {@link Confirmed} again.
     */
    public ConfirmResult confirm(TenantId tenantId, BookingId bookingId, StudentId studentId) {
        Checks.notNull("tenantId", tenantId);
        Checks.notNull("bookingId", bookingId);
        Checks.notNull("studentId", studentId);
        Instant now = now();
        Outcome<ConfirmResult> outcome = ledger.inTransaction(tenantId, tx -> {
            for (int attempt = 0; attempt < 2; attempt++) {
                Optional<Booking> found = ledger.findBooking(tx, bookingId);
                if (found.isEmpty() || !found.get().studentId().equals(studentId)) {
                    return new Outcome<ConfirmResult>(new NotFound(), List.of());
                }
                Booking b = found.get();
                switch (b.status()) {
                    case CONFIRMED:
                        return new Outcome<>(new Confirmed(b), List.of());
                    case CANCELLED:
                        return new Outcome<>(new AlreadyCancelled(), List.of());
                    case EXPIRED:
                        return new Outcome<>(new HoldExpired(b), List.of());
                    case HELD:
                    default:
                        if (now.isBefore(b.heldUntil())) {
                            if (ledger.confirm(tx, bookingId, now)) {
                                Booking confirmed = b.with(BookingStatus.CONFIRMED, now);
                                return new Outcome<>(new Confirmed(confirmed),
                                        List.of(new Event(EventKind.CONFIRMED, confirmed)));
                            }
                        } else if (ledger.expire(tx, bookingId, now)) {
                            conflicts.releaseBooking(tx, bookingId);
                            Booking expired = b.with(BookingStatus.EXPIRED, now);
                            return new Outcome<>(new HoldExpired(expired),
                                    List.of(new Event(EventKind.EXPIRED, expired)));
                        }
                        // Changed under us (a concurrent cancel or expiry): read it again.
                }
            }
            throw new BookingStoreException("booking '" + bookingId + "' changed state twice during confirm");
        });
        ConfirmResult result = outcome.result();
        for (Event e : outcome.events()) {
            Booking b = e.booking();
            if (e.kind() == EventKind.CONFIRMED) {
                gateCall("confirm", () -> gate.confirm(tenantId, b.slotId(), b.studentId(), b.requestId()));
            } else if (e.kind() == EventKind.EXPIRED) {
                gateCall("release", () -> gate.release(tenantId, b.slotId(), b.studentId(), b.requestId()));
            }
        }
        outcome.publish();
        return result;
    }

    /**
     * Cancels the student's booking and gives its seat back. Idempotent: every repeat (a retried
     * request, a redelivered message, ten concurrent deliveries) answers {@link AlreadyCancelled}
     * and changes nothing. Another student's or tenant's booking answers {@link NotFound}.
     */
    public CancelResult cancel(TenantId tenantId, BookingId bookingId, StudentId studentId) {
        Checks.notNull("tenantId", tenantId);
        Checks.notNull("bookingId", bookingId);
        Checks.notNull("studentId", studentId);
        Instant now = now();
        Outcome<CancelResult> outcome = ledger.inTransaction(tenantId, tx -> {
            Optional<Booking> found = ledger.findBooking(tx, bookingId);
            if (found.isEmpty() || !found.get().studentId().equals(studentId)) {
                return new Outcome<CancelResult>(new NotFound(), List.of());
            }
            Booking b = found.get();
            if (!b.status().isActive()) {
                return new Outcome<>(new AlreadyCancelled(), List.of());
            }
            if (b.status() == BookingStatus.HELD && !now.isBefore(b.heldUntil())) {
                // The hold already ran out: nothing to cancel, but retire it now.
                if (ledger.expire(tx, bookingId, now)) {
                    conflicts.releaseBooking(tx, bookingId);
                    Booking expired = b.with(BookingStatus.EXPIRED, now);
                    return new Outcome<>(new AlreadyCancelled(), List.of(new Event(EventKind.EXPIRED, expired)));
                }
                return new Outcome<>(new AlreadyCancelled(), List.of());
            }
            if (!ledger.cancel(tx, bookingId, now)) {
                return new Outcome<>(new AlreadyCancelled(), List.of());
            }
            conflicts.releaseBooking(tx, bookingId);
            Booking cancelled = b.with(BookingStatus.CANCELLED, now);
            return new Outcome<>(new Cancelled(cancelled), List.of(new Event(EventKind.CANCELLED, cancelled)));
        });
        for (Event e : outcome.events()) {
            Booking b = e.booking();
            gateCall("release", () -> gate.release(tenantId, b.slotId(), b.studentId(), b.requestId()));
        }
        outcome.publish();
        return outcome.result();
    }

    /**
     * Calls a session off: the slot stops selling, every booking of it is cancelled, every seat and
     * every occupation (coach, room, students) released, and the gate's state for it dropped.
     * Idempotent: a repeat answers {@link AlreadyCancelled}.
     */
    public CancelSlotResult cancelSlot(TenantId tenantId, SlotId slotId) {
        Checks.notNull("tenantId", tenantId);
        Checks.notNull("slotId", slotId);
        Instant now = now();
        Outcome<CancelSlotResult> outcome = ledger.inTransaction(tenantId, tx -> {
            Optional<Slot> found = ledger.findSlot(tx, slotId);
            if (found.isEmpty()) {
                return new Outcome<CancelSlotResult>(new NotFound(), List.of());
            }
            if (found.get().status() == SlotStatus.CANCELLED) {
                return new Outcome<>(new AlreadyCancelled(), List.of());
            }
            List<BookingId> released = ledger.cancelSlot(tx, slotId, now);
            conflicts.releaseSlot(tx, slotId);
            List<Event> events = new ArrayList<>(released.size());
            if (listener != BookingListener.NONE) { // one read per booking, only for the listener
                for (BookingId id : released) {
                    ledger.findBooking(tx, id).ifPresent(b -> events.add(new Event(EventKind.CANCELLED, b)));
                }
            }
            return new Outcome<>(new SlotCancelled(found.get().withStatus(SlotStatus.CANCELLED), released.size()),
                    events);
        });
        if (outcome.result() instanceof SlotCancelled) {
            gateCall("close", () -> gate.close(tenantId, slotId,
                    keepUntil(((SlotCancelled) outcome.result()).slot())));
        }
        outcome.publish();
        return outcome.result();
    }

    // ------------------------------------------------------------------ reads and upkeep

    /**
     * Seats of the slot as the ledger sees them now: {@code remaining = capacity - live holds -
     * confirmed}.
     *
     * @throws IllegalArgumentException when the slot is not scheduled for this tenant
     */
    public Availability availability(TenantId tenantId, SlotId slotId) {
        Checks.notNull("tenantId", tenantId);
        Checks.notNull("slotId", slotId);
        Instant now = now();
        return ledger.inTransaction(tenantId, tx -> {
            tx.setRollbackOnly();
            Slot slot = ledger.findSlot(tx, slotId).orElseThrow(() -> new IllegalArgumentException(
                    "slotId '" + slotId + "' is not scheduled for tenant '" + tenantId + "'"));
            if (slot.status() == SlotStatus.CANCELLED) {
                return new Availability(slotId, slot.status(), slot.capacity(), 0, 0, 0);
            }
            SeatCount count = ledger.count(tx, slotId, now);
            return new Availability(slotId, slot.status(), slot.capacity(), count.held(), count.confirmed(),
                    Math.max(0, slot.capacity() - count.taken()));
        });
    }

    /**
     * Expires, in batches of {@code batchSize}, every HELD booking of the tenant whose hold ran out,
     * frees its seat and occupation, and tells the gate and the listener. Safe to run on several
     * nodes at once. Returns how many bookings this call expired.
     */
    public int sweepExpired(TenantId tenantId, int batchSize) {
        Checks.notNull("tenantId", tenantId);
        Checks.between("batchSize", batchSize, 1, 10_000);
        Instant now = now();
        int total = 0;
        while (true) {
            List<Booking> batch = ledger.inTransaction(tenantId, tx -> {
                List<Booking> due = ledger.expireDue(tx, now, batchSize);
                for (Booking b : due) {
                    conflicts.releaseBooking(tx, b.bookingId());
                }
                return due;
            });
            for (Booking b : batch) {
                gateCall("release", () -> gate.release(tenantId, b.slotId(), b.studentId(), b.requestId()));
                notifyListener(EventKind.EXPIRED, b.with(BookingStatus.EXPIRED, now));
            }
            total += batch.size();
            if (batch.size() < batchSize) {
                return total;
            }
        }
    }

    /**
     * Converges the gate's state of one slot to the ledger's truth: holders the ledger does not know
     * are removed (only when older than the policy's in-flight grace, so a hold whose transaction is
     * still running is never dropped), holders it has are added, the capacity corrected. A cancelled
     * slot's gate state is dropped. Without a gate this does nothing.
     */
    public ReconcileReport reconcile(TenantId tenantId, SlotId slotId) {
        Checks.notNull("tenantId", tenantId);
        Checks.notNull("slotId", slotId);
        if (!gated) {
            return ReconcileReport.EMPTY;
        }
        Instant now = now();
        Optional<SlotTruth> truth = ledger.inTransaction(tenantId, tx -> {
            tx.setRollbackOnly();
            return ledger.findSlot(tx, slotId).map(slot -> new SlotTruth(slot,
                    slot.status() == SlotStatus.OPEN ? ledger.liveBookings(tx, slotId, now) : List.of()));
        });
        return truth.map(t -> reconcileGate(tenantId, t, now)).orElse(ReconcileReport.EMPTY);
    }

    /**
     * {@link #reconcile(TenantId, SlotId)} for every slot of the tenant that has not ended, page by
     * page (bounded memory).
     */
    public ReconcileReport reconcileAll(TenantId tenantId) {
        Checks.notNull("tenantId", tenantId);
        if (!gated) {
            return ReconcileReport.EMPTY;
        }
        ReconcileReport report = ReconcileReport.EMPTY;
        SlotId after = null;
        while (true) {
            SlotId from = after;
            List<Slot> page = ledger.inTransaction(tenantId, tx -> {
                tx.setRollbackOnly();
                return ledger.slots(tx, from, RECONCILE_PAGE);
            });
            for (Slot slot : page) {
                if (now().isBefore(keepUntil(slot))) {
                    report = report.plus(reconcile(tenantId, slot.slotId()));
                }
            }
            if (page.size() < RECONCILE_PAGE) {
                return report;
            }
            after = page.get(page.size() - 1).slotId();
        }
    }

    private ReconcileReport reconcileGate(TenantId tenantId, SlotTruth truth, Instant now) {
        Slot slot = truth.slot();
        try {
            if (slot.status() == SlotStatus.CANCELLED) {
                gate.close(tenantId, slot.slotId(), keepUntil(slot));
                return new ReconcileReport(1, 0, 0, 0, 0);
            }
            List<GateHolder> holders = new ArrayList<>(truth.live().size());
            for (Booking b : truth.live()) {
                Instant expiresAt = b.status() == BookingStatus.CONFIRMED ? null
                        : b.heldUntil().plus(policy.cacheGrace());
                holders.add(new GateHolder(b.studentId(), b.requestId(), b.createdAt(), expiresAt));
            }
            GateSync sync = gate.reconcile(tenantId, slot.slotId(), slot.capacity(), holders,
                    policy.inFlightGrace(), keepUntil(slot));
            return new ReconcileReport(1, sync.added(), sync.removed(), sync.capacityFixed() ? 1 : 0, 0);
        } catch (RuntimeException e) {
            logGate("reconcile", e);
            return new ReconcileReport(1, 0, 0, 0, 1);
        }
    }

    /** Rebuilds a slot's missing gate state from the ledger, once however many requests found it missing. */
    private void rebuildGate(TenantId tenantId, SlotId slotId, long askedAt) {
        String key = tenantId.value() + '\u0000' + slotId.value();
        Long rebuiltAt = rebuiltAtNanos.get(key);
        if (rebuiltAt != null && rebuiltAt - askedAt > 0) {
            return; // rebuilt after this request asked the gate: just ask again
        }
        CompletableFuture<Void> mine = new CompletableFuture<>();
        CompletableFuture<Void> running = rebuilding.putIfAbsent(key, mine);
        if (running != null) {
            try {
                running.get(REBUILD_WAIT_MILLIS, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (Exception e) {
                // the rebuilding thread reports its own failure; go on
            }
            return;
        }
        try {
            Long since = rebuiltAtNanos.get(key);
            if (since != null && since - askedAt > 0) {
                return; // another thread rebuilt it between our check and our claim
            }
            gateRebuilds.increment();
            reconcile(tenantId, slotId);
        } finally {
            if (rebuiltAtNanos.size() > 10_000) {
                rebuiltAtNanos.clear();
            }
            rebuiltAtNanos.put(key, System.nanoTime());
            rebuilding.remove(key, mine);
            mine.complete(null);
        }
    }

    /** Counters since this engine was built. */
    public EngineMetrics metrics() {
        return new EngineMetrics(gateFull.sum(), gateHeldLedgerRefused.sum(), gateUnavailable.sum(),
                gateOrphansReleased.sum(), gateRebuilds.sum());
    }

    public HoldPolicy holdPolicy() {
        return policy;
    }

    public Clock clock() {
        return clock;
    }

    // ------------------------------------------------------------------ internals

    private Instant now() {
        return Checks.micros("clock.instant()", clock.instant());
    }

    private Instant keepUntil(Slot slot) {
        return slot.time().end().plus(policy.gateTtl()).plus(GATE_KEY_MARGIN);
    }

    private GateDecision tryGate(TenantId tenantId, HoldRequest request, Instant now) {
        try {
            GateDecision decision = gate.tryHold(tenantId, request.slotId(), request.studentId(), request.requestId(),
                    policy.gateTtl());
            return decision == null ? GateDecision.UNAVAILABLE : decision;
        } catch (RuntimeException e) {
            logGate("tryHold", e);
            return GateDecision.UNAVAILABLE;
        }
    }

    /** Runs a gate call whose failure must not fail the operation: the ledger already decided. */
    private void gateCall(String what, Runnable call) {
        if (!gated) {
            return;
        }
        try {
            call.run();
        } catch (RuntimeException e) {
            gateUnavailable.increment();
            logGate(what, e);
        }
    }

    private void logGate(String what, RuntimeException e) {
        long nowNanos = System.nanoTime();
        long last = lastGateLog.get();
        if (last != Long.MIN_VALUE && nowNanos - last < GATE_LOG_INTERVAL.toNanos()) {
            return;
        }
        if (lastGateLog.compareAndSet(last, nowNanos)) {
            LOG.warn("Seat gate unavailable during {} ({} calls went on without it so far); the database alone "
                    + "decides until it is back{}", what, gateUnavailable.sum(),
                    e == null ? "" : ": " + e, e);
        }
    }

    private void notifyListener(EventKind kind, Booking booking) {
        try {
            switch (kind) {
                case HELD -> listener.held(booking);
                case CONFIRMED -> listener.confirmed(booking);
                case CANCELLED -> listener.cancelled(booking);
                case EXPIRED -> listener.expired(booking);
                default -> throw new IllegalStateException("unknown event " + kind);
            }
        } catch (RuntimeException e) {
            LOG.warn("BookingListener threw on {} of booking {}; the booking stands", kind, booking.bookingId(), e);
        }
    }

    private enum EventKind { HELD, CONFIRMED, CANCELLED, EXPIRED }

    private record Event(EventKind kind, Booking booking) {
    }

    private record SlotTruth(Slot slot, List<Booking> live) {
    }

    /** A transaction's answer plus what to tell the listener once it committed. */
    private final class Outcome<R> {
        private final R result;
        private final List<Event> events;

        Outcome(R result, List<Event> events) {
            this.result = result;
            this.events = events;
        }

        R result() {
            return result;
        }

        List<Event> events() {
            return events;
        }

        void publish() {
            for (Event e : events) {
                notifyListener(e.kind(), e.booking());
            }
        }
    }

    /** Builds a {@link BookingEngine}; {@code ledger} and {@code conflicts} are required. */
    public static final class Builder {
        private SeatLedger ledger;
        private ConflictDetector conflicts;
        private SeatReservation reservation;
        private HoldPolicy holdPolicy = HoldPolicy.ofDefaults();
        private Clock clock = Clock.systemUTC();
        private Duration maxSessionDuration = Duration.ofHours(24);
        private BookingListener listener = BookingListener.NONE;

        private Builder() {
        }

        /** The source of truth (required). */
        public Builder ledger(SeatLedger ledger) {
            this.ledger = Checks.notNull("ledger", ledger);
            return this;
        }

        /** The conflict detector of the same store as the ledger (required). */
        public Builder conflicts(ConflictDetector conflicts) {
            this.conflicts = Checks.notNull("conflicts", conflicts);
            return this;
        }

        /** The optional fast gate; without it (or with {@link SeatReservation#none()}) the engine is DB-only. */
        public Builder reservation(SeatReservation reservation) {
            this.reservation = Checks.notNull("reservation", reservation);
            return this;
        }

        public Builder holdPolicy(HoldPolicy holdPolicy) {
            this.holdPolicy = Checks.notNull("holdPolicy", holdPolicy);
            return this;
        }

        /** The clock every decision uses (holds, confirms, expiry, reconcile). Default: UTC system clock. */
        public Builder clock(Clock clock) {
            this.clock = Checks.notNull("clock", clock);
            return this;
        }

        /**
         * The longest session {@link #schedule} accepts, default 24 hours. The conflict check looks
         * back this far, so lowering it while longer sessions are stored would hide their conflicts.
         */
        public Builder maxSessionDuration(Duration maxSessionDuration) {
            Checks.positive("maxSessionDuration", maxSessionDuration);
            if (maxSessionDuration.compareTo(Duration.ofDays(31)) > 0) {
                throw new IllegalArgumentException("maxSessionDuration must be at most 31 days, got "
                        + maxSessionDuration);
            }
            this.maxSessionDuration = maxSessionDuration;
            return this;
        }

        /** Told about holds, confirms, cancels and expiries after they committed. */
        public Builder listener(BookingListener listener) {
            this.listener = Checks.notNull("listener", listener);
            return this;
        }

        public BookingEngine build() {
            if (ledger == null) {
                throw new IllegalArgumentException("ledger must be set: the engine needs a SeatLedger");
            }
            if (conflicts == null) {
                throw new IllegalArgumentException("conflicts must be set: the engine needs a ConflictDetector");
            }
            return new BookingEngine(this);
        }
    }
}
