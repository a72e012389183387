package org.slotbook.core.internal.rules;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slotbook.core.AlreadyBooked;
import org.slotbook.core.Booking;
import org.slotbook.core.BookingClosed;
import org.slotbook.core.BookingId;
import org.slotbook.core.BookingStatus;
import org.slotbook.core.Conflict;
import org.slotbook.core.Full;
import org.slotbook.core.Held;
import org.slotbook.core.HoldRequest;
import org.slotbook.core.HoldResult;
import org.slotbook.core.InsufficientCredits;
import org.slotbook.core.LessonPackage;
import org.slotbook.core.LimitReached;
import org.slotbook.core.NotFound;
import org.slotbook.core.NotOpenYet;
import org.slotbook.core.RequestId;
import org.slotbook.core.ResourceConflict;
import org.slotbook.core.ResourceRef;
import org.slotbook.core.SeriesMode;
import org.slotbook.core.Slot;
import org.slotbook.core.SlotNotOpen;
import org.slotbook.core.SlotStatus;
import org.slotbook.core.WaitlistEntry;
import org.slotbook.core.Waitlisted;
import org.slotbook.core.rules.Occupancy;
import org.slotbook.core.rules.RuleTx;
import org.slotbook.core.rules.StoredSlot;
import org.slotbook.core.rules.Waiter;
import org.slotbook.core.spi.BookingEvent;
import org.slotbook.core.spi.BookingEvent.Kind;
import org.slotbook.core.spi.HoldCommand;
import org.slotbook.core.spi.StoreOutcome;
import org.slotbook.core.spi.Terms;

/** A seat held or booked for a student, or a place on the slot's waitlist; one at a time or a series. */
final class Holds {
    private Holds() {
    }

    static StoreOutcome<HoldResult> hold(RuleTx tx, HoldCommand cmd, Instant now) {
        HoldRequest request = cmd.request();
        // what can be answered without a lock (nothing is written): an unknown slot, a replay, a refusal
        Optional<StoredSlot> found = tx.slot(request.slotId(), false);
        if (found.isEmpty()) {
            return StoreOutcome.of(new NotFound());
        }
        Optional<HoldResult> early = refusal(tx, cmd, found.get().slot(), now);
        if (early.isPresent()) {
            return StoreOutcome.of(early.get());
        }
        // everything about this student is decided under his lock, then the slot's (checked again when
        // what was read before the locks may have changed)
        boolean again = tx.lock(List.of(ResourceRef.of(request.studentId())));
        StoredSlot stored = tx.slot(request.slotId(), true).orElseThrow(() -> new IllegalStateException(
                "slot '" + request.slotId() + "' disappeared during a hold"));
        Slot slot = stored.slot();
        early = again ? refusal(tx, cmd, slot, now) : Optional.empty();
        if (early.isPresent()) {
            return StoreOutcome.of(early.get());
        }
        List<ResourceConflict> clashes = Students.clashes(tx, request.studentId(), slot.studentTime(), now);
        if (!clashes.isEmpty()) {
            return StoreOutcome.of(new Conflict(clashes));
        }
        Optional<LimitReached> limit = Students.limitReached(tx, request.studentId(), stored, cmd.rules(), now);
        if (limit.isPresent()) {
            return StoreOutcome.of(limit.get());
        }
        Step s = new Step(tx, now);
        Terms terms = cmd.terms();
        // the student's dead holds: the one of this slot, then those overlapping it (their credits come back)
        Map<BookingId, Booking> dead = new LinkedHashMap<>();
        tx.seatedBooking(slot.slotId(), request.studentId()).ifPresent(mine -> dead.put(mine.bookingId(), mine));
        for (Occupancy o : tx.occupations(ResourceRef.of(request.studentId()), slot.studentTime().start(),
                slot.studentTime().end())) {
            Students.bookingOf(tx, o).filter(b -> b.status() == BookingStatus.HELD && !b.isLive(now))
                    .ifPresent(b -> dead.putIfAbsent(b.bookingId(), b));
        }
        for (Booking b : dead.values()) {
            Booking current = tx.booking(b.bookingId(), true).orElse(b);
            if (current.status() == BookingStatus.HELD) {
                Seating.retire(s, current, terms, request.studentId());
            }
        }
        // a seat of a slot with a cost, and a place on its waitlist, need a package that can pay it
        LessonPackage payer = slot.cost() > 0 ? Credits.payer(tx, request.studentId(), slot, now) : null;
        if (slot.cost() > 0 && payer == null) {
            return s.answer(new InsufficientCredits(slot.slotId(), slot.cost()));
        }
        Integer seat = seat(tx, slot);
        if (seat == null && tx.waiting(slot.slotId()).isEmpty()) {
            // another student's hold, locked as a booking row (a confirm of a live hold locks nothing else)
            Optional<Booking> oldest = tx.oldestDeadHold(slot.slotId(), now)
                    .flatMap(b -> tx.booking(b.bookingId(), true))
                    .filter(b -> b.status() == BookingStatus.HELD && !b.isLive(now));
            if (oldest.isPresent()) {
                Seating.expire(s, oldest.get());
                seat = seat(tx, slot);
            }
        }
        if (seat == null) {
            if (request.waitlist() && now.isBefore(Students.promotionCutoff(slot, cmd.rules()))) {
                Optional<Waiter> already = tx.waiting(slot.slotId()).stream()
                        .filter(w -> w.studentId().equals(request.studentId())).findFirst();
                Waiter w = already.orElseGet(() -> tx.join(slot.slotId(), request.requestId(), request.studentId(),
                        cmd.bookingId(), now));
                return s.answer(new Waitlisted(Students.entry(tx, w), already.isPresent()));
            }
            return s.answer(new Full(slot.slotId()));
        }
        Booking booking = Seating.seat(s, slot, new Booking(tx.tenantId(), cmd.bookingId(), request.requestId(),
                slot.slotId(), request.studentId(), seat, cmd.status(), now.plus(cmd.holdTtl()), now, now), payer,
                cmd.rules());
        s.event(cmd.status() == BookingStatus.CONFIRMED ? Kind.CONFIRMED : Kind.HELD, booking);
        return s.answer(new Held(booking, false));
    }

