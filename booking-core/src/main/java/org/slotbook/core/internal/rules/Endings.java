package org.slotbook.core.internal.rules;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.slotbook.core.AlreadyCancelled;
import org.slotbook.core.Attendance;
import org.slotbook.core.Booking;
import org.slotbook.core.BookingId;
import org.slotbook.core.BookingStatus;
import org.slotbook.core.CancelResult;
import org.slotbook.core.CancelSlotResult;
import org.slotbook.core.CancellationPolicy;
import org.slotbook.core.Cancelled;
import org.slotbook.core.ConfirmResult;
import org.slotbook.core.Confirmed;
import org.slotbook.core.HoldExpired;
import org.slotbook.core.LeaveResult;
import org.slotbook.core.LeftWaitlist;
import org.slotbook.core.NotFound;
import org.slotbook.core.NotWaiting;
import org.slotbook.core.RequestId;
import org.slotbook.core.ResourceRef;
import org.slotbook.core.SeriesCancelled;
import org.slotbook.core.SeriesId;
import org.slotbook.core.Slot;
import org.slotbook.core.SlotCancelled;
import org.slotbook.core.SlotId;
import org.slotbook.core.SlotStatus;
import org.slotbook.core.StudentId;
import org.slotbook.core.TooLateToCancel;
import org.slotbook.core.WaitlistEntry;
import org.slotbook.core.rules.RuleTx;
import org.slotbook.core.rules.StoredSlot;
import org.slotbook.core.rules.Waiter;
import org.slotbook.core.spi.BookingEvent.Kind;
import org.slotbook.core.spi.StoreOutcome;
import org.slotbook.core.spi.Terms;

/** How bookings end: confirmed, cancelled, called off with their slot, expired; and waiters leaving. */
final class Endings {
    private Endings() {
    }

    /**
     * The booking, when it exists and (with a student) is that student's, read again under its student's
     * lock and then its slot's; empty, having locked nothing, when not.
     */
    static Optional<Locked> lockBooking(RuleTx tx, BookingId bookingId, @Nullable StudentId studentId) {
        Optional<Booking> found = tx.booking(bookingId, false);
        if (found.isEmpty() || (studentId != null && !found.get().studentId().equals(studentId))) {
            return Optional.empty();
        }
        tx.lock(List.of(ResourceRef.of(found.get().studentId())));
        StoredSlot slot = tx.slot(found.get().slotId(), true).orElseThrow(() -> Seating.missing(found.get()));
        Booking b = tx.booking(bookingId, true).orElseThrow(() -> new IllegalStateException(
                "booking '" + bookingId + "' disappeared under its lock"));
        return Optional.of(new Locked(b, slot));
    }

    /** A booking and its slot, both locked. */
    record Locked(Booking booking, StoredSlot slot) {
    }

    static StoreOutcome<ConfirmResult> confirm(RuleTx tx, BookingId bookingId, StudentId studentId, Instant now,
                                               Terms terms) {
        Optional<Booking> found = tx.booking(bookingId, false);
        Booking b;
        if (found.isPresent() && found.get().studentId().equals(studentId) && found.get().isLive(now)) {
            // a live hold (or a booking) is confirmed under its student's lock and its own row's alone: the slot
            // stays free for the holds and cancels of others (a hold keeps its seat; every write of a booking
            // locks its row)
            tx.lock(List.of(ResourceRef.of(studentId)));
            b = tx.booking(bookingId, true).orElseThrow(() -> new IllegalStateException(
                    "booking '" + bookingId + "' disappeared under its lock"));
        } else {
            Optional<Locked> locked = lockBooking(tx, bookingId, studentId);
            if (locked.isEmpty()) {
                return StoreOutcome.of(new NotFound());
            }
            b = locked.get().booking();
        }
        switch (b.status()) {
            case CONFIRMED:
                return StoreOutcome.of(new Confirmed(b));
            case CANCELLED:
                return StoreOutcome.of(new AlreadyCancelled());
            case EXPIRED:
                return StoreOutcome.of(new HoldExpired(b));
            default:
                break;
        }
        Step s = new Step(tx, now);
        if (b.isLive(now)) {
            Booking confirmed = b.with(BookingStatus.CONFIRMED, now);
            tx.updateBooking(confirmed);
            s.event(Kind.CONFIRMED, confirmed);
            return s.answer(new Confirmed(confirmed));
        }
        return s.answer(new HoldExpired(Seating.retire(s, b, terms, null)));
    }

