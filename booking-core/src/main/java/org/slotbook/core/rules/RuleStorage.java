package org.slotbook.core.rules;

import java.util.List;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import org.slotbook.core.TenantId;
import org.slotbook.core.spi.OutboxStore;

/**
 * Where a {@link RulesStore} keeps a tenant's slots, bookings, waitlists and packages: the storage
 * port of the booking rules. Each decision of the rules is one call of {@link #inTransaction}, whose
 * reads and writes go through the {@link RuleTx} it is given.
 *
 * <p>Isolation: a transaction must see its own writes, and the locks it asks for
 * ({@link RuleTx#lock}, reads {@code forUpdate}) must keep other transactions from changing what it
 * locked until it ends. Holding one lock per tenant for the whole transaction satisfies this (the
 * in-memory store does so); finer locks let one tenant's decisions run in parallel.
 */
public interface RuleStorage {
    /**
     * Runs {@code work} as one transaction of the tenant: its writes stand when it returns and are all
     * undone when it throws (the exception then goes on unchanged).
     *
     * @param tenantId the tenant whose data the transaction reads and writes
     * @param work     the decision or read
     * @param <T>      what the work answers
     * @return what {@code work} answered
     */
    <T> T inTransaction(TenantId tenantId, Function<RuleTx, T> work);

    /**
     * {@return the tenants with at least one slot, ascending by id, after {@code after}, at most {@code limit}}
     *
     * @param after the last tenant of the previous page, or null for the first page
     * @param limit the most to answer, positive
     */
    List<TenantId> tenants(@Nullable TenantId after, int limit);

    /**
     * {@return the outbox the events of {@link RuleTx#recordEvents} go to and the relay reads, or null
     * when this storage keeps none}
     */
    default @Nullable OutboxStore outbox() {
        return null;
    }
}
