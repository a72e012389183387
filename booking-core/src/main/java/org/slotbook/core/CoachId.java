package org.slotbook.core;

import org.slotbook.core.internal.Checks;

/**
 * Identifies a coach within a tenant.
 *
 * <p>Any non-blank text of at most 64 characters without control characters or surrounding
 * white space; {@link #of(long)} accepts positive numbers.
 */
public record CoachId(String value) implements Identifier<CoachId> {
    /**
     * Checks the text: not blank, at most 64 characters, no control characters or surrounding white space.
     *
     * @param value the id's text
     */
    public CoachId {
        Checks.id("coachId", value);
    }

    /**
     * {@return the coach id with this text}
     *
     * @param value the id's text
     */
    public static CoachId of(String value) {
        return new CoachId(value);
    }

    /**
     * {@return the coach id whose text is this number}
     *
     * @param value a positive number
     */
    public static CoachId of(long value) {
        return new CoachId(Checks.id("coachId", value));
    }

    @Override
    public String toString() {
        return value;
    }
}
