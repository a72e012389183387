package org.slotbook.core;

import java.time.Duration;
import java.time.Instant;
import org.slotbook.core.internal.Checks;

/**
 * A half-open interval {@code [start, end)} of instants, truncated to microseconds so that every
 * supported database stores and returns it exactly.
 *
 * <p>Precision is one microsecond: {@code start} and {@code end} lose their nanoseconds below the
 * microsecond before they are compared, so a range shorter than a microsecond (for example
 * {@code 09:00:00.000000010} to {@code 09:00:00.000000020}) has equal ends and is refused.
 *
 * <p>Range: every instant is from 1900-01-01T00:00:00Z (inclusive) to 9999-01-01T00:00:00Z (exclusive),
 * which every supported database stores (MariaDB's DATETIME(6) ends with the year 9999, and the year
 * left over holds what is derived from an instant: week ends, hold deadlines); one outside is refused
 * with an {@link IllegalArgumentException} naming the field and the value, before anything is written.
 *
 * <p>Two ranges overlap when {@code a.start < b.end && a.end > b.start}: a session ending at 10:00
 * and one starting at 10:00 do not overlap.
 */
public record TimeRange(Instant start, Instant end) {
    /**
     * Checks the range: start before end, both in whole microseconds.
     *
     * @param start the start, inclusive
     * @param end the end, exclusive
     */
    public TimeRange {
        Instant givenStart = Checks.notNull("start", start);
        Instant givenEnd = Checks.notNull("end", end);
        start = Checks.micros("start", start);
        end = Checks.micros("end", end);
        if (start.equals(end) && givenStart.isBefore(givenEnd)) {
            throw new InvalidInputException("end must be after start: start and end are the same after truncation"
                    + " to microseconds (the precision of a TimeRange), got start=" + givenStart + " end=" + givenEnd
                    + ", both " + start);
        }
        if (!start.isBefore(end)) {
            throw new InvalidInputException("end must be after start, got start=" + start + " end=" + end);
        }
    }

    /**
     * {@return the range from {@code start} to {@code end}}
     *
     * @param start the start, inclusive
     * @param end the end, exclusive
     */
    public static TimeRange of(Instant start, Instant end) {
        return new TimeRange(start, end);
    }

    /**
     * {@return the range from {@code start} lasting {@code length}}
     *
     * @param start the start, inclusive
     * @param length how long it lasts
     */
    public static TimeRange of(Instant start, Duration length) {
        Checks.notNull("start", start);
        Checks.positive("length", length);
        return new TimeRange(start, start.plus(length));
    }

    /**
     * {@return true when the two ranges share an instant}
     *
     * @param other the other range
     */
    public boolean overlaps(TimeRange other) {
        return start.isBefore(other.end) && end.isAfter(other.start);
    }

    /**
     * {@return true when {@code instant} is in this range}
     *
     * @param instant the instant to test
     */
    public boolean contains(Instant instant) {
        return !instant.isBefore(start) && instant.isBefore(end);
    }

    /** {@return the length of this range} */
    public Duration duration() {
        return Duration.between(start, end);
    }

    @Override
    public String toString() {
        return "[" + start + ", " + end + ")";
    }
}
