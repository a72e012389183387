package org.slotbook.core;

/** Life cycle of a booking: {@code HELD -> CONFIRMED | CANCELLED | EXPIRED}, {@code CONFIRMED -> CANCELLED}. */
public enum BookingStatus {
    /** A seat is held until {@link Booking#heldUntil()}; it must be confirmed before then. */
    HELD,
    /** Confirmed: the seat is the student's until cancelled. */
    CONFIRMED,
    /** Cancelled by the student, by staff, or with the slot; the seat went back. */
    CANCELLED,
    /** The hold ran out before it was confirmed; its seat went back to the slot. */
    EXPIRED;

    /**
     * HELD or CONFIRMED: the booking occupies a seat (a HELD one only while its hold is live).
     *
     * @return true for HELD and CONFIRMED
     */
    public boolean isActive() {
        return this == HELD || this == CONFIRMED;
    }
}
