package org.slotbook.core;

import org.slotbook.core.internal.Checks;

/**
 * Identifies a coach within a tenant.
 *
 * <p>Any non-blank text of at most 64 characters without control characters or surrounding
 * white space; {@link #of(long)} accepts positive numbers.
 */
public record CoachId(String value) implements Identifier<CoachId> {
    public CoachId {
        Checks.id("coachId", value);
    }

    public static CoachId of(String value) {
        return new CoachId(value);
    }

    public static CoachId of(long value) {
        return new CoachId(Checks.id("coachId", value));
    }

    @Override
    public String toString() {
        return value;
    }
}
