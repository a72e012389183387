package org.slotbook.core.tck.faults;

import java.time.Instant;
import java.util.Optional;
import java.util.function.Consumer;
import org.slotbook.core.HoldResult;
import org.slotbook.core.RequestId;
import org.slotbook.core.SlotId;
import org.slotbook.core.TenantId;
import org.slotbook.core.spi.BookingStore;
import org.slotbook.core.spi.HoldCommand;
import org.slotbook.core.spi.LiveSlot;
import org.slotbook.core.spi.StoreOutcome;
import org.slotbook.core.tck.ForwardingStore;

/**
 * A store with two hooks, each run once: one after {@link #liveSlot} has read and before it returns
 * (what changes in between is what a reconcile must not overwrite), and one before the hold of one
 * request id calls the database.
 */
public final class HookedStore extends ForwardingStore {
    private volatile Consumer<Optional<LiveSlot>> afterRead;
    private volatile RequestId holdOn;
    private volatile Runnable beforeHold;

    public HookedStore(BookingStore delegate) {
        super(delegate);
    }

    public void afterLiveSlotRead(Consumer<Optional<LiveSlot>> hook) {
        this.afterRead = hook;
    }

    public void beforeHold(RequestId requestId, Runnable hook) {
        this.holdOn = requestId;
        this.beforeHold = hook;
    }

    @Override
    public Optional<LiveSlot> liveSlot(TenantId tenantId, SlotId slotId, Instant now) {
        Optional<LiveSlot> read = delegate.liveSlot(tenantId, slotId, now);
        Consumer<Optional<LiveSlot>> hook = afterRead;
        afterRead = null;
        if (hook != null) {
            hook.accept(read);
        }
        return read;
    }

    @Override
    public StoreOutcome<HoldResult> hold(TenantId tenantId, HoldCommand command) {
        Runnable hook = beforeHold;
        if (hook != null && command.request().requestId().equals(holdOn)) {
            beforeHold = null;
            hook.run();
        }
        return delegate.hold(tenantId, command);
    }
}
