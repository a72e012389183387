package org.slotbook.core.internal.engine;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slotbook.core.AlreadyBooked;
import org.slotbook.core.Booking;
import org.slotbook.core.BookingId;
import org.slotbook.core.BookingRules;
import org.slotbook.core.BookingStatus;
import org.slotbook.core.BookingStoreException;
import org.slotbook.core.Full;
import org.slotbook.core.Held;
import org.slotbook.core.HoldPolicy;
import org.slotbook.core.HoldRequest;
import org.slotbook.core.HoldResult;
import org.slotbook.core.NoLongerHeld;
import org.slotbook.core.NotOpenYet;
import org.slotbook.core.RequestId;
import org.slotbook.core.RequestIdReusedException;
import org.slotbook.core.SeriesBooking;
import org.slotbook.core.SeriesId;
import org.slotbook.core.SeriesMode;
import org.slotbook.core.SeriesSpec;
import org.slotbook.core.Slot;
import org.slotbook.core.SlotId;
import org.slotbook.core.SlotSpec;
import org.slotbook.core.StudentId;
import org.slotbook.core.TenantId;
import org.slotbook.core.WaitlistEntry;
import org.slotbook.core.Waitlisted;
import org.slotbook.core.spi.BookingEvent;
import org.slotbook.core.spi.BookingStore;
import org.slotbook.core.spi.DuplicateBookingException;
import org.slotbook.core.spi.GateDecision;
import org.slotbook.core.spi.GateOutcome;
import org.slotbook.core.spi.HoldCommand;
import org.slotbook.core.spi.SeatReservation;
import org.slotbook.core.spi.StoreOutcome;

/**
 * The hot path of {@code BookingEngine.hold} and {@code BookingEngine.book}: the gate, one store
 * call, and the gate hold given back whenever the store did not grant this request a live booking.
 */
public final class HoldFlow {
    private static final Logger LOG = LoggerFactory.getLogger(EngineLog.CATEGORY);

    private final BookingStore store;
    private final GateGuard guard;
    private final Reconciler reconciler;
    private final EngineClock clock;
    private final HoldPolicy policy;
    private final Duration longestSession;
    private final Events events;
    private final Function<TenantId, BookingRules> rules;

    public HoldFlow(BookingStore store, GateGuard guard, Reconciler reconciler, EngineClock clock, HoldPolicy policy,
             Duration longestSession, Events events, Function<TenantId, BookingRules> rules) {
        this.rules = rules;
        this.store = store;
        this.guard = guard;
        this.reconciler = reconciler;
        this.clock = clock;
        this.policy = policy;
        this.longestSession = longestSession;
        this.events = events;
    }

