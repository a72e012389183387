package org.slotbook.core.shard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Nested;
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
import org.slotbook.core.HoldResult;
import org.slotbook.core.RequestId;
import org.slotbook.core.RoomId;
import org.slotbook.core.Slot;
import org.slotbook.core.SlotId;
import org.slotbook.core.SlotSpec;
import org.slotbook.core.StudentId;
import org.slotbook.core.TenantId;
import org.slotbook.core.TimeRange;
import org.slotbook.core.memory.InMemorySeatReservation;
import org.slotbook.core.memory.InMemoryStore;
import org.slotbook.core.spi.BookingStore;
import org.slotbook.core.spi.HoldCommand;
import org.slotbook.core.spi.SeatReservation;
import org.slotbook.core.spi.StoreOutcome;
import org.slotbook.core.tck.BookingEngineContract;
import org.slotbook.core.tck.BookingStoreContract;
import org.slotbook.core.tck.Fixtures;
import org.slotbook.core.tck.ForwardingStore;
import org.slotbook.core.tck.MutableClock;

/** The routed store over three in-memory shards: the contract suites pass through it, and each tenant lives on one shard. */
class TenantRoutedStoreTest {
    private static final TenantRoutedStore ROUTED = TenantRoutedStore.builder()
            .shard("a", InMemoryStore.create())
            .shard("b", InMemoryStore.create())
            .shard("c", InMemoryStore.create())
            .build();

    @Nested
    class StoreContract extends BookingStoreContract {
        @Override
        protected BookingStore store() {
            return ROUTED;
        }
    }

    @Nested
    class EngineContract extends BookingEngineContract {
        @Override
        protected BookingStore store() {
            return ROUTED;
        }

        /** InMemoryTest relays 10,000 events over the shards' store; here the relay of each tenant on its shard. */
        @Override
        public int relayedEvents() {
            return 2_000;
        }
    }

    @Nested
    class GatedEngineContract extends BookingEngineContract {
        private InMemorySeatReservation gate;

        @Override
        protected BookingStore store() {
            return ROUTED;
        }

        @Override
        protected SeatReservation reservation() {
            if (gate == null) {
                gate = InMemorySeatReservation.create(clock);
            }
            return gate;
        }

        /** As in {@link EngineContract}; here each delivered batch also reaches the gate. */
        @Override
        public int relayedEvents() {
            return 2_000;
        }
    }

    private final MutableClock clock = new MutableClock();
    private final Instant start = clock.instant().truncatedTo(ChronoUnit.HOURS).plus(Duration.ofDays(1));
    private final SlotId slot = SlotId.of("yoga");

    private BookingEngine engine(BookingStore store, SeatReservation gate) {
        return BookingEngine.builder().store(store).reservation(gate).clock(clock)
                .holdPolicy(HoldPolicy.ofDefaults()).build();
    }

    private void scheduleYoga(BookingEngine engine, TenantId tenant, int seats) {
        engine.schedule(tenant, new SlotSpec(slot, CoachId.of("c"), RoomId.of("r"),
                TimeRange.of(start, Duration.ofHours(1)), seats));
    }

    private static Booking hold(BookingEngine engine, TenantId tenant, SlotId slot, String student) {
        HoldResult result = engine.hold(tenant, HoldRequest.of(RequestId.random(), slot, StudentId.of(student)));
        assertThat(result).as("hold of %s for %s", student, tenant).isInstanceOf(Held.class);
        return ((Held) result).booking();
    }

    @Test
    void eachTenantLivesWholeOnTheShardTheMappingNames() {
        BookingEngine engine = engine(ROUTED, SeatReservation.none());
        Map<String, Integer> perShard = new HashMap<>();
        for (int i = 0; i < 30; i++) {
            TenantId tenant = Fixtures.tenant();
            scheduleYoga(engine, tenant, 2);
            Booking booking = hold(engine, tenant, slot, "s");
            String home = ROUTED.shardOf(tenant);
            perShard.merge(home, 1, Integer::sum);
            for (String name : ROUTED.shardNames()) {
                BookingStore shard = ROUTED.shard(name);
                boolean here = name.equals(home);
                assertThat(shard.slots(tenant, null, 10)).as("slots of %s on %s", tenant, name).hasSize(here ? 1 : 0);
                assertThat(shard.findBooking(tenant, booking.bookingId())).as("booking on %s", name)
                        .isEqualTo(here ? Optional.of(booking) : Optional.empty());
            }
        }
        assertThat(perShard).as("30 tenants spread over the three shards").containsOnlyKeys("a", "b", "c");
    }

