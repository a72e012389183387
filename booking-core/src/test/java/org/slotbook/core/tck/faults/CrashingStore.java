package org.slotbook.core.tck.faults;

import java.util.function.Supplier;
import org.slotbook.core.HoldResult;
import org.slotbook.core.TenantId;
import org.slotbook.core.spi.BookingStore;
import org.slotbook.core.spi.HoldCommand;
import org.slotbook.core.spi.StoreOutcome;
import org.slotbook.core.tck.ForwardingStore;

/**
 * A store in front of which the application "dies" between the gate hold and the database call: on
 * a thread marked {@linkplain #doom doomed}, {@link #hold} throws {@link ProcessDeath} before it
 * calls the database, so the database has nothing of the request. A decision is one database call,
 * so there is no point inside it to crash at; dying before the call leaves the same state as dying
 * before a commit. {@link ProcessDeath} is an {@link Error}: like a real crash it gets past the
 * engine's clean-up, so the gate hold taken just before stays behind as an orphan.
 */
public final class CrashingStore extends ForwardingStore {
    private static final ThreadLocal<Boolean> DOOMED = ThreadLocal.withInitial(() -> false);

    public CrashingStore(BookingStore delegate) {
        super(delegate);
    }

    /** The process died; nothing after this point of the request ran. */
    public static final class ProcessDeath extends Error {
        private static final long serialVersionUID = 1L;

        ProcessDeath() {
            super("simulated crash between the gate hold and the database call", null, false, false);
        }
    }

    /** Runs {@code request} on this thread with the crash armed; the crash fires at most once. */
    public static <T> T doom(Supplier<T> request) {
        DOOMED.set(true);
        try {
            return request.get();
        } finally {
            DOOMED.set(false);
        }
    }

    @Override
    public StoreOutcome<HoldResult> hold(TenantId tenantId, HoldCommand command) {
        if (DOOMED.get()) {
            DOOMED.set(false);
            throw new ProcessDeath();
        }
        return delegate.hold(tenantId, command);
    }
}
