package org.slotbook.core.tck;

import org.slotbook.core.spi.ConflictDetector;
import org.slotbook.core.spi.SeatLedger;

/** What every {@link ConflictDetector} must do, inside transactions of the ledger of the same store. */
public abstract class ConflictDetectorContract {
    protected abstract SeatLedger ledger();

    protected abstract ConflictDetector detector();
}
