package org.slotbook.core;

import org.slotbook.core.internal.Checks;

/**
 * Identifies one session (a class, lesson or coaching slot) within a tenant.
 *
 * <p>Any non-blank text of at most 64 characters without control characters or surrounding
 * white space; {@link #of(long)} accepts positive numbers.
 */
public record SlotId(String value) implements Identifier<SlotId> {
    /**
     * Checks the text: not blank, at most 64 characters, no control characters or surrounding white space.
     *
     * @param value the id's text
     */
    public SlotId {
        Checks.id("slotId", value);
    }

    /**
     * {@return the slot id with this text}
     *
     * @param value the id's text
     */
    public static SlotId of(String value) {
        return new SlotId(value);
    }

    /**
     * {@return the slot id whose text is this number}
     *
     * @param value a positive number
     */
    public static SlotId of(long value) {
        return new SlotId(Checks.id("slotId", value));
    }

    @Override
    public String toString() {
        return value;
    }
}
