package org.slotbook.core;

/**
 * The database refused the call because it does not serve the tenant (any more, or not yet): a
 * {@link org.slotbook.core.shard.TenantRoutedStore}'s shard whose tenant is being moved away or into it,
 * or was moved away. Nothing changed ({@link #outcomeUnknown()} is false) and the call is
 * {@link #retryable()}: retried once the host's mapping names the tenant's current shard, it is decided
 * there. A node that keeps calling a shard its mapping names no longer gets this refusal each time,
 * never a decision that the move would lose.
 */
public class TenantFencedException extends BookingStoreException {
    private static final long serialVersionUID = 1L;

    /**
     * A refusal of a tenant the database does not serve.
     *
     * @param message what was refused, naming the caller's own tenant only
     * @param cause the database's refusal
     */
    public TenantFencedException(String message, Throwable cause) {
        super(message, cause, true, false);
    }
}
