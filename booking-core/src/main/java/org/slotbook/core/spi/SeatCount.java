package org.slotbook.core.spi;

/** Seats of one slot taken at one instant: live holds (unexpired HELD) and CONFIRMED bookings. */
public record SeatCount(int held, int confirmed) {
    /** {@return the seats held or confirmed} */
    public int taken() {
        return held + confirmed;
    }
}
