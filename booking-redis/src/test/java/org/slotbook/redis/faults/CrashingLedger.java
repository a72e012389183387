package org.slotbook.redis.faults;

import java.util.function.Function;
import org.slotbook.core.TenantId;
import org.slotbook.core.spi.SeatLedger;
import org.slotbook.core.spi.StoreTransaction;
import org.slotbook.core.tck.ForwardingLedger;

/**
 * A ledger under which the application "dies" between the gate hold and the database commit: on a
 * thread marked {@linkplain #doom doomed}, the first transaction that would commit a write (the
 * hold's) runs its work and then throws {@link ProcessDeath} before the commit, so the database
 * rolls back. {@link ProcessDeath} is an {@link Error}: like a real crash it gets past the engine's
 * clean-up, so the gate hold taken just before stays behind as an orphan.
 */
final class CrashingLedger extends ForwardingLedger {
    private static final ThreadLocal<Boolean> DOOMED = ThreadLocal.withInitial(() -> false);

    CrashingLedger(SeatLedger delegate) {
        super(delegate);
    }

    /** The process died; nothing after this point of the request ran. */
    static final class ProcessDeath extends Error {
        private static final long serialVersionUID = 1L;

        ProcessDeath() {
            super("simulated crash between the gate hold and the commit", null, false, false);
        }
    }

    /** Runs {@code request} on this thread with the crash armed; the crash fires at most once. */
    static <T> T doom(java.util.function.Supplier<T> request) {
        DOOMED.set(true);
        try {
            return request.get();
        } finally {
            DOOMED.set(false);
        }
    }

    @Override
    public <T> T inTransaction(TenantId tenantId, Function<StoreTransaction, T> work) {
        if (!DOOMED.get()) {
            return delegate.inTransaction(tenantId, work);
        }
        return delegate.inTransaction(tenantId, tx -> {
            T result = work.apply(tx);
            if (!tx.isRollbackOnly()) {
                DOOMED.set(false);
                throw new ProcessDeath();
            }
            return result;
        });
    }
}
