package org.slotbook.core;

/** How a series is scheduled or booked when some of its occurrences cannot be. */
public enum SeriesMode {
    /** Every occurrence or none: one refusal writes nothing. */
    ALL_OR_NOTHING,
    /** Every occurrence that can be; the refused ones are listed with their reason. */
    BEST_EFFORT
}
