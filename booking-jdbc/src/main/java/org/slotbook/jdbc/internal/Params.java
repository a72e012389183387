package org.slotbook.jdbc.internal;

import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import org.jspecify.annotations.Nullable;
import org.slotbook.core.BookingStoreException;
import org.slotbook.core.InvalidInputException;
import org.slotbook.core.spi.Terms;
import org.slotbook.jdbc.internal.Facts.Fact;

/**
 * What every family of {@link Decisions} shares: the checks of arguments before a call is sent, the
 * encodings of parameters (microseconds, records of fields) and the error of an unknown answer.
 */
final class Params {
    /** Separates the records of schedule_series and hold_all (ids never hold control characters). */
    static final char RECORD = '\u001e';
    /** Separates the fields of one record. */
    static final char FIELD = '\u001f';

    /** Microseconds since the epoch, as text (the record encodings of schedule_series and hold_all). */
    static String epochMicros(Instant instant) {
        return instant == null ? "" : Long.toString(ChronoUnit.MICROS.between(Instant.EPOCH, instant));
    }

    static long micros(Duration d) {
        return d.truncatedTo(ChronoUnit.MICROS).toNanos() / 1000;
    }

    static void record(StringBuilder out, String... fields) {
        for (int f = 0; f < fields.length; f++) {
            if (f > 0) {
                out.append(FIELD);
            }
            out.append(fields[f]);
        }
    }

    /** Binds the promotion terms at {@code i} (6 parameters); answers the next index. */
    static int bindTerms(PreparedStatement ps, int i, Terms terms) throws SQLException {
        ps.setLong(i++, micros(terms.holdTtl()));
        ps.setLong(i++, micros(terms.longestSession()));
        ps.setInt(i++, terms.rules().maxUpcoming());
        ps.setInt(i++, terms.rules().maxPerWeek());
        ps.setLong(i++, micros(terms.rules().waitlistCutoff()));
        ps.setString(i++, terms.rules().credits().name());
        return i;
    }

    static BookingStoreException unexpected(String routine, Fact answer) {
        return new BookingStoreException("routine " + routine + " answered an unknown tag '" + answer.tag() + "'");
    }

    /**
     * A caller's {@code now} (null: the database's clock) within the range every database stores (see
     * {@link org.slotbook.core.TimeRange}), refused by name and value before the call is sent.
     */
    static void inRange(String field, @Nullable Instant now) {
        if (now != null) {
            org.slotbook.core.internal.Checks.micros(field, now);
        }
    }

    static <T> T notNull(String field, T value) {
        if (value == null) {
            throw new InvalidInputException(field, field + " must not be null");
        }
        return value;
    }

    private Params() {
    }
}