    public HoldResult acquire(TenantId tenantId, HoldRequest request, BookingStatus status) {
        boolean gateHeld = false;
        boolean gateUnsure = false;
        // the gate answered FULL or REPLAY: it holds no seat for the student
        boolean gateNoSeat = false;
        boolean gateReplay = false;
        RequestId heldUnder = null;
        long askedAt = 0;
        for (int attempt = 0; attempt < 2 && guard.present(); attempt++) {
            askedAt = System.nanoTime();
            GateDecision decision = guard.tryHold(tenantId, request, policy.gateTtl());
            switch (decision.outcome()) {
                case FULL -> {
                    guard.full.increment();
                    if (!request.waitlist()) {
                        return new Full(request.slotId());
                    }
                    // full: the store puts the student on the waitlist
                    gateNoSeat = true;
                }
                // full, but this request id has had a holder here: a retry, which the store answers
                case REPLAY -> {
                    gateNoSeat = true;
                    gateReplay = true;
                }
                case HELD -> gateHeld = true;
                case NOT_OPEN -> {
                    if (!clock.explicit()) {
                        return new NotOpenYet(request.slotId(), decision.opensAt());
                    }
                    // an explicit clock decides the opening; the gate's own clock does not
                }
                case DUPLICATE -> heldUnder = decision.heldUnder();
                case MISSING -> {
                    if (attempt == 0) {
                        reconciler.rebuild(tenantId, request.slotId(), askedAt);
                        continue;
                    }
                }
                // the script may have run before the reply was lost: give back whatever it took
                case UNAVAILABLE -> gateUnsure = true;
                default -> {
                    // CLOSED: the slot was called off; the store answers (SlotNotOpen, or a replay)
                }
            }
            break;
        }
        BookingRules tenantRules = rulesOf(tenantId);
        HoldCommand command = new HoldCommand(BookingId.random(), request, status, clock.storeNow(),
                policy.holdTtl(), longestSession.plus(SlotSpec.MAX_BUFFER), gateHeld || heldUnder != null, tenantRules);
        StoreOutcome<HoldResult> outcome;
        try {
            outcome = decide(tenantId, command);
        } catch (RuntimeException e) {
            boolean unknown = outcomeUnknown(e);
            Booking stored = (gateHeld || gateUnsure) && (unknown || gateUnsure) ? storedOf(tenantId, request, e) : null;
            if (stored == null || !unknown) {
                // The gate seat goes back when this delivery took it. When the gate's reply was lost, the
                // script may as well have found the seat of an earlier delivery of this request (a
                // DUPLICATE): that one stays while the request's booking is live.
                if (gateHeld || (gateUnsure && (stored == null || !stored.status().isActive()))) {
                    if (e instanceof IllegalArgumentException) {
                        // bad input changes nothing in the gate either
                        withdraw(tenantId, request);
                    } else {
                        release(tenantId, request.slotId(), request.studentId(), request.requestId());
                    }
                }
                throw e;
            }
            // the commit went through, only its acknowledgement was lost: the gate is settled below
            // as for any other answer
            LOG.info("Hold {} was committed although the store reported {}; answering it", request.requestId(),
                    e.toString());
            outcome = StoreOutcome.of(new Held(stored, true));
        }
        HoldResult result = outcome.result();
        if (result instanceof Waitlisted waitlisted && waitlisted.replayed()) {
            WaitlistEntry entry = waitlisted.entry();
            if (!entry.slotId().equals(request.slotId()) || !entry.studentId().equals(request.studentId())) {
                if (gateHeld || gateUnsure) {
                    withdraw(tenantId, request);
                }
                throw takenByAnother(request);
            }
        }
        if (result instanceof Held held && held.replayed()) {
            try {
                samePayloadOrThrow(held.booking(), request, status);
            } catch (IllegalArgumentException e) {
                Booking stored = held.booking();
                boolean backsIt = stored.slotId().equals(request.slotId())
                        && stored.studentId().equals(request.studentId()) && stored.status().isActive();
                if ((gateHeld || gateUnsure) && !backsIt) {
                    // the request id is another slot's or student's: take back the seat this refusal took,
                    // leaving no trace (a holder under this id for this student backs the live booking)
                    withdraw(tenantId, request);
                }
                throw e;
            }
            if (!held.booking().status().isActive()) {
                // the same request again, but its booking was cancelled or expired since: say so
                result = new NoLongerHeld(held.booking());
                outcome = new StoreOutcome<>(result, outcome.events(), outcome.subject());
            }
        }
        if (guard.present()) {
            settleGate(tenantId, request, outcome, new GateAnswer(gateHeld, gateUnsure, gateNoSeat, gateReplay,
                    heldUnder), askedAt);
        }
        events.publishAll(outcome);
        return result;
    }

    /**
     * Tells the gate what a committed confirm, cancel or sweep did: a confirm pins its holder, a cancel
     * or an expiry gives the hold back, a promotion takes a gate hold for the waiter's request (after
     * the freed seat's hold was given back, as the events come in that order).
     */
    public void settleEvents(TenantId tenantId, List<BookingEvent> committed) {
        if (!guard.present()) {
            return;
        }
        for (BookingEvent e : committed) {
            Booking b = e.booking();
            switch (e.kind()) {
                case CONFIRMED -> guard.call("confirm",
                        () -> guard.gate().confirm(tenantId, b.slotId(), b.studentId(), b.requestId()));
                case CANCELLED, LATE_CANCELLED, EXPIRED -> ended(tenantId, b);
                case PROMOTED -> promoted(tenantId, b);
                default -> {
                }
            }
        }
    }

    /**
     * A waiter got a seat in the store: the gate counts it under the waiter's request. When the gate
     * is full (a newcomer took the gate seat in between; the store refuses that newcomer), reconciling
     * the slot makes the gate agree with the store again.
     */
    private void promoted(TenantId tenantId, Booking b) {
        HoldRequest asIf = HoldRequest.of(b.requestId(), b.slotId(), b.studentId());
        GateDecision d = guard.tryHold(tenantId, asIf, policy.gateTtl());
        if (d.outcome() == GateOutcome.FULL) {
            reconciler.reconcile(tenantId, b.slotId());
        }
    }

