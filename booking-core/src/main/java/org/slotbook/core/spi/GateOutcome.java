package org.slotbook.core.spi;

/** What the gate said to one {@link SeatReservation#tryHold}. */
public enum GateOutcome {
    /** A seat is held in the gate for the student; the ledger still has to accept it. */
    HELD,
    /** No seat left in the gate: the engine answers {@code Full} without touching the database. */
    FULL,
    /**
     * No seat left in the gate, but this request id has had a holder in this slot before (released,
     * expired or replaced since): a retry, which the engine sends to the store to be answered from
     * what it stored, as without the gate. A new request id on a full slot is {@link #FULL}.
     */
    REPLAY,
    /** The student already holds a seat of this slot in the gate, under {@link GateDecision#heldUnder()}. */
    DUPLICATE,
    /**
     * The gate has no state for this slot (never initialized, evicted — wholly or in part — or the
     * server restarted empty); the engine rebuilds it from the ledger.
     */
    MISSING,
    /**
     * Booking for the slot has not opened yet by the gate's clock, with {@link SeatReservation#OPENING_TOLERANCE}
     * to spare ({@link GateDecision#opensAt()}); the engine answers {@code NotOpenYet} without the database.
     */
    NOT_OPEN,
    /** The slot was called off ({@link SeatReservation#close}); the engine asks the database. */
    CLOSED,
    /** The gate cannot be reached in time, or there is none; the engine goes on with the database alone. */
    UNAVAILABLE
}
