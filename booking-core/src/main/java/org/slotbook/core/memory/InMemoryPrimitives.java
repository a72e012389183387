package org.slotbook.core.memory;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.time.Clock;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import org.slotbook.core.InvalidInputException;
import org.slotbook.core.spi.StepwiseStore;
import java.util.function.Function;
import org.slotbook.core.TenantId;
import org.slotbook.core.internal.Checks;
import org.slotbook.core.spi.ConflictDetector;
import org.slotbook.core.spi.SeatLedger;
import org.slotbook.core.spi.StoreTransaction;

/**
 * A {@link SeatLedger} and a {@link ConflictDetector} kept in memory, sharing one transaction type:
 * the building blocks of a {@link StepwiseStore}, with their own state (independent of any
 * {@link InMemoryStore}). They serve tests of those SPIs and of stores built from them.
 *
 * <p>A transaction holds its tenant's lock for its whole duration, so transactions of one tenant run
 * one after the other and those of different tenants in parallel. Every mutation is recorded in an
 * undo log and reverted when the work throws or asked for a rollback. All state is keyed by tenant.
 * A transaction opened inside another one (same thread) is independent of it: it commits or rolls
 * back on its own, as a second database connection would. A transaction may only be used by the
 * thread that opened it, and only until its work returns.
 */
public final class InMemoryPrimitives {
    private final ConcurrentHashMap<TenantId, TenantState> tenants = new ConcurrentHashMap<>();
    private final MemoryLedger ledger = new MemoryLedger(this);
    private final MemoryConflicts conflicts = new MemoryConflicts(this);

    private InMemoryPrimitives() {
    }

    /** {@return new, empty primitives} */
    public static InMemoryPrimitives create() {
        return new InMemoryPrimitives();
    }

    /**
     * {@return a {@link StepwiseStore} over these primitives, whose own clock (a {@code now} of null) is {@code
     * clock}}
     *
     * @param clock the clock that decides every deadline
     */
    public StepwiseStore stepwise(Clock clock) {
        return StepwiseStore.of(ledger, conflicts, Checks.notNull("clock", clock));
    }

    /** {@return the ledger of this store; its transactions are joined by {@link #conflicts()}} */
    public SeatLedger ledger() {
        return ledger;
    }

    /** {@return the conflict detector of this store; it acts inside transactions of {@link #ledger()}} */
    public ConflictDetector conflicts() {
        return conflicts;
    }

    @Override
    public String toString() {
        return "InMemoryPrimitives[tenants=" + tenants.size() + "]";
    }

    <T> T inTransaction(TenantId tenantId, Function<StoreTransaction, T> work) {
        Checks.notNull("tenantId", tenantId);
        Checks.notNull("work", work);
        TenantState state = tenants.computeIfAbsent(tenantId, TenantState::new);
        state.lock.lock();
        MemoryTransaction tx = new MemoryTransaction(this, state);
        try {
            T result;
            try {
                result = work.apply(tx);
            } catch (Throwable failure) {
                tx.rollback();
                throw failure;
            }
            if (tx.isRollbackOnly()) {
                tx.rollback();
            } else {
                tx.commit();
            }
            return result;
        } finally {
            state.lock.unlock();
        }
    }

    /**
     * Up to {@code limit} tenants after {@code after} with at least one committed slot, in id order.
     * Each candidate is looked at under its tenant's lock, so a slot of a transaction still running
     * is not seen; a tenant whose state exists only because it was read is skipped.
     */
    List<TenantId> tenantsWithSlots(TenantId after, int limit) {
        List<TenantId> candidates = new ArrayList<>();
        for (TenantId id : tenants.keySet()) {
            if (after == null || id.compareTo(after) > 0) {
                candidates.add(id);
            }
        }
        candidates.sort(null);
        List<TenantId> page = new ArrayList<>(Math.min(limit, candidates.size()));
        for (TenantId id : candidates) {
            if (page.size() == limit) {
                break;
            }
            TenantState state = tenants.get(id);
            state.lock.lock();
            try {
                if (!state.slots.isEmpty()) {
                    page.add(id);
                }
            } finally {
                state.lock.unlock();
            }
        }
        return page;
    }

    /** The open transaction of this store that {@code tx} is, or an exception naming what is wrong with it. */
    MemoryTransaction own(StoreTransaction tx) {
        Checks.notNull("tx", tx);
        if (!(tx instanceof MemoryTransaction mine) || mine.store != this) {
            throw new InvalidInputException("tx must be a transaction of this in-memory store, got " + tx);
        }
        if (!mine.isOpen()) {
            throw new IllegalStateException("tx has already ended: " + tx);
        }
        if (!mine.state.lock.isHeldByCurrentThread()) {
            throw new IllegalStateException("tx belongs to another thread: " + tx);
        }
        return mine;
    }

    /** Undo actions of one transaction, newest first. */
    static final class UndoLog {
        private final ArrayDeque<Runnable> actions = new ArrayDeque<>();

        void record(Runnable undo) {
            actions.push(undo);
        }

        void revert() {
            while (!actions.isEmpty()) {
                actions.pop().run();
            }
        }

        void forget() {
            actions.clear();
        }
    }
}