    @Test
    void rendezvousIsFixedByTheNamesAndMovesOnlyWhatANewShardTakes() {
        ShardMapping three = ShardMapping.rendezvous(List.of("a", "b", "c"));
        ShardMapping sameInAnotherOrder = ShardMapping.rendezvous(List.of("c", "a", "b"));
        ShardMapping four = ShardMapping.rendezvous(List.of("a", "b", "c", "d"));
        Map<String, Integer> counts = new HashMap<>();
        int moved = 0;
        for (int i = 0; i < 3000; i++) {
            TenantId tenant = TenantId.of("tenant-" + i);
            String before = three.shardOf(tenant);
            assertThat(sameInAnotherOrder.shardOf(tenant)).isEqualTo(before);
            String after = four.shardOf(tenant);
            if (!after.equals(before)) {
                assertThat(after).as("a tenant only ever moves to the new shard").isEqualTo("d");
                moved++;
            }
            counts.merge(before, 1, Integer::sum);
        }
        assertThat(counts.values()).allSatisfy(n -> assertThat(n).isBetween(850, 1150));
        assertThat(moved).as("about a quarter moves to the fourth shard").isBetween(600, 900);
        // the hash is part of the contract: these answers never change between versions
        assertThat(List.of("tenant-0", "tenant-1", "tenant-2", "tenant-3", "campus-17").stream()
                .map(id -> three.shardOf(TenantId.of(id))).toList()).isEqualTo(PINNED);
    }

    /** Rendezvous answers for tenant-0..3 and campus-17 over a, b, c, computed once and pinned. */
    private static final List<String> PINNED = List.of("b", "b", "b", "b", "a");

    @Test
    void aTableMappingOverridesTheDefaultAndASwitchTakesEffectOnTheNextCall() {
        InMemoryStore a = InMemoryStore.create();
        InMemoryStore b = InMemoryStore.create();
        Map<TenantId, String> table = new ConcurrentHashMap<>();
        TenantRoutedStore routed = TenantRoutedStore.builder().shard("a", a).shard("b", b)
                .mapping(ShardMapping.table(table, tenant -> "a")).build();
        BookingEngine engine = engine(routed, SeatReservation.none());
        TenantId tenant = Fixtures.tenant();
        table.put(tenant, "b");
        scheduleYoga(engine, tenant, 3);
        assertThat(b.slots(tenant, null, 10)).hasSize(1);
        assertThat(a.slots(tenant, null, 10)).isEmpty();

        table.remove(tenant);
        assertThat(routed.shardOf(tenant)).isEqualTo("a");
        assertThat(engine.availability(tenant, slot)).as("shard a has no such slot")
                .isNotInstanceOf(Availability.class);
        table.put(tenant, "b");
        assertThat(((Availability) engine.availability(tenant, slot)).remaining()).isEqualTo(3);
    }

    @Test
    void tenantsMergesTheShardsInOrderAndSkipsRowsLeftOnAFormerShard() {
        InMemoryStore a = InMemoryStore.create();
        InMemoryStore b = InMemoryStore.create();
        Map<TenantId, String> table = new ConcurrentHashMap<>();
        TenantRoutedStore routed = TenantRoutedStore.builder().shard("a", a).shard("b", b)
                .mapping(ShardMapping.table(table, tenant -> "a")).build();
        String run = Fixtures.shortRandom();
        List<TenantId> ids = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            TenantId tenant = TenantId.of(run + "-" + i);
            ids.add(tenant);
            table.put(tenant, i % 2 == 0 ? "a" : "b");
            scheduleYoga(engine(routed, SeatReservation.none()), tenant, 1);
        }
        // tenant 0 moved to b: its rows copied there, the old ones still on a
        table.put(ids.get(0), "b");
        scheduleYoga(engine(b, SeatReservation.none()), ids.get(0), 1);
        assertThat(a.tenants(null, 10)).contains(ids.get(0));

