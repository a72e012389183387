package org.slotbook.core;

import org.slotbook.core.internal.Checks;

/**
 * Identifies a room within a tenant.
 *
 * <p>Any non-blank text of at most 64 characters without control characters or surrounding
 * white space; {@link #of(long)} accepts positive numbers.
 */
public record RoomId(String value) implements Identifier<RoomId> {
    /**
     * Checks the text: not blank, at most 64 characters, no control characters or surrounding white space.
     *
     * @param value the id's text
     */
    public RoomId {
        Checks.id("roomId", value);
    }

    /**
     * {@return the room id with this text}
     *
     * @param value the id's text
     */
    public static RoomId of(String value) {
        return new RoomId(value);
    }

    /**
     * {@return the room id whose text is this number}
     *
     * @param value a positive number
     */
    public static RoomId of(long value) {
        return new RoomId(Checks.id("roomId", value));
    }

    @Override
    public String toString() {
        return value;
    }
}
