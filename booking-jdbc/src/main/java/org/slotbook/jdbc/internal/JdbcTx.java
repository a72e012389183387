package org.slotbook.jdbc.internal;

import java.util.HashSet;
import java.util.Set;
import org.jdbi.v3.core.Handle;
import org.slotbook.core.BookingStoreException;
import org.slotbook.core.ResourceRef;
import org.slotbook.core.TenantId;
import org.slotbook.core.spi.StoreTransaction;

/** A transaction of one {@link StoreCore}: its Jdbi handle (one connection) and tenant. */
public final class JdbcTx implements StoreTransaction {
    private final StoreCore store;
    private final Handle handle;
    private final TenantId tenantId;
    private final Set<ResourceRef> locked = new HashSet<>();
    private boolean rollbackOnly;
    private boolean open = true;
    private RuntimeException failure;

    JdbcTx(StoreCore store, Handle handle, TenantId tenantId) {
        this.store = store;
        this.handle = handle;
        this.tenantId = tenantId;
    }

    @Override
    public TenantId tenantId() {
        return tenantId;
    }

    @Override
    public void setRollbackOnly() {
        rollbackOnly = true;
    }

    @Override
    public boolean isRollbackOnly() {
        return rollbackOnly || failure != null;
    }

    StoreCore store() {
        return store;
    }

    /** The connection of this transaction; fails once the transaction has ended. */
    public Handle handle() {
        if (!open) {
            throw new IllegalStateException("the transaction of tenant " + tenantId + " has already ended");
        }
        return handle;
    }

    /** True when the resource was not yet locked in this transaction (and marks it locked). */
    boolean markLocked(ResourceRef resource) {
        return locked.add(resource);
    }

    /** A statement failed: the transaction will not commit, and inTransaction reports this failure. */
    void failed(RuntimeException cause) {
        if (failure == null || !(failure instanceof BookingStoreException)) {
            failure = cause;
        }
    }

    /** A unique key refused the claim: the transaction rolls back, and that is all there is to it. */
    void refused(RuntimeException duplicate) {
        failure = duplicate;
    }

    RuntimeException failure() {
        return failure;
    }

    void close() {
        open = false;
    }

    @Override
    public String toString() {
        return "JdbcTx[tenant=" + tenantId + ", open=" + open + "]";
    }
}
