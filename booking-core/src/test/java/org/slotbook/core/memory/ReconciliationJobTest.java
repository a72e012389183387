package org.slotbook.core.memory;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slotbook.core.Availability;
import org.slotbook.core.Booking;
import org.slotbook.core.BookingEngine;
import org.slotbook.core.BookingStatus;
import org.slotbook.core.BookingStoreException;
import org.slotbook.core.CoachId;
import org.slotbook.core.Held;
import org.slotbook.core.HoldPolicy;
import org.slotbook.core.HoldRequest;
import org.slotbook.core.ReconciliationJob;
import org.slotbook.core.RequestId;
import org.slotbook.core.RoomId;
import org.slotbook.core.Slot;
import org.slotbook.core.SlotId;
import org.slotbook.core.SlotSpec;
import org.slotbook.core.StudentId;
import org.slotbook.core.TenantId;
import org.slotbook.core.TimeRange;
import org.slotbook.core.spi.BookingStore;
import org.slotbook.core.spi.LiveSlot;
import org.slotbook.core.tck.ForwardingStore;
import org.slotbook.core.tck.MutableClock;

/** The upkeep job when one tenant's shard is down: the others are swept and reconciled all the same. */
class ReconciliationJobTest {
    private final MutableClock clock = new MutableClock();
    private final InMemoryStore memory = InMemoryStore.create();
    private final InMemorySeatReservation gate = InMemorySeatReservation.create(clock);
    private final String run = UUID.randomUUID().toString().substring(0, 8);
    private final TenantId first = TenantId.of(run + "-a");
    private final TenantId down = TenantId.of(run + "-b");
    private final TenantId last = TenantId.of(run + "-c");
    private final SlotId slot = SlotId.of("yoga");
    private BookingEngine engine;
    private Booking stuck;

    @BeforeEach
    void threeTenantsWithAHoldThatRanOut() {
        BookingEngine healthy = engine(memory);
        Instant start = clock.instant().truncatedTo(ChronoUnit.HOURS).plus(Duration.ofDays(1));
        for (TenantId tenant : List.of(first, down, last)) {
            healthy.schedule(tenant, new SlotSpec(slot, CoachId.of("c"), RoomId.of("r"),
                    TimeRange.of(start, Duration.ofHours(1)), 10));
            Held held = (Held) healthy.hold(tenant, HoldRequest.of(RequestId.random(), slot, StudentId.of("s")));
            if (tenant.equals(down)) {
                stuck = held.booking();
            }
        }
        clock.advance(HoldPolicy.ofDefaults().holdTtl().plusMinutes(1));
        engine = engine(new ShardDown(memory, down));
        for (TenantId tenant : List.of(first, down, last)) {
            gate.evict(tenant, slot);
        }
    }

    private BookingEngine engine(BookingStore store) {
        return BookingEngine.builder().store(store).reservation(gate).clock(clock)
                .holdPolicy(HoldPolicy.ofDefaults()).build();
    }

    @Test
    void aTenantWhoseStoreFailsIsCountedAndTheOthersAreSweptAndReconciled() {
        ReconciliationJob job = ReconciliationJob.builder(engine, () -> List.of(first, down, last)).build();

        ReconciliationJob.Run result = job.runOnce().orElseThrow();

        assertThat(result.tenants()).isEqualTo(3);
        assertThat(result.failedTenants()).isEqualTo(1);
        assertUpkeepOfAllButTheTenantThatIsDown(result);
        assertThat(job.runs()).isEqualTo(1);
        assertThat(job.failedRuns()).isZero();
        assertThat(job.failedTenants()).isEqualTo(1);

        assertThat(job.runOnce().orElseThrow().failedTenants()).as("the next run tries it again").isEqualTo(1);
        assertThat(job.failedTenants()).as("counted across runs").isEqualTo(2);
    }

    @Test
    void withoutATenantListTheJobPagesThroughEveryTenantOfTheStore() {
        assertThat(engine.tenants(null, 10)).containsExactly(first, down, last);
        assertThat(engine.tenants(first, 1)).containsExactly(down);
        ReconciliationJob job = ReconciliationJob.builder(engine).tenantPage(1).build();

        ReconciliationJob.Run result = job.runOnce().orElseThrow();

        assertThat(result.tenants()).isEqualTo(3);
        assertThat(result.failedTenants()).isEqualTo(1);
        assertUpkeepOfAllButTheTenantThatIsDown(result);
        assertThat(job.failedTenants()).isEqualTo(1);
    }

    private void assertUpkeepOfAllButTheTenantThatIsDown(ReconciliationJob.Run result) {
        assertThat(result.expired()).isEqualTo(2);
        assertThat(result.report().slotsChecked()).isEqualTo(2);
        for (TenantId tenant : List.of(first, last)) {
            assertThat(((org.slotbook.core.Availability) engine.availability(tenant, slot)).remaining()).as("%s swept", tenant).isEqualTo(10);
            assertThat(gate.inspect(tenant, slot)).as("%s reconciled", tenant).isPresent();
        }
        assertThat(memory.findBooking(down, stuck.bookingId()).orElseThrow().status()).isEqualTo(BookingStatus.HELD);
        assertThat(gate.inspect(down, slot)).isEmpty();
    }

    /** Every call for one tenant fails, as when that tenant's shard is down. */
    private static final class ShardDown extends ForwardingStore {
        private final TenantId down;

        ShardDown(BookingStore delegate, TenantId down) {
            super(delegate);
            this.down = down;
        }

        private void check(TenantId tenantId) {
            if (tenantId.equals(down)) {
                throw new BookingStoreException("the shard of tenant " + tenantId + " is down");
            }
        }

        @Override
        public org.slotbook.core.spi.StoreOutcome<Integer> expireDue(TenantId tenantId, Instant now, int limit,
                                                                      org.slotbook.core.spi.Terms terms) {
            check(tenantId);
            return super.expireDue(tenantId, now, limit, terms);
        }

        @Override
        public Optional<Availability> availability(TenantId tenantId, SlotId slotId, Instant now) {
            check(tenantId);
            return super.availability(tenantId, slotId, now);
        }

        @Override
        public Optional<LiveSlot> liveSlot(TenantId tenantId, SlotId slotId, Instant now) {
            check(tenantId);
            return super.liveSlot(tenantId, slotId, now);
        }

        @Override
        public List<Slot> slots(TenantId tenantId, SlotId after, int limit) {
            check(tenantId);
            return super.slots(tenantId, after, limit);
        }
    }
}
