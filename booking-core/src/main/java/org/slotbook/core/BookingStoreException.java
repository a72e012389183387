package org.slotbook.core;

/**
 * The ledger (database) could not be reached or failed in a way a retry inside the library could
 * not absorb. Two questions tell the caller what to do next:
 *
 * <ul>
 *   <li>{@link #outcomeUnknown()}: false when the call certainly changed nothing, because nothing
 *       was sent (no connection could be had) or the database answered that it rolled the call
 *       back; true when the call was sent and no answer came back (a killed connection, a socket
 *       error), so it may have committed. Retrying an idempotent call (same request id) answers
 *       what was stored either way.</li>
 *   <li>{@link #retryable()}: whether the same call may succeed when tried again later (a database
 *       that was unreachable, a deadlock that outlasted the library's own retries), as opposed to
 *       a failure that will repeat (a missing table, a refused statement).</li>
 * </ul>
 * The constructors without these flags make an exception that is not retryable and whose outcome
 * is unknown: nothing is promised. {@link StoreUnreachableException}, a subclass, says more: no
 * connection could be had at all (retryable, nothing sent), the signal that lets the calls queued
 * behind it, and a routed store's further calls to that shard, fail at once.
 */
public class BookingStoreException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** Whether trying the same call again later may succeed. */
    private final boolean retryable;
    /** Whether the call may have committed. */
    private final boolean outcomeUnknown;

    /**
     * A failure that says whether a retry may help and whether the call may have committed.
     *
     * @param message what failed, naming no other tenant's data
     * @param cause the failure underneath
     * @param retryable whether trying the call again later may succeed
     * @param outcomeUnknown whether the call may have committed
     */
    public BookingStoreException(String message, Throwable cause, boolean retryable, boolean outcomeUnknown) {
        super(message, cause);
        this.retryable = retryable;
        this.outcomeUnknown = outcomeUnknown;
    }

    /**
     * A failure that is not retryable and changed nothing.
     *
     * @param message what failed, naming no other tenant's data
     * @param cause the failure underneath
     */
    public BookingStoreException(String message, Throwable cause) {
        this(message, cause, false, true);
    }

    /**
     * A failure that is not retryable and changed nothing.
     *
     * @param message what failed, naming no other tenant's data
     */
    public BookingStoreException(String message) {
        this(message, null, false, true);
    }

    /**
     * Whether trying the same call again later may succeed.
     *
     * @return true when a retry may succeed
     */
    public boolean retryable() {
        return retryable;
    }

    /**
     * True when the call reached the database and may have committed; false when it certainly
     * changed nothing (nothing was sent, or it was rolled back).
     *
     * @return true when the call may have committed
     */
    public boolean outcomeUnknown() {
        return outcomeUnknown;
    }
}
