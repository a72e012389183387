package org.slotbook.core;

import org.slotbook.core.internal.Checks;

/**
 * Identifies a student within a tenant.
 *
 * <p>Any non-blank text of at most 64 characters without control characters or surrounding
 * white space; {@link #of(long)} accepts positive numbers.
 */
public record StudentId(String value) implements Identifier<StudentId> {
    /**
     * Checks the text: not blank, at most 64 characters, no control characters or surrounding white space.
     *
     * @param value the id's text
     */
    public StudentId {
        Checks.id("studentId", value);
    }

    /**
     * {@return the student id with this text}
     *
     * @param value the id's text
     */
    public static StudentId of(String value) {
        return new StudentId(value);
    }

    /**
     * {@return the student id whose text is this number}
     *
     * @param value a positive number
     */
    public static StudentId of(long value) {
        return new StudentId(Checks.id("studentId", value));
    }

    @Override
    public String toString() {
        return value;
    }
}
