package org.slotbook.core;

/** Life cycle of a booking: {@code HELD -> CONFIRMED | CANCELLED | EXPIRED}, {@code CONFIRMED -> CANCELLED}. */
public enum BookingStatus {
    /** A seat is held until {@link Booking#heldUntil()}; it must be confirmed before then. */
    HELD,
    CONFIRMED,
    CANCELLED,
    /** The hold ran out before it was confirmed; its seat went back to the slot. */
    EXPIRED;

    /** HELD or CONFIRMED: the booking occupies a seat (a HELD one only while its hold is live). */
    public boolean isActive() {
        return this == HELD || this == CONFIRMED;
    }
}
