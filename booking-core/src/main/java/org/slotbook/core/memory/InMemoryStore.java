package org.slotbook.core.memory;

import java.time.Clock;
import org.slotbook.core.internal.Checks;
import org.slotbook.core.rules.RulesStore;
import org.slotbook.core.spi.BookingStore;
import org.slotbook.core.spi.ForwardingStore;

/**
 * A {@link BookingStore} kept in memory: the booking rules ({@link RulesStore}) over maps, every rule
 * of the JDBC store decided the same way, each decision under its tenant's lock (so the decisions of
 * one tenant run one after the other, and those of different tenants in parallel). It is the
 * reference the database stores are compared with.
 *
 * <p>A decision is one transaction of its tenant: every write records how to undo it. A decision
 * that throws is undone whole, so a failure leaves nothing half-written; an all-or-nothing series
 * ({@code holdAll}, {@code scheduleSeries}) decides each part in turn and undoes them all when one is
 * refused. Nothing is persisted.
 *
 * <p>Lesson packages keep an append-only journal per package; a package's {@code remaining} only
 * ever changes by appending an entry, so it is always the sum of the journal, and no booking has two
 * entries of one reason.
 *
 * <pre>{@code
 * InMemoryStore store = InMemoryStore.create();
 * BookingEngine engine = BookingEngine.builder().store(store).build();
 * }</pre>
 */
public final class InMemoryStore extends ForwardingStore {
    private final MemoryStorage storage = new MemoryStorage();
    private final RulesStore rules;

    private InMemoryStore(Clock clock) {
        this.rules = RulesStore.over(storage, clock);
    }

    /** {@return a new, empty store on the system UTC clock} */
    public static InMemoryStore create() {
        return new InMemoryStore(Clock.systemUTC());
    }

    /**
     * {@return a new, empty store whose own clock (a {@code now} of null) is {@code clock}}
     *
     * @param clock the clock that decides every deadline
     */
    public static InMemoryStore create(Clock clock) {
        return new InMemoryStore(Checks.notNull("clock", clock));
    }

    @Override
    protected BookingStore delegate() {
        return rules;
    }

    @Override
    public String toString() {
        return "InMemoryStore[tenants=" + storage.size() + "]";
    }
}
