package org.slotbook.core.spi;

/** What {@link SeatReservation#reconcile} changed in the gate for one slot. */
public record GateSync(int added, int removed, boolean capacityFixed) {
}
