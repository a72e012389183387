package org.slotbook.core.memory;

import java.time.Clock;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import org.slotbook.core.TenantId;
import org.slotbook.core.internal.Checks;
import org.slotbook.core.rules.RuleStorage;
import org.slotbook.core.rules.RuleTx;
import org.slotbook.core.spi.OutboxStore;

/**
 * The rules' storage kept in maps: one {@link MemoryTenant} per tenant, each transaction under its
 * tenant's lock (so the decisions of one tenant run one after the other, and those of different
 * tenants in parallel). A transaction that throws is undone whole from the tenant's undo log.
 */
final class MemoryStorage implements RuleStorage {
    private final ConcurrentHashMap<TenantId, MemoryTenant> tenants = new ConcurrentHashMap<>();
    private final MemoryOutbox outbox;

    MemoryStorage(Clock clock) {
        this.outbox = new MemoryOutbox(clock);
    }

    /** {@return how many tenants the storage has seen} */
    int size() {
        return tenants.size();
    }

    @Override
    public <T> T inTransaction(TenantId tenantId, Function<RuleTx, T> work) {
        Checks.notNull("tenantId", tenantId);
        MemoryTenant t = tenants.computeIfAbsent(tenantId, MemoryTenant::new);
        t.lock.lock();
        try {
            T answer = work.apply(t);
            t.commit();
            outbox.append(tenantId, t.takeEvents());
            return answer;
        } catch (RuntimeException | Error e) {
            t.rollback();
            throw e;
        } finally {
            t.lock.unlock();
        }
    }

    @Override
    public OutboxStore outbox() {
        return outbox;
    }

    @Override
    public List<TenantId> tenants(@Nullable TenantId after, int limit) {
        // sorted first; then each tenant is asked (in order) whether it has a slot, until the page is full
        return tenants.keySet().stream().filter(id -> after == null || id.compareTo(after) > 0).sorted()
                .filter(id -> inTransaction(id, tx -> !tx.slots(null, 1).isEmpty())).limit(limit).toList();
    }

    @Override
    public String toString() {
        return "MemoryStorage[tenants=" + tenants.size() + "]";
    }
}