    /**
     * Books the student into every open occurrence of a series that has not started, in one store
     * call: the gate is not asked first (it only filters); after the commit it counts the new seats as
     * it counts a promotion's.
     */
    public SeriesBooking bookSeries(TenantId tenantId, RequestId requestId, SeriesId seriesId, StudentId studentId,
                             SeriesMode mode) {
        BookingRules tenantRules = rulesOf(tenantId);
        Instant now = clock.storeNow();
        List<Slot> occurrences = store.seriesSlots(tenantId, seriesId, now, SeriesSpec.MAX_DAYS);
        if (occurrences.isEmpty()) {
            return new SeriesBooking(seriesId, mode, List.of());
        }
        List<HoldCommand> commands = new ArrayList<>(occurrences.size());
        for (Slot slot : occurrences) {
            String day = slot.slotId().value().substring(slot.slotId().value().lastIndexOf('/') + 1);
            HoldRequest request = HoldRequest.of(RequestId.of(requestId.value() + "/" + day), slot.slotId(),
                    studentId);
            commands.add(new HoldCommand(BookingId.random(), request, BookingStatus.CONFIRMED, now, policy.holdTtl(),
                    longestSession.plus(SlotSpec.MAX_BUFFER), false, tenantRules));
        }
        StoreOutcome<List<HoldResult>> outcome = store.holdAll(tenantId, commands, mode);
        List<HoldResult> results = outcome.result();
        if (results.size() != commands.size()) {
            throw new BookingStoreException("the store answered " + results.size() + " results for "
                    + commands.size() + " occurrences");
        }
        boolean allHeld = true;
        for (int i = 0; i < results.size(); i++) {
            HoldResult r = results.get(i);
            if (r instanceof Held held && held.replayed()) {
                samePayloadOrThrow(held.booking(), commands.get(i).request(), BookingStatus.CONFIRMED);
            }
            allHeld &= booked(r);
        }
        List<SeriesBooking.Line> lines = new ArrayList<>(results.size());
        for (int i = 0; i < results.size(); i++) {
            HoldResult r = results.get(i);
            SlotId slotId = commands.get(i).request().slotId();
            if (booked(r) && (allHeld || mode == SeriesMode.BEST_EFFORT)) {
                lines.add(new SeriesBooking.Line(slotId, SeriesBooking.Line.Status.BOOKED, ((Held) r).booking(), null));
            } else if (booked(r)) {
                lines.add(new SeriesBooking.Line(slotId, SeriesBooking.Line.Status.ROLLED_BACK, null, null));
            } else {
                HoldResult refusal = r instanceof Held held ? new NoLongerHeld(held.booking()) : r;
                lines.add(new SeriesBooking.Line(slotId, SeriesBooking.Line.Status.REFUSED, null, refusal));
            }
        }
        if (guard.present()) {
            // in the order the store committed them: a dead hold retired for a seat gives its gate hold
            // back before the series booking that took the seat takes one
            for (BookingEvent e : outcome.events()) {
                if (e.kind() == BookingEvent.Kind.HELD || e.kind() == BookingEvent.Kind.CONFIRMED) {
                    promoted(tenantId, e.booking());
                }
                settleEvents(tenantId, List.of(e));
            }
        }
        events.publishAll(outcome);
        return new SeriesBooking(seriesId, mode, lines);
    }

    private BookingRules rulesOf(TenantId tenantId) {
        BookingRules tenantRules = rules.apply(tenantId);
        if (tenantRules == null) {
            throw new IllegalStateException("the rules function returned null for a tenant");
        }
        return tenantRules;
    }

    private static boolean booked(HoldResult r) {
        return r instanceof Held held && held.booking().status().isActive();
    }

    private StoreOutcome<HoldResult> decide(TenantId tenantId, HoldCommand command) {
        try {
            return store.hold(tenantId, command);
        } catch (DuplicateBookingException e) {
            // A unique key stopped a concurrent duplicate of this request id: answer from what is stored.
            var stored = store.findByRequest(tenantId, command.request().requestId());
            if (stored.isPresent()) {
                return StoreOutcome.of(new Held(stored.get(), true));
            }
            return store.hold(tenantId, command);
        }
    }

    /**
     * What the gate answered this hold: it took a seat under this request ({@code held}), its answer
     * was lost ({@code unsure}: the script may have run), it holds no seat for the student ({@code noSeat}:
     * FULL or REPLAY; {@code replay}: REPLAY), or the student holds one under {@code heldUnder}.
     */
    private record GateAnswer(boolean held, boolean unsure, boolean noSeat, boolean replay,
                              @Nullable RequestId heldUnder) {
        boolean tookOrMayHaveTaken() {
            return held || unsure;
        }
    }

