package org.slotbook.core.spi;

import java.util.List;
import org.slotbook.core.Booking;
import org.slotbook.core.Slot;
import org.slotbook.core.internal.Checks;

/** A slot and the bookings that hold its seats at one instant. */
public record LiveSlot(Slot slot, List<Booking> live) {
    /**
     * Checks that the slot and the bookings are present.
     *
     * @param slot the slot as stored
     * @param live the bookings holding a seat, by seat
     */
    public LiveSlot {
        Checks.notNull("slot", slot);
        live = List.copyOf(Checks.notNull("live", live));
    }
}
