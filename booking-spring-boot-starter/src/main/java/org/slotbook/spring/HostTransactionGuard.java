package org.slotbook.spring;

import org.jspecify.annotations.Nullable;
import org.slotbook.core.spi.BookingStore;
import org.slotbook.core.spi.ForwardingStore;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Refuses every store call made while a Spring transaction is active on the calling thread.
 *
 * <p>Each Slotbook decision commits on its own, on a connection of its own, in one database round
 * trip. Inside a host transaction that would be wrong either way: on the plain DataSource the booking
 * would commit although the host rolls back; through a transaction-aware proxy Slotbook's commit
 * would commit the host's half-done work. And every such request would hold two connections at
 * once, which starves a small pool. So the engine is called outside the host's transaction: before
 * or after it, or from a method marked {@code @Transactional(propagation = Propagation.NOT_SUPPORTED)}.
 */
public final class HostTransactionGuard extends ForwardingStore {
    private final BookingStore delegate;

    /**
     * Guards {@code delegate} against calls from inside a host transaction.
     *
     * @param delegate the store that does the work
     */
    public HostTransactionGuard(BookingStore delegate) {
        if (delegate == null) {
            throw new IllegalArgumentException("delegate must not be null");
        }
        this.delegate = delegate;
    }

    @Override
    protected BookingStore delegate() {
        if (TransactionSynchronizationManager.isActualTransactionActive()) {
            throw new IllegalStateException("Slotbook was called inside an active Spring transaction ("
                    + TransactionSynchronizationManager.getCurrentTransactionName() + "). Each Slotbook decision"
                    + " commits on its own connection and cannot join or be undone by the host's transaction:"
                    + " call the BookingEngine outside it (before or after the @Transactional method), or from a"
                    + " method annotated @Transactional(propagation = Propagation.NOT_SUPPORTED)");
        }
        return delegate;
    }

    /** {@return the store that does the work} */
    public BookingStore target() {
        return delegate;
    }

    @Override
    public String toString() {
        return "HostTransactionGuard[" + delegate + "]";
    }
}
