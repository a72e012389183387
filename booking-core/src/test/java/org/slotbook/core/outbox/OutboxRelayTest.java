package org.slotbook.core.outbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.slotbook.core.Booking;
import org.slotbook.core.BookingEngine;
import org.slotbook.core.BookingListener;
import org.slotbook.core.CoachId;
import org.slotbook.core.Held;
import org.slotbook.core.HoldRequest;
import org.slotbook.core.InvalidInputException;
import org.slotbook.core.RequestId;
import org.slotbook.core.RoomId;
import org.slotbook.core.SlotId;
import org.slotbook.core.SlotSpec;
import org.slotbook.core.StudentId;
import org.slotbook.core.TenantId;
import org.slotbook.core.TimeRange;
import org.slotbook.core.memory.InMemoryStore;
import org.slotbook.core.shard.TenantRoutedStore;
import org.slotbook.core.spi.BookingStore;
import org.slotbook.core.spi.ForwardingStore;

/** The relay over every tenant (relayAll, start), across shards, its counters, and a store without an outbox. */
class OutboxRelayTest {

    private static void holdOne(BookingEngine engine, TenantId tenant) {
        Instant start = Instant.now().truncatedTo(ChronoUnit.HOURS).plus(Duration.ofDays(1));
        engine.schedule(tenant, new SlotSpec(SlotId.of("s"), CoachId.of("c"), RoomId.of("r"),
                TimeRange.of(start, Duration.ofHours(1)), 5));
        assertThat(engine.hold(tenant, HoldRequest.of(RequestId.random(), SlotId.of("s"), StudentId.of("a"))))
                .isInstanceOf(Held.class);
    }

    private static BookingEngine engine(BookingStore store, BookingListener listener, String relay) {
        return BookingEngine.builder().store(store).listener(listener)
                .outbox(OutboxSettings.defaults().withRelayId(relay).withFastPathGrace(Duration.ZERO)).build();
    }

    @Test
    void relayAllDeliversTheBacklogOfEveryTenantOnEveryShardOnce() {
        TenantRoutedStore routed = TenantRoutedStore.builder()
                .shard("a", InMemoryStore.create())
                .shard("b", InMemoryStore.create())
                .build();
        BookingEngine deciding = engine(routed, BookingListener.NONE, "deciding"); // never relays: nothing recorded
        Set<TenantId> tenants = new TreeSet<>();
        for (int i = 0; i < 12; i++) {
            TenantId tenant = TenantId.of("relay-all-" + i);
            tenants.add(tenant);
            holdOne(deciding, tenant);
        }
        List<TenantId> heard = new CopyOnWriteArrayList<>();
        BookingEngine relaying = engine(routed, new BookingListener() {
            @Override
            public void held(Booking booking) {
                heard.add(booking.tenantId());
            }
        }, "relaying");

        assertThat(relaying.outbox().relayAll()).isEqualTo(12);
        assertThat(relaying.outbox().relayAll()).isZero();
        assertThat(new TreeSet<>(heard)).isEqualTo(tenants);
        assertThat(heard).hasSize(12);
        OutboxMetrics metrics = relaying.outbox().metrics();
        assertThat(metrics.relayed()).isEqualTo(12);
        assertThat(metrics.backlog()).isZero();
        assertThat(routed.outbox().backlogTenants(null, 100)).isEmpty();
    }

    @Test
    void theScheduledRelayDeliversWhatTheDecidingNodeDidNot() throws Exception {
        InMemoryStore store = InMemoryStore.create();
        BookingEngine deciding = engine(store, BookingListener.NONE, "deciding");
        TenantId tenant = TenantId.of("scheduled");
        holdOne(deciding, tenant);
        List<Booking> heard = new CopyOnWriteArrayList<>();
        BookingEngine relaying = engine(store, new BookingListener() {
            @Override
            public void held(Booking booking) {
                heard.add(booking);
            }
        }, "relaying");
        ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
        try (AutoCloseable relay = relaying.outbox().start(scheduler, Duration.ofMillis(20))) {
            long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while (heard.isEmpty() && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
        } finally {
            scheduler.shutdownNow();
        }
        assertThat(heard).hasSize(1);
        assertThat(relaying.outbox().stats(tenant).pending()).isZero();
        assertThat(relaying.outbox().stats(tenant).lastId()).isEqualTo(1);
    }

    @Test
    void anEngineOnAStoreWithoutAnOutboxDeliversRightAfterTheCommitOnly() {
        BookingStore inner = InMemoryStore.create();
        BookingStore plain = new ForwardingStore() { // a store that keeps no outbox
            @Override
            protected BookingStore delegate() {
                return inner;
            }

            @Override
            public org.slotbook.core.spi.@Nullable OutboxStore outbox() {
                return null;
            }
        };
        List<Booking> heard = new CopyOnWriteArrayList<>();
        BookingEngine engine = engine(plain, new BookingListener() {
            @Override
            public void held(Booking booking) {
                heard.add(booking);
            }
        }, "plain");
        holdOne(engine, TenantId.of("plain"));
        assertThat(heard).hasSize(1);
        assertThat(engine.outbox().relayAll()).isZero();
        assertThat(engine.outbox().purge(TenantId.of("plain"))).isZero();
        assertThatThrownBy(() -> engine.events(TenantId.of("plain"), 0, 10))
                .isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void badArgumentsAreRefusedNamingThem() {
        BookingEngine engine = engine(InMemoryStore.create(), BookingListener.NONE, "args");
        TenantId tenant = TenantId.of("args");
        assertThatThrownBy(() -> engine.events(tenant, -1, 10)).isInstanceOf(InvalidInputException.class)
                .hasMessageContaining("afterId");
        assertThatThrownBy(() -> engine.events(tenant, 0, 0)).isInstanceOf(InvalidInputException.class)
                .hasMessageContaining("limit");
        assertThatThrownBy(() -> engine.outbox().commit(tenant, "", 1)).isInstanceOf(InvalidInputException.class)
                .hasMessageContaining("consumer");
        assertThatThrownBy(() -> OutboxSettings.defaults().withRetries(0, Duration.ofSeconds(1), Duration.ofSeconds(1)))
                .isInstanceOf(InvalidInputException.class).hasMessageContaining("maxAttempts");
        assertThat(OutboxSettings.defaults().withRetries(5, Duration.ofSeconds(1), Duration.ofSeconds(5)).backoff(4))
                .isEqualTo(Duration.ofSeconds(5));
        assertThat(OutboxSettings.defaults().backoff(3)).isEqualTo(Duration.ofSeconds(4));
    }
}
