package org.slotbook.core.memory;

import org.slotbook.core.TenantId;
import org.slotbook.core.spi.StoreTransaction;

/** A transaction of an {@link InMemoryPrimitives}: its tenant's lock is held while it is open. */
final class MemoryTransaction implements StoreTransaction {
    final InMemoryPrimitives store;
    final TenantState state;
    private final InMemoryPrimitives.UndoLog undo = new InMemoryPrimitives.UndoLog();
    private boolean rollbackOnly;
    private boolean open = true;

    MemoryTransaction(InMemoryPrimitives store, TenantState state) {
        this.store = store;
        this.state = state;
    }

    @Override
    public TenantId tenantId() {
        return state.tenantId;
    }

    @Override
    public void setRollbackOnly() {
        rollbackOnly = true;
    }

    @Override
    public boolean isRollbackOnly() {
        return rollbackOnly;
    }

    boolean isOpen() {
        return open;
    }

    /** Records how to revert a mutation that was just made. */
    void onRollback(Runnable action) {
        undo.record(action);
    }

    void commit() {
        open = false;
        undo.forget();
    }

    void rollback() {
        open = false;
        undo.revert();
    }

    @Override
    public String toString() {
        return "MemoryTransaction[tenant=" + state.tenantId + (open ? "" : ", ended") + "]";
    }
}
