package org.slotbook.core.rules;

import java.time.Instant;
import org.slotbook.core.Slot;
import org.slotbook.core.internal.Checks;

/**
 * A slot as the rules store it: the slot and the week it falls in (for the weekly limit), fixed
 * when it was scheduled.
 *
 * @param slot      the slot, with its status
 * @param weekStart the start of the slot's week, inclusive
 * @param weekEnd   the end of the slot's week, exclusive
 */
public record StoredSlot(Slot slot, Instant weekStart, Instant weekEnd) {
    /**
     * Checks that every component is present.
     *
     * @param slot      the slot, with its status
     * @param weekStart the start of the slot's week, inclusive
     * @param weekEnd   the end of the slot's week, exclusive
     */
    public StoredSlot {
        Checks.notNull("slot", slot);
        Checks.notNull("weekStart", weekStart);
        Checks.notNull("weekEnd", weekEnd);
    }
}
