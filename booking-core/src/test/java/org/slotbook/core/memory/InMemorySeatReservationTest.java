package org.slotbook.core.memory;

import org.slotbook.core.spi.SeatReservation;
import org.slotbook.core.tck.SeatReservationContract;

class InMemorySeatReservationTest extends SeatReservationContract {
    private static final InMemorySeatReservation GATE = InMemorySeatReservation.create();

    @Override
    protected SeatReservation reservation() {
        return GATE;
    }
}
