package org.slotbook.core;

import org.slotbook.core.internal.Checks;

/**
 * Identifies a weekly series of sessions within a tenant. Its occurrences get the slot ids {@code <seriesId>/<yyyy-MM-dd>}, so it is at most 53 characters.
 *
 * <p>Any non-blank text of at most 64 characters without control characters or surrounding
 * white space; {@link #of(long)} accepts positive numbers.
 */
public record SeriesId(String value) implements Identifier<SeriesId> {
    public SeriesId {
        Checks.id("seriesId", value);
        if (value.length() > MAX_LENGTH) {
            throw new InvalidInputException("seriesId must be at most " + MAX_LENGTH + " characters (its occurrences"
                    + " are named <seriesId>/<yyyy-MM-dd>), got " + value.length() + " characters: '"
                    + Checks.escape(value) + "'");
        }
    }

    /** The longest series id: 64 minus the 11 characters of {@code /yyyy-MM-dd}. */
    public static final int MAX_LENGTH = 53;

    /** The slot id of this series' occurrence on {@code day} (its wall-clock date in the series' zone). */
    public SlotId occurrence(java.time.LocalDate day) {
        return SlotId.of(value + "/" + day);
    }

    public static SeriesId of(String value) {
        return new SeriesId(value);
    }

    public static SeriesId of(long value) {
        return new SeriesId(Checks.id("seriesId", value));
    }

    @Override
    public String toString() {
        return value;
    }
}
