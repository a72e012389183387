package org.slotbook.examples.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.slotbook.core.Booking;
import org.slotbook.core.BookingEngine;
import org.slotbook.core.Held;
import org.slotbook.core.HoldPolicy;
import org.slotbook.core.HoldRequest;
import org.slotbook.core.RequestId;
import org.slotbook.core.SlotId;
import org.slotbook.core.StudentId;
import org.slotbook.core.TenantId;
import org.slotbook.core.spi.BookingStore;
import org.slotbook.core.spi.ForwardingStore;

/**
 * The in-memory line's check reads the store's own state: a clean store counts nothing, and a store
 * whose roster shows one booking too many counts it as an oversold seat and a double-booked student.
 */
class BenchMemoryTest {
    private static final TenantId TENANT = TenantId.of("bench-memory-test");

    @Test
    void aCleanStoreHasNoViolationsAndAStoreThatShowsTooManyIsCaught() throws Exception {
        BenchMemory memory = BenchMemory.create(HoldPolicy.ofDefaults());
        assertThat(memory.key()).isEqualTo("memory");
        assertThat(memory.name()).isEqualTo("InMemoryStore");
        // more slots than a page of the store's reads, each of one seat
        SlotId[] slots = SlotbookLine.schedule(memory.engine(), TENANT, 1_203, 1, 4);
        List<Booking> held = new ArrayList<>();
        for (int i = 0; i < slots.length; i++) {
            StudentId student = StudentId.of("student-" + i);
            if (memory.engine().hold(TENANT, HoldRequest.of(RequestId.of("r-" + i), slots[i], student)) instanceof Held h) {
                held.add(h.booking());
            }
            // a second student on the same seat is refused
            memory.engine().hold(TENANT, HoldRequest.of(RequestId.of("again-" + i), slots[i], StudentId.of("other-" + i)));
        }
        assertThat(held).hasSize(1_203);
        assertThat(memory.violations(TENANT)).isEqualTo(new Ledger.Violations(0, 0));
        assertThat(memory.violations(TenantId.of("bench-memory-none"))).isEqualTo(new Ledger.Violations(0, 0));

        // the last slot's roster also shows the first slot's booking: one seat too many, one student twice
        Booking stray = held.get(0);
        SlotId last = slots[slots.length - 1];
        BookingStore showsTooMany = new ForwardingStore() {
            @Override
            protected BookingStore delegate() {
                return memory.store();
            }

            @Override
            public List<Booking> roster(TenantId tenantId, SlotId slotId, @Nullable Instant now, int offset,
                                        int limit) {
                List<Booking> roster = new ArrayList<>(super.roster(tenantId, slotId, now, offset, limit));
                if (slotId.equals(last) && offset == 0) {
                    roster.add(stray);
                }
                return roster;
            }
        };
        BookingEngine engine = BookingEngine.builder().store(showsTooMany).build();
        assertThat(new BenchMemory(showsTooMany, engine).violations(TENANT)).isEqualTo(new Ledger.Violations(1, 1));
    }
}
