package org.slotbook.core.tck.faults;

import java.time.Duration;
import java.util.function.Supplier;
import org.slotbook.core.HoldResult;
import org.slotbook.core.TenantId;
import org.slotbook.core.spi.BookingStore;
import org.slotbook.core.spi.HoldCommand;
import org.slotbook.core.spi.StoreOutcome;
import org.slotbook.core.tck.ForwardingStore;

/**
 * A store whose hold, on a thread marked by {@link #slowly}, is the original of a request still in
 * flight: it runs {@code written}, waits, and only then makes its database call, after which it
 * runs {@code committed}. The engine has taken the gate hold by then, so a retry of the same
 * request id (not marked) meets the gate's hold for its student and reaches the database while the
 * original has not. A decision is one database call, so nothing can be held up inside it: a
 * retry's look-up of its request id and the original's write race inside the store, under its
 * lock on the student.
 */
public final class SlowStore extends ForwardingStore {
    private record Hooks(Runnable written, Runnable committed) {
    }

    private static final ThreadLocal<Hooks> SLOW = new ThreadLocal<>();
    private final Duration delay;

    public SlowStore(BookingStore delegate, Duration delay) {
        super(delegate);
        this.delay = delay;
    }

    /** Runs {@code request} with its first hold slowed; {@code written} runs just before the wait. */
    public static <T> T slowly(Runnable written, Runnable committed, Supplier<T> request) {
        SLOW.set(new Hooks(written, committed));
        try {
            return request.get();
        } finally {
            SLOW.remove();
        }
    }

    @Override
    public StoreOutcome<HoldResult> hold(TenantId tenantId, HoldCommand command) {
        Hooks hooks = SLOW.get();
        if (hooks == null) {
            return delegate.hold(tenantId, command);
        }
        SLOW.remove();
        hooks.written().run();
        FaultSuite.sleep(delay);
        StoreOutcome<HoldResult> out = delegate.hold(tenantId, command);
        hooks.committed().run();
        return out;
    }
}
