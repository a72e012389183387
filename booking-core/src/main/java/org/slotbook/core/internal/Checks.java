package org.slotbook.core.internal;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;

/** Argument checks whose messages name the field and the offending value. Not public API. */
public final class Checks {
    /** Longest id accepted, so every database column can hold it. */
    public static final int MAX_ID_LENGTH = 64;

    private Checks() {
    }

    public static <T> T notNull(String field, T value) {
        if (value == null) {
            throw new IllegalArgumentException(field + " must not be null");
        }
        return value;
    }

    public static String id(String field, String value) {
        if (value == null) {
            throw new IllegalArgumentException(field + " must not be null");
        }
        if (value.isBlank()) {
            throw new IllegalArgumentException(field + " must not be blank, got '" + value + "'");
        }
        if (value.length() > MAX_ID_LENGTH) {
            throw new IllegalArgumentException(field + " must be at most " + MAX_ID_LENGTH
                    + " characters, got " + value.length() + " characters: '" + value.substring(0, 20) + "...'");
        }
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (Character.isISOControl(c)) {
                throw new IllegalArgumentException(field + " must not contain control characters, got '"
                        + value.replaceAll("\\p{Cntrl}", "?") + "'");
            }
        }
        if (!value.strip().equals(value)) {
            throw new IllegalArgumentException(field + " must not start or end with white space, got '" + value + "'");
        }
        return value;
    }

    public static String id(String field, long value) {
        if (value <= 0) {
            throw new IllegalArgumentException(field + " must be positive, got " + value);
        }
        return Long.toString(value);
    }

    public static int positive(String field, int value) {
        if (value <= 0) {
            throw new IllegalArgumentException(field + " must be positive, got " + value);
        }
        return value;
    }

    public static int between(String field, int value, int min, int max) {
        if (value < min || value > max) {
            throw new IllegalArgumentException(field + " must be between " + min + " and " + max + ", got " + value);
        }
        return value;
    }

    public static Duration positive(String field, Duration value) {
        notNull(field, value);
        if (value.isZero() || value.isNegative()) {
            throw new IllegalArgumentException(field + " must be positive, got " + value);
        }
        return value;
    }

    public static Duration notNegative(String field, Duration value) {
        notNull(field, value);
        if (value.isNegative()) {
            throw new IllegalArgumentException(field + " must not be negative, got " + value);
        }
        return value;
    }

    /** Instants are kept at microsecond precision, which every supported database round-trips exactly. */
    public static Instant micros(String field, Instant value) {
        return notNull(field, value).truncatedTo(ChronoUnit.MICROS);
    }
}
