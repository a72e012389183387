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
 * <p>Two ranges overlap when {@code a.start < b.end && a.end > b.start}: a session ending at 10:00
 * and one starting at 10:00 do not overlap.
 */
public record TimeRange(Instant start, Instant end) {
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

    public static TimeRange of(Instant start, Instant end) {
        return new TimeRange(start, end);
    }

    public static TimeRange of(Instant start, Duration length) {
        Checks.notNull("start", start);
        Checks.positive("length", length);
        return new TimeRange(start, start.plus(length));
    }

    public boolean overlaps(TimeRange other) {
        return start.isBefore(other.end) && end.isAfter(other.start);
    }

    public boolean contains(Instant instant) {
        return !instant.isBefore(start) && instant.isBefore(end);
    }

    public Duration duration() {
        return Duration.between(start, end);
    }

    @Override
    public String toString() {
        return "[" + start + ", " + end + ")";
    }
}
