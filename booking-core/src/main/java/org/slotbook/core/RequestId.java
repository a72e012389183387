package org.slotbook.core;

import org.slotbook.core.internal.Checks;

/**
 * The client's idempotency key for one hold or book request: a retry with the same id returns the original outcome.
 *
 * <p>Any non-blank text of at most 64 characters without control characters or surrounding
 * white space; {@link #of(long)} accepts positive numbers.
 */
public record RequestId(String value) implements Identifier<RequestId> {
    /**
     * Checks the text: not blank, at most 64 characters, no control characters or surrounding white space.
     *
     * @param value the id's text
     */
    public RequestId {
        Checks.id("requestId", value);
    }

    /**
     * {@return the request id with this text}
     *
     * @param value the id's text
     */
    public static RequestId of(String value) {
        return new RequestId(value);
    }

    /**
     * {@return the request id whose text is this number}
     *
     * @param value a positive number
     */
    public static RequestId of(long value) {
        return new RequestId(Checks.id("requestId", value));
    }

    /** {@return a fresh random request id, for callers that have no key of their own} */
    public static RequestId random() {
        return new RequestId(java.util.UUID.randomUUID().toString());
    }

    @Override
    public String toString() {
        return value;
    }
}
