package org.slotbook.core.rules;

import static org.assertj.core.api.Assertions.assertThat;

import com.example.thirdparty.ListStorage;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.slotbook.core.BookingId;
import org.slotbook.core.BookingStatus;
import org.slotbook.core.Full;
import org.slotbook.core.Held;
import org.slotbook.core.HoldRequest;
import org.slotbook.core.NotFound;
import org.slotbook.core.RequestId;
import org.slotbook.core.Slot;
import org.slotbook.core.SlotId;
import org.slotbook.core.SlotStatus;
import org.slotbook.core.StudentId;
import org.slotbook.core.TenantId;
import org.slotbook.core.TimeRange;
import org.slotbook.core.spi.HoldCommand;
import org.slotbook.core.spi.Terms;
import org.slotbook.core.tck.Fixtures;

/**
 * The order in which the rules ask {@link RuleTx} for locks, and that a request refused before any
 * write takes none (a database store would otherwise write a lock row for it).
 */
class RulesLockOrderTest {
    private static final Set<String> WRITES = Set.of("insertSlot", "updateSlot", "takeSeat", "freeSeat/2",
            "closeSeats", "insertBooking", "updateBooking", "occupy", "vacate", "join", "markWaiter",
            "insertPackage", "appendCredit", "rollback");

    private final List<String> calls = new ArrayList<>();
    private final RulesStore store = RulesStore.over(new Recording(new ListStorage(), calls));
    private final TenantId tenant = Fixtures.tenant();
    private final Instant now = Instant.now().truncatedTo(ChronoUnit.SECONDS);
    private final StudentId student = Fixtures.student();

    /** A storage that records every call of its transactions, by name (and arity where it is overloaded). */
    private record Recording(RuleStorage delegate, List<String> calls) implements RuleStorage {
        @Override
        public <T> T inTransaction(TenantId tenantId, Function<RuleTx, T> work) {
            return delegate.inTransaction(tenantId, tx -> work.apply((RuleTx) Proxy.newProxyInstance(
                    RuleTx.class.getClassLoader(), new Class<?>[] {RuleTx.class}, (proxy, method, args) -> {
                        String name = method.getName();
                        if (name.equals("freeSeat") && args.length == 2) {
                            name = "freeSeat/2";
                        } else if (name.equals("lock")) {
                            name = "lock" + args[0];
                        } else if (args != null && args.length == 2 && args[1] instanceof Boolean forUpdate
                                && forUpdate) {
                            name = name + "!";
                        }
                        calls.add(name);
                        try {
                            return method.invoke(tx, args);
                        } catch (InvocationTargetException e) {
                            throw e.getCause();
                        }
                    })));
        }

        @Override
        public List<TenantId> tenants(TenantId after, int limit) {
            return delegate.tenants(after, limit);
        }
    }

    private Slot slot(int capacity) {
        Slot slot = new Slot(tenant, Fixtures.slot(), Fixtures.coach(), Fixtures.room(),
                TimeRange.of(now.plus(Duration.ofDays(1)), Duration.ofHours(1)), capacity, SlotStatus.OPEN);
        store.schedule(tenant, slot, Duration.ofDays(1), java.time.ZoneOffset.UTC);
        calls.clear();
        return slot;
    }

    private HoldCommand hold(SlotId slotId, StudentId who, RequestId requestId) {
        return new HoldCommand(BookingId.random(), HoldRequest.of(requestId, slotId, who), BookingStatus.HELD, now,
                Duration.ofMinutes(10), Duration.ofDays(1), false);
    }

    private List<String> locksAndWrites() {
        return calls.stream().filter(c -> c.startsWith("lock") || c.endsWith("!") || WRITES.contains(c)).toList();
    }

    @Test
    void scheduleLocksItsCoachAndRoomSortedBeforeItReads() {
        Slot slot = new Slot(tenant, Fixtures.slot(), Fixtures.coach(), Fixtures.room(),
                TimeRange.of(now.plus(Duration.ofDays(1)), Duration.ofHours(1)), 2, SlotStatus.OPEN);
        store.schedule(tenant, slot, Duration.ofDays(1), java.time.ZoneOffset.UTC);

        assertThat(calls.get(0)).isEqualTo("lock" + List.of(org.slotbook.core.ResourceRef.of(slot.coachId()),
                org.slotbook.core.ResourceRef.of(slot.roomId())));
    }

    @Test
    void aHoldLocksTheStudentThenTheSlotThenWrites() {
        Slot slot = slot(2);
        assertThat(store.hold(tenant, hold(slot.slotId(), student, RequestId.random())).result())
                .isInstanceOf(Held.class);

        List<String> order = locksAndWrites();
        assertThat(order.subList(0, 2)).containsExactly("lock" + List.of(org.slotbook.core.ResourceRef.of(student)),
                "slot!");
        assertThat(order.subList(2, order.size())).contains("takeSeat", "insertBooking", "occupy");
    }

    @Test
    void aRefusedHoldTakesNoLockAndWritesNothing() {
        Slot slot = slot(1);
        RequestId first = RequestId.random();
        store.hold(tenant, hold(slot.slotId(), student, first));

        calls.clear();
        assertThat(store.hold(tenant, hold(Fixtures.slot(), student, RequestId.random())).result())
                .isInstanceOf(NotFound.class);
        // a replay, even of another student (the engine refuses the reused request id)
        assertThat(store.hold(tenant, hold(slot.slotId(), Fixtures.student(), first)).result())
                .isInstanceOf(Held.class);
        assertThat(store.hold(tenant, hold(slot.slotId(), Fixtures.student(), RequestId.random())).result())
                .isInstanceOf(Full.class);
        assertThat(store.confirm(tenant, BookingId.random(), student, now, Terms.defaults()).result())
                .isInstanceOf(NotFound.class);
        assertThat(store.cancel(tenant, BookingId.random(), null, now, Terms.defaults()).result())
                .isInstanceOf(NotFound.class);

        assertThat(locksAndWrites()).isEmpty();
    }
}