    static StoreOutcome<CancelResult> cancel(RuleTx tx, BookingId bookingId, @Nullable StudentId studentId,
                                             Instant now, Terms terms) {
        Optional<Locked> locked = lockBooking(tx, bookingId, studentId);
        if (locked.isEmpty()) {
            return StoreOutcome.of(new NotFound());
        }
        Booking b = locked.get().booking();
        if (!b.status().isActive()) {
            return new StoreOutcome<>(new AlreadyCancelled(), List.of(), b);
        }
        Step s = new Step(tx, now);
        if (!b.isLive(now)) {
            return s.answer(new AlreadyCancelled(), Seating.retire(s, b, terms, null));
        }
        Slot slot = locked.get().slot().slot();
        if (studentId != null && b.attendance() != Attendance.NONE) {
            // the student came (or was marked absent): only staff may still cancel
            return StoreOutcome.of(new TooLateToCancel(bookingId, slot.time().start()));
        }
        CancellationPolicy policy = slot.cancellation() != null ? slot.cancellation() : terms.rules().cancellation();
        Instant cutoff = policy.cutoffFor(slot.time().start());
        // a hold never confirmed is no booking yet: never late, never charged
        boolean late = b.status() == BookingStatus.CONFIRMED && cutoff != null && !now.isBefore(cutoff);
        boolean lateByStudent = late && studentId != null;
        if (lateByStudent && policy.afterCutoff() == CancellationPolicy.LateCancel.REFUSE) {
            return StoreOutcome.of(new TooLateToCancel(bookingId, cutoff));
        }
        // a late cancel by the student keeps (or forfeits) the credits; any other cancel refunds them
        Booking cancelled = lateByStudent
                ? Seating.end(s, Credits.forfeit(tx, b, slot, terms.rules(), now), BookingStatus.CANCELLED, false)
                : Seating.end(s, b, BookingStatus.CANCELLED, true);
        s.event(late ? Kind.LATE_CANCELLED : Kind.CANCELLED, cancelled);
        Seating.promote(s, locked.get().slot(), terms, null);
        return s.answer(new Cancelled(cancelled, late));
    }

    static StoreOutcome<CancelSlotResult> cancelSlot(RuleTx tx, SlotId slotId, Instant now) {
        Optional<StoredSlot> found = tx.slot(slotId, false);
        if (found.isEmpty()) {
            return StoreOutcome.of(new NotFound());
        }
        if (found.get().slot().status() == SlotStatus.CANCELLED) {
            return StoreOutcome.of(new AlreadyCancelled());
        }
        StoredSlot slot = tx.slot(slotId, true).orElseThrow();
        if (slot.slot().status() == SlotStatus.CANCELLED) {
            return StoreOutcome.of(new AlreadyCancelled());
        }
        Step s = new Step(tx, now);
        int released = callOff(s, slot.slot());
        return s.answer(new SlotCancelled(tx.slot(slotId, false).orElseThrow().slot(), released));
    }

    static StoreOutcome<SeriesCancelled> cancelSeries(RuleTx tx, SeriesId seriesId, Instant from, Instant now) {
        List<Slot> open = tx.seriesSlots(seriesId).stream()
                .filter(slot -> slot.status() == SlotStatus.OPEN && !slot.time().start().isBefore(from))
                .sorted(Comparator.comparing((Slot slot) -> slot.time().start()).thenComparing(Slot::slotId))
                .toList();
        Step s = new Step(tx, now);
        List<Slot> cancelled = new ArrayList<>();
        int released = 0;
        for (Slot each : open) {
            StoredSlot slot = tx.slot(each.slotId(), true).orElseThrow();
            if (slot.slot().status() == SlotStatus.OPEN) {
                released += callOff(s, slot.slot());
                cancelled.add(tx.slot(each.slotId(), false).orElseThrow().slot());
            }
        }
        return s.answer(new SeriesCancelled(seriesId, cancelled, released));
    }

