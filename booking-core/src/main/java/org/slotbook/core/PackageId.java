package org.slotbook.core;

import org.slotbook.core.internal.Checks;

/**
 * Identifies one lesson package of a student within a tenant; chosen by the host (for example its order number).
 *
 * <p>Any non-blank text of at most 64 characters without control characters or surrounding
 * white space; {@link #of(long)} accepts positive numbers.
 */
public record PackageId(String value) implements Identifier<PackageId> {
    /**
     * Checks the text: not blank, at most 64 characters, no control characters or surrounding white space.
     *
     * @param value the id's text
     */
    public PackageId {
        Checks.id("packageId", value);
    }

    /**
     * {@return the package id with this text}
     *
     * @param value the id's text
     */
    public static PackageId of(String value) {
        return new PackageId(value);
    }

    /**
     * {@return the package id whose text is this number}
     *
     * @param value a positive number
     */
    public static PackageId of(long value) {
        return new PackageId(Checks.id("packageId", value));
    }

    @Override
    public String toString() {
        return value;
    }
}
