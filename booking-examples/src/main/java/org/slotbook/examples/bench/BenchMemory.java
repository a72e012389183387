package org.slotbook.examples.bench;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.slotbook.core.Availability;
import org.slotbook.core.Booking;
import org.slotbook.core.BookingEngine;
import org.slotbook.core.HoldPolicy;
import org.slotbook.core.Slot;
import org.slotbook.core.SlotId;
import org.slotbook.core.StudentId;
import org.slotbook.core.TenantId;
import org.slotbook.core.memory.InMemoryStore;
import org.slotbook.core.spi.BookingStore;

/**
 * The in-memory store as a ledger of the run: a fresh {@link InMemoryStore} per line, Slotbook over it
 * without a gate. It goes through the store's public API only ({@link InMemoryStore#create()} and the
 * {@link BookingStore} reads), so the same line measures any build of the store, before and after a
 * rewrite of its insides alike.
 */
record BenchMemory(BookingStore store, BookingEngine engine) implements Ledger {
    /** The backend's key in line names. */
    static final String KEY = "memory";
    /** The backend's name in the tables. */
    static final String NAME = "InMemoryStore";
    /** The most entries a page of the store's reads may hold. */
    private static final int PAGE = 1_000;

    /** A fresh store and an engine over it, with {@code policy}. */
    static BenchMemory create(HoldPolicy policy) {
        InMemoryStore store = InMemoryStore.create();
        return new BenchMemory(store, BookingEngine.builder().store(store).holdPolicy(policy).build());
    }

    @Override
    public String key() {
        return KEY;
    }

    @Override
    public String name() {
        return NAME;
    }

    /**
     * Over-capacity seats and double-booked students of the tenant, from the store's own state: every
     * slot of the tenant (paged through {@code slots}), its live bookings ({@code roster}, paged) and its
     * seat counts ({@code availability}) against its capacity; a slot counts as oversold by the larger of
     * the two counts. Students are counted across all the rosters, as the SQL check counts them across
     * the booking table.
     */
    @Override
    public Violations violations(TenantId tenant) {
        long oversold = 0;
        Map<StudentId, Integer> liveByStudent = new HashMap<>();
        @Nullable SlotId after = null;
        for (List<Slot> page = store.slots(tenant, null, PAGE); !page.isEmpty();
             page = store.slots(tenant, after, PAGE)) {
            for (Slot slot : page) {
                long live = 0;
                for (int offset = 0; ; offset += PAGE) {
                    List<Booking> roster = store.roster(tenant, slot.slotId(), null, offset, PAGE);
                    for (Booking b : roster) {
                        liveByStudent.merge(b.studentId(), 1, Integer::sum);
                    }
                    live += roster.size();
                    if (roster.size() < PAGE) {
                        break;
                    }
                }
                Availability seats = store.availability(tenant, slot.slotId(), null).orElseThrow(
                        () -> new IllegalStateException("slot " + slot.slotId().value() + " listed, but has no seats"));
                long taken = Math.max(live, (long) seats.held() + seats.confirmed());
                oversold += Math.max(0, taken - slot.capacity());
                after = slot.slotId();
            }
        }
        long doubled = liveByStudent.values().stream().filter(n -> n > 1).count();
        return new Violations(oversold, doubled);
    }
}
