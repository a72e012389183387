package org.slotbook.core.spi;

/** What the gate said to one {@link SeatReservation#tryHold}. */
public enum GateOutcome {
    /** A seat is held in the gate for the student; the ledger still has to accept it. */
    HELD,
    /** No seat left in the gate: the engine answers {@code Full} without touching the database. */
    FULL,
    /** The student already holds a seat of this slot in the gate, under {@link GateDecision#heldUnder()}. */
    DUPLICATE,
    /** The gate has no state for this slot (never initialized, evicted, or the server restarted empty). */
    MISSING,
    /** The gate cannot be reached in time; the engine goes on with the database alone. */
    UNAVAILABLE,
    /** There is no gate (DB-only mode); the engine goes to the database. */
    BYPASS
}
