package org.slotbook.core.internal;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import org.slotbook.core.InvalidInputException;

/** Argument checks whose messages name the field and the offending value (escaped). Not public API. */
public final class Checks {
    /** Longest id accepted, so every database column can hold it. */
    public static final int MAX_ID_LENGTH = 64;

    private Checks() {
    }

    public static <T> T notNull(String field, T value) {
        if (value == null) {
            throw new InvalidInputException(field, field + " must not be null");
        }
        return value;
    }

    /**
     * An id: well-formed Unicode (no unpaired UTF-16 surrogate, which the databases would store as
     * {@code ?} or drop, making two ids collide), not made only of white space (including the
     * non-breaking and other Unicode spaces that {@link String#isBlank} lets through), at most
     * {@value #MAX_ID_LENGTH} characters, without control characters, bidirectional controls or invisible
     * characters (see {@code hidden}), or surrounding white space.
     * Messages show a refused value with its unusual characters escaped (<code>&#92;uD800</code>).
     */
    public static String id(String field, String value) {
        if (value == null) {
            throw new InvalidInputException(field, field + " must not be null");
        }
        if (printableAscii(value)) {
            return value; // nothing below can refuse it
        }
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < value.length() && Character.isLowSurrogate(value.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(c)) {
                throw new InvalidInputException(field, field + " must be well-formed Unicode, got an unpaired surrogate "
                        + escape(String.valueOf(c)) + " at index " + i + " in '" + escape(value) + "'");
            }
        }
        if (value.codePoints().allMatch(cp -> Character.isWhitespace(cp) || Character.isSpaceChar(cp))) {
            throw new InvalidInputException(field, field + " must not be blank, got '" + escape(value) + "'");
        }
        if (value.length() > MAX_ID_LENGTH) {
            throw new InvalidInputException(field, field + " must be at most " + MAX_ID_LENGTH
                    + " characters, got " + value.length() + " characters: '"
                    + escape(value.substring(0, value.offsetByCodePoints(0, 20))) + "...'");
        }
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (Character.isISOControl(c)) {
                throw new InvalidInputException(field, field + " must not contain control characters, got '"
                        + escape(value) + "'");
            }
            if (hidden(c)) {
                throw new InvalidInputException(field + " must not contain bidirectional controls or invisible"
                        + " characters, got " + escape(String.valueOf(c)) + " at index " + i + " in '"
                        + escape(value) + "'");
            }
        }
        if (!value.strip().equals(value)) {
            throw new InvalidInputException(field, field + " must not start or end with white space, got '"
                    + escape(value) + "'");
        }
        return value;
    }

    /**
     * Whether {@code c} would make an id display as another one: a bidirectional control (the embeddings
     * and overrides U+202A..U+202E, the isolates U+2066..U+2069, the marks U+200E, U+200F and U+061C) or an
     * invisible character (U+200B zero width space, U+2060 word joiner, U+FEFF zero width no-break space).
     * U+200D (zero width joiner) stays allowed: emoji sequences are made with it.
     */
    /** {@return whether {@code value} is 1 to {@value #MAX_ID_LENGTH} printable ASCII characters, none a space} */
    private static boolean printableAscii(String value) {
        int n = value.length();
        if (n == 0 || n > MAX_ID_LENGTH) {
            return false;
        }
        for (int i = 0; i < n; i++) {
            char c = value.charAt(i);
            if (c <= ' ' || c >= '\u007F') {
                return false;
            }
        }
        return true;
    }

    private static boolean hidden(char c) {
        return c >= '\u202A' && c <= '\u202E' || c >= '\u2066' && c <= '\u2069'
                || c == '\u200E' || c == '\u200F' || c == '\u061C'
                || c == '\u200B' || c == '\u2060' || c == '\uFEFF';
    }

    /**
     * A class type: an {@link #id} of at most 32 characters without a comma (stores keep a package's
     * types as one comma-separated text).
     */
    public static String classType(String field, String value) {
        id(field, value);
        if (value.length() > 32 || value.indexOf(',') >= 0) {
            throw new InvalidInputException(field, field + " must be at most 32 characters without a comma, got '"
                    + escape(value) + "'");
        }
        return value;
    }

    /**
     * {@code value} with every character outside printable ASCII that is a control, format, space,
     * unassigned or private-use character, or an unpaired surrogate, written as <code>&#92;uXXXX</code>.
     */
    public static String escape(String value) {
        StringBuilder out = new StringBuilder(value.length());
        for (int i = 0; i < value.length(); ) {
            int cp = value.codePointAt(i);
            int n = Character.charCount(cp);
            if (cp >= 0x20 && cp < 0x7f || printable(cp)) {
                out.appendCodePoint(cp);
            } else {
                for (int k = i; k < i + n; k++) {
                    out.append(String.format("\\u%04X", (int) value.charAt(k)));
                }
            }
            i += n;
        }
        return out.toString();
    }

    private static boolean printable(int cp) {
        if (cp < 0xa0 || Character.isWhitespace(cp) || Character.isSpaceChar(cp)) {
            return false;
        }
        return switch (Character.getType(cp)) {
            case Character.CONTROL, Character.FORMAT, Character.SURROGATE, Character.PRIVATE_USE,
                 Character.UNASSIGNED, Character.LINE_SEPARATOR, Character.PARAGRAPH_SEPARATOR -> false;
            default -> true;
        };
    }

    public static String id(String field, long value) {
        if (value <= 0) {
            throw new InvalidInputException(field, field + " must be positive, got " + value);
        }
        return Long.toString(value);
    }

    public static int positive(String field, int value) {
        if (value <= 0) {
            throw new InvalidInputException(field, field + " must be positive, got " + value);
        }
        return value;
    }

    public static int between(String field, int value, int min, int max) {
        if (value < min || value > max) {
            throw new InvalidInputException(field, field + " must be between " + min + " and " + max + ", got " + value);
        }
        return value;
    }

    public static Duration positive(String field, Duration value) {
        notNull(field, value);
        if (value.isZero() || value.isNegative()) {
            throw new InvalidInputException(field, field + " must be positive, got " + value);
        }
        return value;
    }

    public static Duration notNegative(String field, Duration value) {
        notNull(field, value);
        if (value.isNegative()) {
            throw new InvalidInputException(field, field + " must not be negative, got " + value);
        }
        return value;
    }

    /**
     * The earliest instant Slotbook accepts, 1900-01-01T00:00:00Z: after the Gregorian reform everywhere,
     * so every driver converts it without a calendar shift.
     */
    public static final Instant MIN_INSTANT = Instant.parse("1900-01-01T00:00:00Z");

    /**
     * The first instant Slotbook refuses, 9999-01-01T00:00:00Z. MariaDB's DATETIME(6) stores up to
     * 9999-12-31 23:59:59.999999 (PostgreSQL and H2 much further): the year left over holds what is
     * derived from an accepted instant (a week's end, a hold deadline, a series occurrence, at most 366
     * days on) and what is derived backwards (cutoffs) stays far above DATETIME's 1000-01-01.
     */
    public static final Instant MAX_INSTANT = Instant.parse("9999-01-01T00:00:00Z");

    /**
     * An instant every supported database stores exactly: from {@link #MIN_INSTANT} (inclusive) to
     * {@link #MAX_INSTANT} (exclusive), kept at microsecond precision, which every one round-trips.
     */
    public static Instant micros(String field, Instant value) {
        notNull(field, value);
        if (value.isBefore(MIN_INSTANT) || !value.isBefore(MAX_INSTANT)) {
            throw new InvalidInputException(field + " must be from " + MIN_INSTANT + " and before " + MAX_INSTANT
                    + ", got " + value);
        }
        return value.truncatedTo(ChronoUnit.MICROS);
    }
}