    /**
     * Makes the gate agree with the store's answer. The gate's holder of the student stays only behind
     * the student's live booking in the slot, under that booking's request. When the answer shows such
     * a booking (this request's, granted or replayed; or another request's, answered AlreadyBooked)
     * and the gate holds the student's seat under another request (an orphan: an earlier request whose
     * booking is no longer live, or this refused one), the holder becomes the live booking's in one step
     * ({@link SeatReservation#transfer}): the student never holds nothing in between, so a retry is
     * never answered Full, and a late release of the old request finds nothing of its own. Otherwise a
     * refused request gives back what it took. Bookings the store expired on the way (a dead hold
     * retired, a seat taken over) give back the gate holds their requests put there.
     */
    private void settleGate(TenantId tenantId, HoldRequest request, StoreOutcome<HoldResult> outcome, GateAnswer gate,
                            long askedAt) {
        HoldResult result = outcome.result();
        for (BookingEvent e : outcome.events()) {
            Booking b = e.booking();
            if (e.kind() == BookingEvent.Kind.EXPIRED) {
                ended(tenantId, b);
            } else if (e.kind() == BookingEvent.Kind.PROMOTED) {
                promoted(tenantId, b);
            }
        }
        Booking live = liveBookingOf(result, request);
        RequestId heldUnder = gate.heldUnder();
        if (live == null) {
            if (gate.tookOrMayHaveTaken() || request.requestId().equals(heldUnder)) {
                release(tenantId, request.slotId(), request.studentId(), request.requestId());
                if (result instanceof Full && !gate.unsure()) {
                    // the gate counts fewer seats taken than the ledger (seats sold while the gate was down
                    // or not asked): bring it level, or it goes on letting requests through to a full ledger
                    guard.heldLedgerRefused.increment();
                    reconciler.resync(tenantId, request.slotId(), askedAt);
                }
            }
            return;
        }
        RequestId owner = live.requestId();
        boolean mine = owner.equals(request.requestId());
        boolean moved = false;
        if (mine && heldUnder != null && result instanceof Held held && !held.replayed()) {
            // the gate's holder for this student backed no booking (an orphan): this grant takes its place
            guard.orphansReleased.increment();
        }
        if (heldUnder != null && !heldUnder.equals(owner)) {
            // the gate's holder of the student backs no live booking: it becomes the live booking's
            transfer(tenantId, request, heldUnder, owner, askedAt);
            moved = true;
        } else if (!mine && heldUnder == null && (gate.tookOrMayHaveTaken() || gate.noSeat())) {
            // AlreadyBooked: the seat this request took (or may have taken) is the live booking's; or the
            // gate had none for a student who holds one (it lost it): it counts the live booking again
            transfer(tenantId, request, request.requestId(), owner, askedAt);
            moved = true;
        } else if (mine && (gate.unsure() || gate.noSeat() || request.requestId().equals(heldUnder))) {
            // the gate's holder of this request may be gone (another delivery of it was refused and gave
            // it back, the gate's answer was lost, or the gate lost it): take it again
            recount(tenantId, request);
        } else if (mine && reconciler.rebuiltSince(tenantId, request.slotId(), askedAt)) {
            // the gate lost its state after granting this hold, and the rebuild may have read the store
            // before this commit: make sure the rebuilt state counts the seat
            recount(tenantId, request);
        }
        if (live.status() == BookingStatus.CONFIRMED && (mine || moved)) {
            guard.call("confirm", () -> guard.gate().confirm(tenantId, request.slotId(), request.studentId(), owner));
        }
    }

    /** The student's live booking in the request's slot, as the store's answer shows it; null when none. */
    private static @Nullable Booking liveBookingOf(HoldResult result, HoldRequest request) {
        Booking b = result instanceof Held held ? held.booking()
                : result instanceof AlreadyBooked already ? already.existing() : null;
        if (b == null || !b.status().isActive() || !b.slotId().equals(request.slotId())
                || !b.studentId().equals(request.studentId())) {
            return null;
        }
        return result instanceof Held && !b.requestId().equals(request.requestId()) ? null : b;
    }

