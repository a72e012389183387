package org.slotbook.core;

import org.slotbook.core.internal.Checks;

/**
 * Identifies one booking within a tenant; assigned by the engine.
 *
 * <p>Any non-blank text of at most 64 characters without control characters or surrounding
 * white space; {@link #of(long)} accepts positive numbers.
 */
public record BookingId(String value) implements Identifier<BookingId> {
    /**
     * Checks the text: not blank, at most 64 characters, no control characters or surrounding white space.
     *
     * @param value the id's text
     */
    public BookingId {
        Checks.id("bookingId", value);
    }

    /**
     * {@return the booking id with this text}
     *
     * @param value the id's text
     */
    public static BookingId of(String value) {
        return new BookingId(value);
    }

    /**
     * {@return the booking id whose text is this number}
     *
     * @param value a positive number
     */
    public static BookingId of(long value) {
        return new BookingId(Checks.id("bookingId", value));
    }

    /**
     * {@return a fresh booking id: a time-ordered UUID (version 7: 48 bits of epoch milliseconds, then random
     * bits), so new rows land at the right edge of an index} Drawn from {@code ThreadLocalRandom}: no
     * lock on the hot path.
     */
    public static BookingId random() {
        java.util.concurrent.ThreadLocalRandom random = java.util.concurrent.ThreadLocalRandom.current();
        long millis = System.currentTimeMillis();
        long msb = (millis << 16) | 0x7000L | (random.nextLong() & 0x0FFFL);
        long lsb = (random.nextLong() & 0x3FFFFFFFFFFFFFFFL) | 0x8000000000000000L;
        return new BookingId(new java.util.UUID(msb, lsb).toString());
    }

    @Override
    public String toString() {
        return value;
    }
}
