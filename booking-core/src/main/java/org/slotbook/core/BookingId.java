package org.slotbook.core;

import org.slotbook.core.internal.Checks;

/**
 * Identifies one booking within a tenant; assigned by the engine.
 *
 * <p>Any non-blank text of at most 64 characters without control characters or surrounding
 * white space; {@link #of(long)} accepts positive numbers.
 */
public record BookingId(String value) implements Comparable<BookingId> {
    public BookingId {
        Checks.id("bookingId", value);
    }

    public static BookingId of(String value) {
        return new BookingId(value);
    }

    public static BookingId of(long value) {
        return new BookingId(Checks.id("bookingId", value));
    }

    /** A fresh random booking id. */
    public static BookingId random() {
        return new BookingId(java.util.UUID.randomUUID().toString());
    }

    @Override
    public int compareTo(BookingId other) {
        return value.compareTo(other.value);
    }

    @Override
    public String toString() {
        return value;
    }
}