    private static Integer seat(RuleTx tx, Slot slot) {
        var free = tx.freeSeat(slot.slotId());
        return free.isPresent() ? free.getAsInt() : null;
    }

    /**
     * The answer decided before any write, asked before the locks and again under them: a slot not open
     * (or its window) answers a replay, else the refusal; a replay; the student's live booking of the slot;
     * a full slot (the cheap pre-check, skipped when a gate found a seat or the student would wait).
     */
    private static Optional<HoldResult> refusal(RuleTx tx, HoldCommand cmd, Slot slot, Instant now) {
        HoldRequest request = cmd.request();
        Optional<HoldResult> replay = replay(tx, request.requestId());
        if (slot.status() != SlotStatus.OPEN || !now.isBefore(slot.time().end())) {
            return Optional.of(replay.orElseGet(() -> new SlotNotOpen(slot.slotId(), slot.status())));
        }
        if (slot.opensAt() != null && now.isBefore(slot.opensAt())) {
            return Optional.of(replay.orElseGet(() -> new NotOpenYet(slot.slotId(), slot.opensAt())));
        }
        if (slot.closesAt() != null && !now.isBefore(slot.closesAt())) {
            return Optional.of(replay.orElseGet(() -> new BookingClosed(slot.slotId(), slot.closesAt())));
        }
        if (replay.isPresent()) {
            return replay;
        }
        Optional<Booking> mine = tx.seatedBooking(slot.slotId(), request.studentId());
        if (mine.isPresent() && mine.get().isLive(now)) {
            return Optional.of(new AlreadyBooked(mine.get()));
        }
        if (!cmd.gateHeld() && !request.waitlist() && tx.freeSeat(slot.slotId()).isEmpty()
                && tx.oldestDeadHold(slot.slotId(), now).isEmpty()) {
            return Optional.of(new Full(slot.slotId()));
        }
        return Optional.empty();
    }

    /** {@return the answer given to the request already: its booking, else its place on a waitlist} */
    static Optional<HoldResult> replay(RuleTx tx, RequestId requestId) {
        return tx.bookingOfRequest(requestId).<HoldResult>map(b -> new Held(b, true))
                .or(() -> tx.waiter(requestId).map(w -> new Waitlisted(Students.entry(tx, w), true)));
    }

    static StoreOutcome<List<HoldResult>> holdAll(RuleTx tx, List<HoldCommand> commands, SeriesMode mode,
                                                  Instant now) {
        List<HoldResult> results = new ArrayList<>();
        List<BookingEvent> events = new ArrayList<>();
        List<WaitlistEntry> skipped = new ArrayList<>();
        boolean allHeld = true;
        for (HoldCommand cmd : commands) {
            StoreOutcome<HoldResult> one = hold(tx, cmd, cmd.now() != null ? cmd.now() : now);
            results.add(one.result());
            events.addAll(one.events());
            skipped.addAll(one.skipped());
            allHeld &= one.result() instanceof Held held && held.booking().status().isActive();
        }
        if (!allHeld && mode == SeriesMode.ALL_OR_NOTHING) {
            tx.rollback();
            return new StoreOutcome<>(results, List.of(), null, List.of());
        }
        return new StoreOutcome<>(results, events, null, skipped);
    }
}
