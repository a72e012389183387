package org.slotbook.core;

/**
 * The store could not be reached: no connection could be had within the pool's timeout (or a
 * {@link org.slotbook.core.shard.TenantRoutedStore} already knows its shard to be in that state), so
 * nothing was sent. Always {@link #retryable()} and never {@link #outcomeUnknown()}: the call changed
 * nothing, and the same call may succeed once the database is back.
 *
 * <p>A store that throws it (the JDBC store does, when its pool gives up) lets the callers in front of
 * it stop waiting on a database known to be down: the calls queued behind the failed one fail with it
 * at once, and a routed store fails its shard's further calls fast until a trial call gets through.
 */
public class StoreUnreachableException extends BookingStoreException {
    private static final long serialVersionUID = 1L;

    /**
     * An exception for a store that could not be reached, retryable and with a known outcome.
     *
     * @param message says which store could not be reached and why, naming no tenant's data
     * @param cause the failure of the connection attempt
     */
    public StoreUnreachableException(String message, Throwable cause) {
        super(message, cause, true, false);
    }
}
