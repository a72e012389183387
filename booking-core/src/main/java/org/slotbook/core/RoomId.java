package org.slotbook.core;

import org.slotbook.core.internal.Checks;

/**
 * Identifies a room within a tenant.
 *
 * <p>Any non-blank text of at most 64 characters without control characters or surrounding
 * white space; {@link #of(long)} accepts positive numbers.
 */
public record RoomId(String value) implements Identifier<RoomId> {
    public RoomId {
        Checks.id("roomId", value);
    }

    public static RoomId of(String value) {
        return new RoomId(value);
    }

    public static RoomId of(long value) {
        return new RoomId(Checks.id("roomId", value));
    }

    @Override
    public String toString() {
        return value;
    }
}
