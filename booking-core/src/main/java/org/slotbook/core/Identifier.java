package org.slotbook.core;

/**
 * The identifiers of the model: {@link TenantId}, {@link SlotId}, {@link CoachId}, {@link RoomId},
 * {@link StudentId}, {@link BookingId}, {@link RequestId}, {@link PackageId} and {@link SeriesId}.
 * Each is a record over one checked text (see {@code of(String)} of each), shown as that text by
 * {@code toString()}, and ordered by it as {@link String#compareTo} orders text. No id contains a
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
        return value().compareTo(other.value());
    }
}
