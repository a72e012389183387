package org.slotbook.core.internal.rules;

import java.util.List;
import org.jspecify.annotations.Nullable;
import org.slotbook.core.Booking;
import org.slotbook.core.BookingRules;
import org.slotbook.core.BookingStatus;
import org.slotbook.core.CreditEntry;
import org.slotbook.core.CreditPolicy;
import org.slotbook.core.LessonPackage;
import org.slotbook.core.ResourceRef;
import org.slotbook.core.Slot;
import org.slotbook.core.SlotStatus;
import org.slotbook.core.StudentId;
import org.slotbook.core.WaitlistEntry;
import org.slotbook.core.rules.Occupancy;
import org.slotbook.core.rules.StoredSlot;
import org.slotbook.core.rules.Waiter;
import org.slotbook.core.spi.BookingEvent.Kind;
import org.slotbook.core.spi.Terms;

/** Seats taken and given back: a booking seated, a booking ended, a dead hold retired, a waiter promoted. */
final class Seating {
    private Seating() {
    }

    /**
     * Gives the new {@code booking} its seat (free) and its student's occupation; under AT_BOOKING, draws the
     * slot's cost from {@code payer} (when there is one). Answers the booking as stored.
     */
    static Booking seat(Step s, Slot slot, Booking booking, @Nullable LessonPackage payer, BookingRules rules) {
        s.tx.takeSeat(slot.slotId(), booking.seat(), booking.bookingId());
        s.tx.insertBooking(booking);
        s.tx.occupy(new Occupancy(ResourceRef.of(booking.studentId()), slot.studentTime(), slot.slotId(),
                booking.bookingId()));
        return payer != null && rules.credits() == CreditPolicy.AT_BOOKING
                ? Credits.charge(s.tx, booking, payer, slot.cost(), CreditEntry.Reason.DRAW, s.now) : booking;
    }

    /**
     * Ends a live or dead booking with {@code status}: frees its seat and its occupation; {@code refund}:
     * gives back the credits it holds first (else it keeps them).
     */
    static Booking end(Step s, Booking b, BookingStatus status, boolean refund) {
        Booking settled = refund ? Credits.refund(s.tx, b, s.now) : b;
        s.tx.freeSeat(b.slotId(), b.seat());
        Booking ended = settled.with(status, s.now);
        s.tx.updateBooking(ended);
        s.tx.vacate(b.slotId(), b.bookingId());
        return ended;
    }

    /** Expires a dead hold (EXPIRED event, credits refunded) without promoting anyone; answers it expired. */
    static Booking expire(Step s, Booking dead) {
        Booking expired = end(s, dead, BookingStatus.EXPIRED, true);
        s.event(Kind.EXPIRED, expired);
        return expired;
    }

    /**
     * Expires a dead hold (credits refunded) and offers its seat to the slot's waiters, under the slot's
     * lock; {@code holding} (the student of a hold in progress, or null) is not promoted: that student is
     * taking a seat of his own right now.
     */
    static Booking retire(Step s, Booking dead, Terms terms, @Nullable StudentId holding) {
        StoredSlot slot = s.tx.slot(dead.slotId(), true).orElseThrow(() -> missing(dead));
        Booking expired = expire(s, dead);
        promote(s, slot, terms, holding);
        return expired;
    }

    /**
     * Gives a free seat of the slot (locked by the caller) to its first waiter who can take it: no booking
     * of the slot, no live overlapping booking, within limits, a package that can pay a cost (drawn at once
     * under AT_BOOKING). Those passed over are SKIPPED, with the reason. Each waiter's student is locked
     * before he is judged (after the slot: the one exception to the lock order).
     */
    static void promote(Step s, StoredSlot stored, Terms terms, @Nullable StudentId holding) {
        Slot slot = stored.slot();
        if (slot.status() != SlotStatus.OPEN || !s.now.isBefore(Students.promotionCutoff(slot, terms.rules()))) {
            return;
        }
        // nobody waiting (the common case) is known without looking for a free seat
        List<Waiter> waiting = s.tx.waiting(slot.slotId());
        if (waiting.isEmpty() || s.tx.freeSeat(slot.slotId()).isEmpty()) {
            return;
        }
        for (Waiter w : waiting) {
            s.tx.lock(List.of(ResourceRef.of(w.studentId())));
            WaitlistEntry.SkipReason reason = null;
            LessonPackage payer = null;
            if (w.studentId().equals(holding) || s.tx.seatedBooking(slot.slotId(), w.studentId()).isPresent()) {
                reason = WaitlistEntry.SkipReason.ALREADY_BOOKED;
            } else if (!Students.clashes(s.tx, w.studentId(), slot.studentTime(), s.now).isEmpty()) {
                reason = WaitlistEntry.SkipReason.CONFLICT;
            } else if (Students.limitReached(s.tx, w.studentId(), stored, terms.rules(), s.now).isPresent()) {
                reason = WaitlistEntry.SkipReason.LIMIT;
            } else if (slot.cost() > 0 && (payer = Credits.payer(s.tx, w.studentId(), slot, s.now)) == null) {
                reason = WaitlistEntry.SkipReason.NO_CREDITS;
            }
            if (reason != null) {
                s.tx.markWaiter(w.requestId(), WaitlistEntry.Status.SKIPPED, reason, s.now);
                s.skipped.add(Students.entry(s.tx, Students.marked(w, WaitlistEntry.Status.SKIPPED, reason), 0));
                continue;
            }
            int seat = s.tx.freeSeat(slot.slotId()).getAsInt();
            Booking booking = seat(s, slot, new Booking(s.tx.tenantId(), w.bookingId(), w.requestId(), slot.slotId(),
                    w.studentId(), seat, BookingStatus.HELD, s.now.plus(terms.holdTtl()), s.now, s.now), payer,
                    terms.rules());
            s.tx.markWaiter(w.requestId(), WaitlistEntry.Status.PROMOTED, null, s.now);
            s.event(Kind.PROMOTED, booking);
            return;
        }
    }

    static IllegalStateException missing(Booking b) {
        return new IllegalStateException("slot '" + b.slotId() + "' of booking '" + b.bookingId() + "' is missing");
    }
}
