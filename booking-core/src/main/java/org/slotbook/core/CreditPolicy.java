package org.slotbook.core;

/**
 * When a booking of a slot with a {@link Slot#cost() cost} pays for it from the student's
 * {@link LessonPackage}. Either way the student needs a package that can pay to get a seat.
 */
public enum CreditPolicy {
    /**
     * The hold draws the credits in the step that claims the seat. A cancel before the cutoff (or by
     * staff, or of the whole slot) and an expired hold refund them; a late cancel and a no-show keep them.
     */
    AT_BOOKING,
    /**
     * The check-in draws the credits. A late cancel and a no-show draw them as a forfeit (when a package
     * can still pay); a cancel before the cutoff draws nothing.
     */
    AT_CHECK_IN
}