    /**
     * Calls an open slot (locked) off: every booking cancelled (credits refunded under its student's lock, a
     * CANCELLED event each), every seat and occupation released, nobody promoted. Answers how many bookings
     * it released.
     */
    private static int callOff(Step s, Slot slot) {
        s.tx.updateSlot(slot.withStatus(SlotStatus.CANCELLED));
        List<Booking> seated = s.tx.seated(slot.slotId());
        List<ResourceRef> students = seated.stream().map(b -> ResourceRef.of(b.studentId())).distinct().sorted()
                .toList();
        if (!students.isEmpty()) {
            s.tx.lock(students);
        }
        for (Booking b : seated) {
            s.event(Kind.CANCELLED, Seating.end(s, b, BookingStatus.CANCELLED, true));
        }
        s.tx.closeSeats(slot.slotId());
        s.tx.vacate(slot.slotId(), null);
        return seated.size();
    }

    /**
     * Expires up to {@code limit} holds that ran out, earliest deadline first, each seat offered to a
     * waiter; then, when the rules mark no-shows, marks with what is left of {@code limit} the CONFIRMED
     * bookings not checked in whose check-in closed (a FORFEIT under AT_CHECK_IN).
     */
    static StoreOutcome<Integer> expireDue(RuleTx tx, Instant now, int limit, Terms terms) {
        Step s = new Step(tx, now);
        int done = 0;
        for (Booking due : tx.dueHolds(now, limit)) {
            Optional<Booking> b = lockBooking(tx, due.bookingId(), null).map(Locked::booking)
                    .filter(held -> held.status() == BookingStatus.HELD && !held.heldUntil().isAfter(now));
            if (b.isPresent()) {
                Seating.retire(s, b.get(), terms, null);
                done++;
            }
        }
        if (terms.rules().marksNoShows() && done < limit) {
            // check-in closed at end + checkInClosesAfterEnd <= now, that is end <= now - checkInClosesAfterEnd
            Instant endedBy = now.minus(terms.rules().checkInClosesAfterEnd());
            for (Booking absent : tx.unattended(endedBy, limit - done)) {
                Optional<Locked> locked = lockBooking(tx, absent.bookingId(), null).filter(l -> l.booking().status()
                        == BookingStatus.CONFIRMED && l.booking().attendance() == Attendance.NONE);
                if (locked.isEmpty()) {
                    continue;
                }
                Booking b = locked.get().booking();
                Booking paid = Credits.forfeit(tx, b, locked.get().slot().slot(), terms.rules(), now);
                Booking noShow = paid.with(Attendance.NO_SHOW, now);
                tx.updateBooking(noShow);
                s.event(Kind.NO_SHOW, noShow);
                done++;
            }
        }
        return s.answer(done);
    }

    static StoreOutcome<LeaveResult> leaveWaitlist(RuleTx tx, RequestId requestId, StudentId studentId,
                                                   Instant now) {
        Optional<Waiter> found = tx.waiter(requestId);
        if (found.isEmpty() || !found.get().studentId().equals(studentId)) {
            return StoreOutcome.of(new NotFound());
        }
        // under the slot's lock: a promotion either took the waiter already (we see it) or sees it gone
        tx.slot(found.get().slotId(), true);
        Waiter w = tx.waiter(requestId).orElseThrow();
        if (w.status() != WaitlistEntry.Status.WAITING) {
            return StoreOutcome.of(new NotWaiting(Students.entry(tx, w)));
        }
        tx.markWaiter(requestId, WaitlistEntry.Status.LEFT, null, now);
        return StoreOutcome.of(new LeftWaitlist(Students.entry(tx, Students.marked(w, WaitlistEntry.Status.LEFT,
                null), 0)));
    }
}
