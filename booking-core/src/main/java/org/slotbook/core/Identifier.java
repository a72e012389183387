package org.slotbook.core;

/**
 * The identifiers of the model: {@link TenantId}, {@link SlotId}, {@link CoachId}, {@link RoomId},
 * {@link StudentId}, {@link BookingId}, {@link RequestId}, {@link PackageId} and {@link SeriesId}.
 * Each is a record over one checked text (see {@code of(String)} of each), shown as that text by
 * {@code toString()}, and ordered by it in Unicode code point order ({@link #compareCodePoints}): the
 * order of PostgreSQL's {@code COLLATE "C"} and MariaDB's {@code utf8mb4_bin}, which every store pages
 * and locks by. {@link String#compareTo} orders by UTF-16 code units instead, which puts a character
 * above U+FFFF (an emoji) before one in U+E000 to U+FFFF. No id contains a
 * bidirectional control (U+202A..U+202E, U+2066..U+2069, U+200E, U+200F, U+061C) or an invisible
 * character (U+200B, U+2060, U+FEFF), which would let one id display as another; emoji sequences
 * joined by U+200D are ids like any other text.
 *
 * @param <T> the identifier's own type: ids of different kinds never compare
 */
public sealed interface Identifier<T extends Identifier<T>> extends Comparable<T>
        permits BookingId, CoachId, PackageId, RequestId, RoomId, SeriesId, SlotId, StudentId, TenantId {

    /** {@return the identifier's text} */
    String value();

    @Override
    default int compareTo(T other) {
        return compareCodePoints(value(), other.value());
    }

    /**
     * Compares two texts by Unicode code point, the order of every id in every store (pages, lock
     * orders): negative when {@code a} comes first. Equal to comparing the texts' UTF-8 bytes unsigned.
     *
     * @param a the first text
     * @param b the second text
     * @return negative when {@code a} comes first, zero when the texts are equal, positive when {@code b} does
     */
    static int compareCodePoints(String a, String b) {
        int n = Math.min(a.length(), b.length());
        for (int i = 0; i < n; i++) {
            char x = a.charAt(i);
            char y = b.charAt(i);
            if (x != y) {
                // a surrogate (U+D800..U+DFFF, half of a code point above U+FFFF) sorts after U+E000..U+FFFF:
                // shift both ranges into code point order before comparing
                if (x >= 0xD800 && y >= 0xD800) {
                    return inCodePointOrder(x) - inCodePointOrder(y);
                }
                return x - y;
            }
        }
        return a.length() - b.length();
    }

    private static int inCodePointOrder(char c) {
        return c >= 0xE000 ? c - 0x800 : c + 0x2000;
    }
}