        assertThat(routed.tenants(null, 10)).containsExactlyElementsOf(ids);
        assertThat(routed.tenants(ids.get(1), 2)).containsExactly(ids.get(2), ids.get(3));
        assertThat(routed.tenantsOn("a").get()).containsExactly(ids.get(2), ids.get(4));
        assertThat(routed.tenantsOn("b").get()).containsExactly(ids.get(0), ids.get(1), ids.get(3), ids.get(5));
    }

    @Test
    void withOneShardDownTheOtherShardsTenantsAreServedAndNothingIsLost() {
        Switchable down = new Switchable(InMemoryStore.create());
        Map<TenantId, String> table = new ConcurrentHashMap<>();
        TenantRoutedStore routed = TenantRoutedStore.builder().shard("up", InMemoryStore.create())
                .shard("down", down).mapping(ShardMapping.table(table, t -> "up")).build();
        BookingEngine engine = engine(routed, InMemorySeatReservation.create(clock));
        TenantId served = Fixtures.tenant();
        TenantId stranded = Fixtures.tenant();
        table.put(stranded, "down");
        scheduleYoga(engine, served, 5);
        scheduleYoga(engine, stranded, 5);
        Booking kept = hold(engine, stranded, slot, "before");

        down.down = true;
        hold(engine, served, slot, "during");
        assertThatThrownBy(() -> engine.hold(stranded, HoldRequest.of(RequestId.random(), slot,
                StudentId.of("during")))).isInstanceOf(BookingStoreException.class);
        assertThat(routed.shard("up").liveSlot(served, slot, clock.instant()).orElseThrow().live()).hasSize(1);

        down.down = false;
        assertThat(routed.shard("down").findBooking(stranded, kept.bookingId())).contains(kept);
        hold(engine, stranded, slot, "after");
        assertThat(routed.shard("down").liveSlot(stranded, slot, clock.instant()).orElseThrow().live())
                .extracting(Booking::studentId).containsExactlyInAnyOrder(StudentId.of("before"), StudentId.of("after"));
    }

    @Test
    void upkeepRunsShardByShardAndAShardThatIsDownStopsNoOther() {
        Switchable down = new Switchable(InMemoryStore.create());
        Map<TenantId, String> table = new ConcurrentHashMap<>();
        TenantRoutedStore routed = TenantRoutedStore.builder().shard("up", InMemoryStore.create())
                .shard("down", down).mapping(ShardMapping.table(table, t -> "up")).build();
        BookingEngine engine = engine(routed, InMemorySeatReservation.create(clock));
        TenantId served = Fixtures.tenant();
        TenantId stranded = Fixtures.tenant();
        table.put(stranded, "down");
        scheduleYoga(engine, served, 5);
        scheduleYoga(engine, stranded, 5);
        Booking a = hold(engine, served, slot, "s");
        Booking b = hold(engine, stranded, slot, "s");
        clock.advance(HoldPolicy.ofDefaults().holdTtl().plusMinutes(1));
        down.down = true;

        try (ShardedUpkeep upkeep = ShardedUpkeep.builder(engine, routed).build()) {
            ShardedUpkeep.Result first = upkeep.runOnce();
            assertThat(first.failedShards()).containsOnlyKeys("down");
            assertThat(first.shards()).containsOnlyKeys("up");
            assertThat(first.expired()).isEqualTo(1);
            assertThat(routed.shard("up").findBooking(served, a.bookingId()).orElseThrow().status())
                    .isEqualTo(BookingStatus.EXPIRED);

            down.down = false;
            assertThat(routed.shard("down").findBooking(stranded, b.bookingId()).orElseThrow().status())
                    .as("untouched while its shard was down").isEqualTo(BookingStatus.HELD);
            ShardedUpkeep.Result second = upkeep.runOnce();
            assertThat(second.failedShards()).isEmpty();
            assertThat(second.expired()).isEqualTo(1);
            assertThat(routed.shard("down").findBooking(stranded, b.bookingId()).orElseThrow().status())
                    .isEqualTo(BookingStatus.EXPIRED);
            assertThat(upkeep.job("down").failedRuns()).isZero();
        }
    }

    @Test
    void badSettingsAreRefusedNamingTheFieldAndValue() {
        assertThatThrownBy(() -> TenantRoutedStore.builder().build()).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("shards");
        assertThatThrownBy(() -> TenantRoutedStore.builder().shard("a", InMemoryStore.create())
                .shard("a", InMemoryStore.create())).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("shard").hasMessageContaining("'a'");
        assertThatThrownBy(() -> TenantRoutedStore.builder().shard(" ", InMemoryStore.create()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("shard");
        assertThatThrownBy(() -> ShardMapping.rendezvous(List.of())).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("shards");
        TenantRoutedStore lost = TenantRoutedStore.builder().shard("a", InMemoryStore.create())
                .mapping(t -> "z").build();
        TenantId tenant = TenantId.of("acme");
        assertThatThrownBy(() -> lost.availability(tenant, slot, clock.instant()))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("'acme'").hasMessageContaining("'z'");
        assertThatThrownBy(() -> ROUTED.hold(null, null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("tenantId");
        assertThatThrownBy(() -> ROUTED.shard("nope")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'nope'");
    }

    /** A shard that can be taken down: every call then fails as a database that cannot be reached. */
    private static final class Switchable extends ForwardingStore {
        volatile boolean down;

        Switchable(BookingStore delegate) {
            super(delegate);
        }

        @Override
        protected BookingStore delegate() {
            if (down) {
                throw new BookingStoreException("shard unreachable", null, true, false);
            }
            return super.delegate();
        }
    }
}
