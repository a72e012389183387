package org.slotbook.core;

import java.time.Duration;
import java.time.Instant;
import org.slotbook.core.internal.Checks;

/**
 * A half-open interval {@code [start, end)} of instants, truncated to microseconds so that every
 * supported database stores and returns it exactly.
 *
 * <p>Two ranges overlap when {@code a.start < b.end && a.end > b.start}: a session ending at 10:00
 * and one starting at 10:00 do not overlap.
 */
public record TimeRange(Instant start, Instant end) {
    public TimeRange {
        start = Checks.micros("start", start);
        end = Checks.micros("end", end);
        if (!start.isBefore(end)) {
            throw new IllegalArgumentException("end must be after start, got start=" + start + " end=" + end);
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
