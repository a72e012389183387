package org.slotbook.core;

/**
 * A request id (the caller's idempotency key) came back with a different request: another slot or
 * student, or a book under the id of a hold that is not confirmed. The same id with the same request
 * is a replay and answers the stored outcome; this is the other case, a client error (409 on the web)
 * that nothing was changed for. The message names only what the caller sent.
 *
 * <p>A subtype of {@link IllegalArgumentException}, so code that catches that keeps working.
 */
public class RequestIdReusedException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    /** The request id that was sent again. */
    private final RequestId requestId;

    /**
     * An exception for a request id sent again with a different request.
     *
     * @param requestId the request id that was sent again
     * @param message says what differs, naming only what the caller sent
     */
    public RequestIdReusedException(RequestId requestId, String message) {
        super(message);
        this.requestId = requestId;
    }

    /** {@return the request id that was sent again} */
    public RequestId requestId() {
        return requestId;
    }
}
