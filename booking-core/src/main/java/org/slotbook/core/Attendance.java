package org.slotbook.core;

/** Whether the student came to a CONFIRMED booking's session. */
public enum Attendance {
    /** Not checked in (yet). */
    NONE,
    /** Checked in within the check-in window ({@link BookingEngine#checkIn}). */
    CHECKED_IN,
    /** The session ended and its check-in window closed without a check-in (marked by the sweep). */
    NO_SHOW
}
