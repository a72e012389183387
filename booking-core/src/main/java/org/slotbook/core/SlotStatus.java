package org.slotbook.core;

/** Whether a slot still sells seats. */
public enum SlotStatus {
    /** Open: takes holds while the booking window is open. */
    OPEN,
    /** The session was called off: every booking was released and no new hold is taken. */
    CANCELLED
}
