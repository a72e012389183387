package org.slotbook.core.internal.rules;

import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.slotbook.core.Attendance;
import org.slotbook.core.Booking;
import org.slotbook.core.BookingId;
import org.slotbook.core.BookingRules;
import org.slotbook.core.BookingStatus;
import org.slotbook.core.CheckInClosed;
import org.slotbook.core.CheckInNotOpen;
import org.slotbook.core.CheckInResult;
import org.slotbook.core.CheckedIn;
import org.slotbook.core.CreditEntry;
import org.slotbook.core.CreditPolicy;
import org.slotbook.core.InsufficientCredits;
import org.slotbook.core.LessonPackage;
import org.slotbook.core.NotConfirmed;
import org.slotbook.core.NotFound;
import org.slotbook.core.Slot;
import org.slotbook.core.StudentId;
import org.slotbook.core.rules.RuleTx;
import org.slotbook.core.spi.BookingEvent;
import org.slotbook.core.spi.BookingEvent.Kind;
import org.slotbook.core.spi.StoreOutcome;
import org.slotbook.core.spi.Terms;

/** Attendance: a CONFIRMED booking checked in within its window (paying then under AT_CHECK_IN). */
final class CheckIns {
    private CheckIns() {
    }

    static StoreOutcome<CheckInResult> checkIn(RuleTx tx, BookingId bookingId, @Nullable StudentId studentId,
                                               Instant now, Terms terms) {
        BookingRules rules = terms.rules();
        Optional<Endings.Locked> locked = Endings.lockBooking(tx, bookingId, studentId);
        if (locked.isEmpty()) {
            return StoreOutcome.of(new NotFound());
        }
        Booking b = locked.get().booking();
        if (b.status() != BookingStatus.CONFIRMED) {
            return StoreOutcome.of(new NotConfirmed(b));
        }
        Slot slot = locked.get().slot().slot();
        Instant opens = slot.time().start().minus(rules.checkInOpensBefore());
        Instant closes = slot.time().end().plus(rules.checkInClosesAfterEnd());
        if (b.attendance() == Attendance.CHECKED_IN) {
            return StoreOutcome.of(new CheckedIn(b, true));
        }
        if (b.attendance() == Attendance.NO_SHOW) {
            return StoreOutcome.of(new CheckInClosed(bookingId, closes));
        }
        if (now.isBefore(opens)) {
            return StoreOutcome.of(new CheckInNotOpen(bookingId, opens));
        }
        if (!now.isBefore(closes)) {
            return StoreOutcome.of(new CheckInClosed(bookingId, closes));
        }
        Booking paid = b;
        if (rules.credits() == CreditPolicy.AT_CHECK_IN && slot.cost() > 0 && b.credits() == 0) {
            LessonPackage payer = Credits.payer(tx, b.studentId(), slot, now);
            if (payer == null) {
                return StoreOutcome.of(new InsufficientCredits(slot.slotId(), slot.cost()));
            }
            paid = Credits.charge(tx, b, payer, slot.cost(), CreditEntry.Reason.DRAW, now);
        }
        Booking checkedIn = paid.with(Attendance.CHECKED_IN, now);
        tx.updateBooking(checkedIn);
        return StoreOutcome.of(new CheckedIn(checkedIn, false), List.of(new BookingEvent(Kind.CHECKED_IN, checkedIn)));
    }
}
