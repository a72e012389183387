package org.slotbook.core;

import java.util.List;

/** A coach, room or student is already busy during the requested time; the list names each clash. */
public record Conflict(List<ResourceConflict> conflicts) implements HoldResult, ScheduleResult {
    /**
     * Checks that there is at least one conflict.
     *
     * @param conflicts the conflict detector, in the same transactions as the ledger
     */
    public Conflict {
        conflicts = List.copyOf(conflicts);
        if (conflicts.isEmpty()) {
            throw new InvalidInputException("conflicts must not be empty");
        }
    }
}
