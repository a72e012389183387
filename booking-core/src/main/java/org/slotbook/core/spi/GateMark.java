package org.slotbook.core.spi;

/**
 * A point on a gate's own clock, taken by {@link SeatReservation#mark} before a ledger read that a
 * {@link SeatReservation#reconcileFrom reconcile} brings: a release the gate recorded after the mark
 * may be missing from that read. Comparable only with the marks and records of the gate that made it
 * (Redis: the server's {@code TIME} in epoch milliseconds; the in-memory gate: a count of its steps).
 */
public record GateMark(long position) {
}
