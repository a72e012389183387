package org.slotbook.core.tck;

import org.slotbook.core.spi.SeatReservation;

/** What every {@link SeatReservation} (gate) must do. */
public abstract class SeatReservationContract {
    protected abstract SeatReservation reservation();
}
