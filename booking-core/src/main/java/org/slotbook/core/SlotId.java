package org.slotbook.core;

import org.slotbook.core.internal.Checks;

/**
 * Identifies one session (a class, lesson or coaching slot) within a tenant.
 *
 * <p>Any non-blank text of at most 64 characters without control characters or surrounding
 * white space; {@link #of(long)} accepts positive numbers.
 */
public record SlotId(String value) implements Identifier<SlotId> {
    public SlotId {
        Checks.id("slotId", value);
    }

    public static SlotId of(String value) {
        return new SlotId(value);
    }

    public static SlotId of(long value) {
        return new SlotId(Checks.id("slotId", value));
    }

    @Override
    public String toString() {
        return value;
    }
}
