package org.slotbook.core.internal.rules;

import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.slotbook.core.Booking;
import org.slotbook.core.BookingRules;
import org.slotbook.core.BookingStatus;
import org.slotbook.core.CreditEntry;
import org.slotbook.core.CreditPolicy;
import org.slotbook.core.LessonPackage;
import org.slotbook.core.PackageGrant;
import org.slotbook.core.ResourceRef;
import org.slotbook.core.Slot;
import org.slotbook.core.StudentId;
import org.slotbook.core.internal.Checks;
import org.slotbook.core.rules.Occupancy;
import org.slotbook.core.rules.RuleTx;

/**
 * Lesson packages and the credits that move between them and bookings: every movement is a journal
 * entry ({@link RuleTx#appendCredit}), made under the student's lock.
 */
final class Credits {
    /** The order packages pay in: the one that runs out first, then the lowest package id. */
    static final Comparator<LessonPackage> PACKAGE_ORDER =
            Comparator.comparing(LessonPackage::validUntil).thenComparing(LessonPackage::packageId);

    private Credits() {
    }

    /** Grants a package, or answers the stored one of its id (nothing written). */
    static LessonPackage grant(RuleTx tx, PackageGrant grant, Instant now) {
        var stored = tx.lessonPackage(grant.packageId(), false);
        if (stored.isPresent()) {
            return stored.get();
        }
        tx.lock(List.of(ResourceRef.of(grant.studentId())));
        stored = tx.lessonPackage(grant.packageId(), true);
        if (stored.isPresent()) {
            return stored.get();
        }
        tx.insertPackage(new LessonPackage(tx.tenantId(), grant.packageId(), grant.studentId(), grant.credits(), 0,
                grant.validFrom(), grant.validUntil(), grant.classTypes(), now));
        tx.appendCredit(grant.packageId(), CreditEntry.Reason.GRANT, grant.credits(), null, now);
        return tx.lessonPackage(grant.packageId(), false).orElseThrow(() -> new IllegalStateException(
                "package '" + grant.packageId() + "' is missing after its grant"));
    }

    /**
     * The package that pays for the student's seat in {@code slot}: of those that cover it and still
     * hold its cost, the one that runs out first; null when none can, even after the credits of the
     * student's dead holds came back.
     */
    static @Nullable LessonPackage payer(RuleTx tx, StudentId studentId, Slot slot, Instant now) {
        LessonPackage payer = payer(tx, studentId, slot);
        return payer == null && refundDeadHolds(tx, studentId, now) ? payer(tx, studentId, slot) : payer;
    }

    /** As {@link #payer(RuleTx, StudentId, Slot, Instant)}, from the packages as they are. */
    private static @Nullable LessonPackage payer(RuleTx tx, StudentId studentId, Slot slot) {
        return tx.packagesOf(studentId).stream().filter(p -> p.covers(slot) && p.remaining() >= slot.cost())
                .min(PACKAGE_ORDER).orElse(null);
    }

    /**
     * Gives back the credits the student's dead holds (HELD, deadline passed, not swept yet) still hold
     * (a REFUND each); the holds themselves stay for the sweep or a takeover to expire. Asked only when no
     * package can pay: a credit in a hold that ran out is the student's again. Whether any came back.
     */
    private static boolean refundDeadHolds(RuleTx tx, StudentId studentId, Instant now) {
        boolean any = false;
        for (Occupancy o : tx.occupations(ResourceRef.of(studentId), Checks.MIN_INSTANT, Checks.MAX_INSTANT)) {
            Booking b = Students.bookingOf(tx, o).orElse(null);
            if (b != null && b.status() == BookingStatus.HELD && !b.isLive(now) && b.credits() > 0) {
                refund(tx, b, now);
                any = true;
            }
        }
        return any;
    }

    /** Draws {@code cost} from {@code payer} for the stored booking {@code b}; answers it holding them. */
    static Booking charge(RuleTx tx, Booking b, LessonPackage payer, int cost, CreditEntry.Reason reason,
                          Instant now) {
        tx.appendCredit(payer.packageId(), reason, -cost, b, now);
        Booking paid = b.withCredits(payer.packageId(), cost, now);
        tx.updateBooking(paid);
        return paid;
    }

    /** Gives back the credits the stored booking {@code b} holds (REFUND); answers it holding none. */
    static Booking refund(RuleTx tx, Booking b, Instant now) {
        if (b.credits() == 0 || b.packageId() == null) {
            return b;
        }
        tx.appendCredit(b.packageId(), CreditEntry.Reason.REFUND, b.credits(), b, now);
        Booking refunded = b.withCredits(null, 0, now);
        tx.updateBooking(refunded);
        return refunded;
    }

    /**
     * What a late cancel by the student and a no-show cost: under AT_CHECK_IN, a booking of a slot with
     * a cost that holds no credits draws them now as a FORFEIT when a package can pay (else nothing);
     * otherwise the booking keeps what it holds.
     */
    static Booking forfeit(RuleTx tx, Booking b, Slot slot, BookingRules rules, Instant now) {
        if (rules.credits() != CreditPolicy.AT_CHECK_IN || slot.cost() == 0 || b.credits() > 0) {
            return b;
        }
        LessonPackage payer = payer(tx, b.studentId(), slot, now);
        return payer == null ? b : charge(tx, b, payer, slot.cost(), CreditEntry.Reason.FORFEIT, now);
    }
}
