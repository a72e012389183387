package org.slotbook.core.spi;

import org.slotbook.core.TenantId;

/**
 * One unit of work of a store, opened by {@link SeatLedger#inTransaction} and joined by the
 * {@link ConflictDetector} of the same store.
 *
 * <p>Backends subclass it to carry their own handle (a JDBC connection, a lock). A ledger and a
 * detector that act in one transaction come from one store object and accept only transactions
 * of that store; given a foreign transaction they throw {@link IllegalArgumentException}.
 */
public interface StoreTransaction {
    /**
     * Every read and write of this transaction is scoped to this tenant.
     *
     * @return the tenant of every read and write of this transaction
     */
    TenantId tenantId();

    /** Makes the transaction roll back when the work returns, instead of committing. */
    void setRollbackOnly();

    /** {@return true when the transaction will roll back whatever happens} */
    boolean isRollbackOnly();
}
