package org.slotbook.core;

/**
 * What a reconciliation did to the gate: slots checked, holders added (known to the ledger, missing
 * in the gate), holders removed (unknown to the ledger and older than the in-flight grace), slots
 * whose capacity was corrected, and slots the gate could not be reached for.
 */
public record ReconcileReport(int slotsChecked, int holdersAdded, int holdersRemoved, int capacityFixed,
                              int slotsUnreachable) {
    /** Nothing repaired. */
    public static final ReconcileReport EMPTY = new ReconcileReport(0, 0, 0, 0, 0);

    /**
     * {@return the sum of both reports}
     *
     * @param other the report to add
     */
    public ReconcileReport plus(ReconcileReport other) {
        return new ReconcileReport(slotsChecked + other.slotsChecked, holdersAdded + other.holdersAdded,
                holdersRemoved + other.holdersRemoved, capacityFixed + other.capacityFixed,
                slotsUnreachable + other.slotsUnreachable);
    }
}