    /**
     * The gate's holder of the student under {@code from} becomes {@code to}'s, in one step; when the
     * gate has no seat left for it, reconciling the slot makes the gate count the live booking.
     */
    private void transfer(TenantId tenantId, HoldRequest request, RequestId from, RequestId to, long askedAt) {
        GateDecision d = guard.call("transfer", () -> guard.gate().transfer(tenantId, request.slotId(),
                request.studentId(), from, to, policy.gateTtl()), GateDecision.UNAVAILABLE);
        if (d.outcome() == GateOutcome.REPLAY && from.equals(request.requestId())) {
            // the live booking ended before its seat got here: the seat this refused request took goes back
            release(tenantId, request.slotId(), request.studentId(), from);
        } else if (d.outcome() == GateOutcome.FULL) {
            if (to.equals(request.requestId())) {
                reconciler.reconcile(tenantId, request.slotId());
            } else {
                reconciler.resync(tenantId, request.slotId(), askedAt);
            }
        }
    }

    /** Takes back the seat a request refused as bad input took, leaving no trace in the gate. */
    private void withdraw(TenantId tenantId, HoldRequest request) {
        guard.call("withdraw", () -> guard.gate().withdraw(tenantId, request.slotId(), request.studentId(),
                request.requestId()));
    }

    /**
     * The store granted this request but the gate may not count its seat: the gate's answer was lost
     * (its script may or may not have run), or the seat of an orphan was given back for it and may
     * have gone to another request since. Makes sure the gate counts the seat, or a retry of this
     * request could be answered Full by the gate alone. Taking the hold again changes nothing when
     * the gate has it (DUPLICATE); a FULL gate counts holds the ledger does not back, and reconciling
     * the slot adds this booking's holder.
     */
    private void recount(TenantId tenantId, HoldRequest request) {
        if (guard.tryHold(tenantId, request, policy.gateTtl()).outcome() == GateOutcome.FULL) {
            reconciler.reconcile(tenantId, request.slotId());
        }
    }

    /**
     * The booking was cancelled or expired: its gate hold goes back, and the gate never counts its request
     * again (a late re-count or transfer of it, racing this release, takes no seat).
     */
    void ended(TenantId tenantId, Booking b) {
        guard.call("release", () -> guard.gate().releaseEnded(tenantId, b.slotId(), b.studentId(), b.requestId()));
    }

    private void release(TenantId tenantId, SlotId slotId, StudentId studentId, RequestId requestId) {
        guard.call("release", () -> guard.gate().release(tenantId, slotId, studentId, requestId));
    }

    /**
     * Whether a store failure may have committed: false when the call certainly changed nothing
     * (nothing was sent: no connection could be had; or it was rolled back; or the input was refused),
     * which is believed without a read, so a hold during an outage waits for one pool timeout, not two.
     */
    private static boolean outcomeUnknown(RuntimeException failure) {
        return !(failure instanceof IllegalArgumentException)
                && !(failure instanceof BookingStoreException storeFailure && !storeFailure.outcomeUnknown());
    }

    /**
     * After a failed store call: the request's booking (of its slot and student) as the store has it,
     * read once; null when there is none or the store cannot answer (then the gate seat goes back, so an
     * outage never leaves gate holds behind).
     */
    private @Nullable Booking storedOf(TenantId tenantId, HoldRequest request, RuntimeException failure) {
        try {
            return store.findByRequest(tenantId, request.requestId())
                    .filter(b -> b.slotId().equals(request.slotId()) && b.studentId().equals(request.studentId()))
                    .orElse(null);
        } catch (RuntimeException readFailed) {
            failure.addSuppressed(readFailed);
            return null;
        }
    }

    /**
     * A replay must match the whole request: slot, student, and hold versus book. A book retried
     * with the id of a hold that is still unconfirmed is refused (a hold later confirmed cannot be
     * told from a book, and answers). The message names only what the caller sent.
     */
    static Booking samePayloadOrThrow(Booking stored, HoldRequest request, BookingStatus asked) {
        if (!stored.slotId().equals(request.slotId()) || !stored.studentId().equals(request.studentId())) {
            throw takenByAnother(request);
        }
        if (asked == BookingStatus.CONFIRMED && stored.status() == BookingStatus.HELD) {
            throw new RequestIdReusedException(request.requestId(), "requestId '" + request.requestId()
                    + "' was already used for a hold that is not confirmed; book needs a request id of its own,"
                    + " or confirm the hold");
        }
        return stored;
    }

    /** The request id is stored for another slot or student; the message names only what the caller sent. */
    private static RequestIdReusedException takenByAnother(HoldRequest request) {
        return new RequestIdReusedException(request.requestId(), "requestId '" + request.requestId()
                + "' is already taken by a request"
                + " for another slot or student; refusing it for slot '" + request.slotId() + "' and student '"
                + request.studentId() + "'");
    }
}
