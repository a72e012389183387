package org.slotbook.core.tck;

import org.slotbook.core.spi.ConflictDetector;
import org.slotbook.core.spi.SeatLedger;
import org.slotbook.core.spi.SeatReservation;

/**
 * The engine's guarantees, end to end, over one backend combination. The suite builds its own
 * {@code BookingEngine} with a {@link MutableClock}.
 */
public abstract class BookingEngineContract {
    protected abstract SeatLedger ledger();

    protected abstract ConflictDetector detector();

    /** The gate in front of the ledger; {@link SeatReservation#none()} for DB-only. */
    protected SeatReservation reservation() {
        return SeatReservation.none();
    }
}
