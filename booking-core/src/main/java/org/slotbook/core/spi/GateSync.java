package org.slotbook.core.spi;

/**
 * What {@link SeatReservation#reconcile} changed in the gate for one slot: holders added (missing
 * from the gate, not tombstoned, still live), holders removed (not named by the truth and older than
 * the in-flight grace), and whether the capacity was set (it differed, or the state was created).
 * A closed slot answers {@code (0, 0, false)}.
 */
public record GateSync(int added, int removed, boolean capacityFixed) {
}
