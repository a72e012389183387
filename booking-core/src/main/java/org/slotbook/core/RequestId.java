package org.slotbook.core;

import org.slotbook.core.internal.Checks;

/**
 * The client's idempotency key for one hold or book request: a retry with the same id returns the original outcome.
 *
 * <p>Any non-blank text of at most 64 characters without control characters or surrounding
 * white space; {@link #of(long)} accepts positive numbers.
 */
public record RequestId(String value) implements Identifier<RequestId> {
    public RequestId {
        Checks.id("requestId", value);
    }

    public static RequestId of(String value) {
        return new RequestId(value);
    }

    public static RequestId of(long value) {
        return new RequestId(Checks.id("requestId", value));
    }

    /** A fresh random request id, for callers that have no key of their own. */
    public static RequestId random() {
        return new RequestId(java.util.UUID.randomUUID().toString());
    }

    @Override
    public String toString() {
        return value;
    }
}
