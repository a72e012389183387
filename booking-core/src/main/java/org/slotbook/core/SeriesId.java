package org.slotbook.core;

import org.slotbook.core.internal.Checks;

/**
 * Identifies a weekly series of sessions within a tenant. Its occurrences get the slot ids {@code <seriesId>/<yyyy-MM-dd>}, so it is at most 53 characters.
 *
 * <p>Any non-blank text of at most 64 characters without control characters or surrounding
 * white space; {@link #of(long)} accepts positive numbers.
 */
public record SeriesId(String value) implements Identifier<SeriesId> {
    /**
     * Checks the text: not blank, at most 64 characters, no control characters or surrounding white space.
     *
     * @param value the id's text
     */
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

    /**
     * {@return the slot id of this series' occurrence on {@code day} (its wall-clock date in the series' zone)}
     *
     * @param day the date of the occurrence
     */
    public SlotId occurrence(java.time.LocalDate day) {
        return SlotId.of(value + "/" + day);
    }

    /**
     * {@return the series id with this text}
     *
     * @param value the id's text
     */
    public static SeriesId of(String value) {
        return new SeriesId(value);
    }

    /**
     * {@return the series id whose text is this number}
     *
     * @param value a positive number
     */
    public static SeriesId of(long value) {
        return new SeriesId(Checks.id("seriesId", value));
    }

    @Override
    public String toString() {
        return value;
    }
}
