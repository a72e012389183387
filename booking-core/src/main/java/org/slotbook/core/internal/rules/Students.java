package org.slotbook.core.internal.rules;

import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.slotbook.core.Booking;
import org.slotbook.core.BookingRules;
import org.slotbook.core.LimitReached;
import org.slotbook.core.ResourceConflict;
import org.slotbook.core.ResourceRef;
import org.slotbook.core.Slot;
import org.slotbook.core.StudentId;
import org.slotbook.core.TimeRange;
import org.slotbook.core.WaitlistEntry;
import org.slotbook.core.internal.Checks;
import org.slotbook.core.rules.Occupancy;
import org.slotbook.core.rules.RuleTx;
import org.slotbook.core.rules.StoredSlot;
import org.slotbook.core.rules.Waiter;

/** What a student may book: overlaps with the student's live bookings, the limits, and waitlist places. */
final class Students {
    private Students() {
    }

    /** {@return the booking of the occupation, when it is a student's} */
    static Optional<Booking> bookingOf(RuleTx tx, Occupancy o) {
        return o.bookingId() == null ? Optional.empty() : tx.booking(o.bookingId(), false);
    }

    /** The student's occupations overlapping {@code time} whose booking is live; a dead hold blocks nothing. */
    static List<ResourceConflict> clashes(RuleTx tx, StudentId studentId, TimeRange time, Instant now) {
        ResourceRef student = ResourceRef.of(studentId);
        return tx.occupations(student, time.start(), time.end()).stream()
                .filter(o -> bookingOf(tx, o).map(b -> b.isLive(now)).orElse(false))
                .map(o -> new ResourceConflict(student, o.slotId(), Optional.ofNullable(o.bookingId()), o.time()))
                .toList();
    }

    /**
     * The limit the student reached for a seat of {@code slot}, counted over the student's live bookings:
     * those that end after now (UPCOMING, checked first), those that start in the slot's week (WEEKLY).
     */
    static Optional<LimitReached> limitReached(RuleTx tx, StudentId studentId, StoredSlot slot, BookingRules rules,
                                               Instant now) {
        if (rules.maxUpcoming() == 0 && rules.maxPerWeek() == 0) {
            return Optional.empty();
        }
        int upcoming = 0;
        int thisWeek = 0;
        // an occupation that ends after now, or starts in the week, overlaps [min(now, week start), ever)
        Instant lowest = now.isBefore(slot.weekStart()) ? now : slot.weekStart();
        for (Occupancy o : tx.occupations(ResourceRef.of(studentId), lowest, Checks.MAX_INSTANT)) {
            if (!bookingOf(tx, o).map(b -> b.isLive(now)).orElse(false)) {
                continue;
            }
            if (o.time().end().isAfter(now)) {
                upcoming++;
            }
            if (!o.time().start().isBefore(slot.weekStart()) && o.time().start().isBefore(slot.weekEnd())) {
                thisWeek++;
            }
        }
        if (rules.maxUpcoming() > 0 && upcoming >= rules.maxUpcoming()) {
            return Optional.of(new LimitReached(LimitReached.Limit.UPCOMING, rules.maxUpcoming()));
        }
        if (rules.maxPerWeek() > 0 && thisWeek >= rules.maxPerWeek()) {
            return Optional.of(new LimitReached(LimitReached.Limit.WEEKLY, rules.maxPerWeek()));
        }
        return Optional.empty();
    }

    /** {@return the last instant a waiter of the slot may still be promoted before (exclusive)} */
    static Instant promotionCutoff(Slot slot, BookingRules rules) {
        return slot.time().start().minus(rules.waitlistCutoff());
    }

    /** {@return the waiter as an entry, with its position among the slot's WAITING waiters (0 when not waiting)} */
    static WaitlistEntry entry(RuleTx tx, Waiter w) {
        int position = 0;
        if (w.status() == WaitlistEntry.Status.WAITING) {
            for (Waiter other : tx.waiting(w.slotId())) {
                position++;
                if (other.requestId().equals(w.requestId())) {
                    break;
                }
            }
        }
        return entry(tx, w, position);
    }

    /** {@return the waiter as an entry at {@code position}} */
    static WaitlistEntry entry(RuleTx tx, Waiter w, int position) {
        return new WaitlistEntry(tx.tenantId(), w.slotId(), w.requestId(), w.studentId(), position, w.status(),
                w.reason(), w.bookingId(), w.joinedAt());
    }

    /** {@return the waiter as it is after {@code status}} */
    static Waiter marked(Waiter w, WaitlistEntry.Status status, WaitlistEntry.@Nullable SkipReason reason) {
        return new Waiter(w.seq(), w.slotId(), w.requestId(), w.studentId(), w.bookingId(), w.joinedAt(), status,
                reason);
    }
}
