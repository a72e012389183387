package org.slotbook.core;

import org.slotbook.core.internal.Checks;

/**
 * The institution (a tenant of the host SaaS) every call is scoped to.
 *
 * <p>Any non-blank text of at most 64 characters without control characters or surrounding
 * white space; {@link #of(long)} accepts positive numbers.
 */
public record TenantId(String value) implements Identifier<TenantId> {
    /**
     * Checks the text: not blank, at most 64 characters, no control characters or surrounding white space.
     *
     * @param value the id's text
     */
    public TenantId {
        Checks.id("tenantId", value);
    }

    /**
     * {@return the tenant id with this text}
     *
     * @param value the id's text
     */
    public static TenantId of(String value) {
        return new TenantId(value);
    }

    /**
     * {@return the tenant id whose text is this number}
     *
     * @param value a positive number
     */
    public static TenantId of(long value) {
        return new TenantId(Checks.id("tenantId", value));
    }

    @Override
    public String toString() {
        return value;
    }
}
