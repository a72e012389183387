package org.slotbook.core.tck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.slotbook.core.AlreadyCancelled;
import org.slotbook.core.Booking;
import org.slotbook.core.BookingEngine;
import org.slotbook.core.BookingListener;
import org.slotbook.core.BookingStatus;
import org.slotbook.core.BookingStoreException;
import org.slotbook.core.CoachId;
import org.slotbook.core.Confirmed;
import org.slotbook.core.Held;
import org.slotbook.core.HoldRequest;
import org.slotbook.core.HoldResult;
import org.slotbook.core.RequestId;
import org.slotbook.core.RoomId;
import org.slotbook.core.Scheduled;
import org.slotbook.core.Slot;
import org.slotbook.core.SlotId;
import org.slotbook.core.SlotSpec;
import org.slotbook.core.StudentId;
import org.slotbook.core.TenantId;
import org.slotbook.core.TimeRange;
import org.slotbook.core.Waitlisted;
import org.slotbook.core.outbox.OutboxEvent;
import org.slotbook.core.outbox.OutboxSettings;
import org.slotbook.core.outbox.OutboxStats;
import org.slotbook.core.spi.BookingEvent.Kind;
import org.slotbook.core.spi.BookingStore;
import org.slotbook.core.spi.GateHolder;
import org.slotbook.core.spi.GateView;
import org.slotbook.core.spi.SeatReservation;
import org.slotbook.core.tck.faults.LossyStore;

/**
 * The outbox, the same on every backend: every decision's events are stored with it, in the order they
 * happened, with ids 1, 2, 3, ... per tenant; the relay delivers what the deciding node did not (a lost
 * acknowledgement, a listener that threw), once, and tells the gate; a listener that keeps throwing
 * dead-letters the event after the bounded tries and the tenant's later events go on; an operator call
 * re-delivers it; two relays over 10,000 events deliver each at least once, record each delivered once,
 * in order per tenant; a pull consumer keeps its place with a stored cursor; retention deletes what was
 * delivered. Mixed into {@link BookingEngineContract}; verdicts are read back from the store's outbox.
 */
public interface OutboxContract {

    TenantId testTenant();

    java.time.Instant testBase();

    BookingStore testStore();

    MutableClock testClock();

    SeatReservation testGate();

    /** An engine over {@code store}, on the test clock, in front of the suite's gate, with these listener and settings. */
    BookingEngine outboxEngine(BookingStore store, BookingListener listener, OutboxSettings settings);

    /**
     * How many events the two-relay test writes over its 4 tenants: 10,000. A run may lower it, saying why, and
     * best well above 400 (4 tenants of the relay's 100 a claim), so that the relays meet on several claims of
     * each tenant; Slotbook's own build keeps 10,000 on the in-memory store and on PostgreSQL.
     */
    default int relayedEvents() {
        return 10_000;
    }

    /** Settings for the tests: the relay takes an event at once, tries 3 times, 1 s back-off doubling. */
    static OutboxSettings testSettings(String relayId) {
        return OutboxSettings.defaults().withRelayId(relayId).withFastPathGrace(Duration.ZERO)
                .withRetries(3, Duration.ofSeconds(1), Duration.ofMinutes(1));
    }

    /** A listener that records what it hears, as (kind, booking id, id) lines; {@code fail} makes it throw. */
    final class Recorder implements BookingListener {
        final List<String> heard = Collections.synchronizedList(new ArrayList<>());
        final List<OutboxEvent> relayed = Collections.synchronizedList(new ArrayList<>());
        volatile java.util.function.Predicate<Booking> fail = b -> false;

        private void hear(Kind kind, Booking b) {
            if (fail.test(b)) {
                throw new IllegalStateException("listener down for " + b.bookingId());
            }
            heard.add(kind + " " + b.bookingId().value());
        }

        @Override
        public void event(OutboxEvent event) {
            BookingListener.super.event(event);
            relayed.add(event);
        }

        @Override
        public void held(Booking booking) {
            hear(Kind.HELD, booking);
        }

        @Override
        public void confirmed(Booking booking) {
            hear(Kind.CONFIRMED, booking);
        }

        @Override
        public void cancelled(Booking booking) {
            hear(Kind.CANCELLED, booking);
        }

        @Override
        public void cancelledLate(Booking booking) {
            hear(Kind.LATE_CANCELLED, booking);
        }

        @Override
        public void expired(Booking booking) {
            hear(Kind.EXPIRED, booking);
        }

        @Override
        public void promoted(Booking booking) {
            hear(Kind.PROMOTED, booking);
        }

        long count(String line) {
            synchronized (heard) {
                return heard.stream().filter(line::equals).count();
            }
        }
    }

    /** A store without an outbox ({@code BookingStore.outbox()} null) skips the suite. */
    private void assumeOutbox() {
        Assumptions.assumeTrue(testStore().outbox() != null, "the store keeps no outbox");
    }

    private Slot outboxSlot(BookingEngine engine, TenantId tenant, String id, int capacity) {
        TimeRange time = TimeRange.of(testBase().plus(Duration.ofHours(2)), Duration.ofMinutes(60));
        var result = engine.schedule(tenant, new SlotSpec(SlotId.of(id), CoachId.of("coach-" + id),
                RoomId.of("room-" + id), time, capacity));
        assertThat(result).as("schedule %s", id).isInstanceOf(Scheduled.class);
        return ((Scheduled) result).slot();
    }

    private static Booking granted(HoldResult result) {
        assertThat(result).isInstanceOf(Held.class);
        return ((Held) result).booking();
    }

    private static List<String> lines(List<OutboxEvent> events) {
        List<String> out = new ArrayList<>();
        for (OutboxEvent e : events) {
            out.add(e.id() + " " + e.kind() + " " + e.booking().bookingId().value());
        }
        return out;
    }

    @Test
    default void everyDecisionStoresItsEventsInTheOrderTheyHappenedWithIdsOneTwoThree() {
        assumeOutbox();
        Recorder heard = new Recorder();
        BookingEngine engine = outboxEngine(testStore(), heard, testSettings("relay-order"));
        TenantId tenant = testTenant();
        Slot slot = outboxSlot(engine, tenant, "ob-order", 1);
        Booking ann = granted(engine.hold(tenant, HoldRequest.of(RequestId.random(), slot.slotId(), StudentId.of("ann"))));
        assertThat(engine.confirm(tenant, ann.bookingId(), StudentId.of("ann"))).isInstanceOf(Confirmed.class);
        HoldRequest wesWaits = HoldRequest.of(RequestId.random(), slot.slotId(), StudentId.of("wes")).orWaitlist();
        Waitlisted waiting = (Waitlisted) engine.hold(tenant, wesWaits);
        engine.cancel(tenant, ann.bookingId(), StudentId.of("ann"));
        String wes = waiting.entry().bookingId().value();

        List<OutboxEvent> events = engine.events(tenant, 0, 100);

        assertThat(lines(events)).containsExactly("1 HELD " + ann.bookingId().value(),
                "2 CONFIRMED " + ann.bookingId().value(), "3 CANCELLED " + ann.bookingId().value(),
                "4 PROMOTED " + wes);
        assertThat(heard.heard).as("the listener heard the same, right after each commit").containsExactly(
                "HELD " + ann.bookingId().value(), "CONFIRMED " + ann.bookingId().value(),
                "CANCELLED " + ann.bookingId().value(), "PROMOTED " + wes);
        OutboxEvent promoted = events.get(3);
        assertThat(promoted.tenantId()).isEqualTo(tenant);
        assertThat(promoted.booking().slotId()).isEqualTo(slot.slotId());
        assertThat(promoted.booking().studentId()).isEqualTo(StudentId.of("wes"));
        assertThat(promoted.booking().requestId()).isEqualTo(wesWaits.requestId());
        assertThat(promoted.booking().status()).isEqualTo(BookingStatus.HELD);
        assertThat(events.get(0).booking().status()).isEqualTo(BookingStatus.HELD);
        assertThat(events.get(2).booking().status()).isEqualTo(BookingStatus.CANCELLED);
        assertThat(engine.events(tenant, 2, 1)).extracting(OutboxEvent::id).containsExactly(3L);
        // what the listener heard right after the commits is recorded delivered on the relay's next pass
        assertThat(engine.outbox().relay(tenant)).isZero();
        assertThat(engine.events(tenant, 0, 100)).extracting(OutboxEvent::state).containsOnly(OutboxEvent.State.DELIVERED);
        assertThat(heard.relayed).isEmpty();
        assertThat(engine.outbox().stats(tenant).pending()).isZero();
        assertThat(engine.outbox().stats(tenant).lastId()).isEqualTo(4);
    }

    @Test
    default void aPromotionWhoseAcknowledgementWasLostIsDeliveredOnceAndCountedByTheGate() {
        assumeOutbox();
        Recorder heard = new Recorder();
        LossyStore lossy = new LossyStore(testStore());
        BookingEngine engine = outboxEngine(lossy, heard, testSettings("relay-lost-ack"));
        TenantId tenant = testTenant();
        Slot slot = outboxSlot(engine, tenant, "ob-lost-ack", 1);
        StudentId ann = StudentId.of("ann");
        Booking anns = granted(engine.hold(tenant, HoldRequest.of(RequestId.random(), slot.slotId(), ann)));
        assertThat(engine.confirm(tenant, anns.bookingId(), ann)).isInstanceOf(Confirmed.class);
        HoldRequest wesWaits = HoldRequest.of(RequestId.random(), slot.slotId(), StudentId.of("wes")).orWaitlist();
        assertThat(engine.hold(tenant, wesWaits)).isInstanceOf(Waitlisted.class);

        // Ann's cancel commits and promotes Wes, but its acknowledgement is lost
        lossy.loseNextCancel.set(true);
        assertThatThrownBy(() -> engine.cancel(tenant, anns.bookingId(), ann)).isInstanceOf(BookingStoreException.class);
        assertThat(engine.cancel(tenant, anns.bookingId(), ann)).as("the retried cancel").isInstanceOf(AlreadyCancelled.class);
        Booking wes = testStore().findByRequest(tenant, wesWaits.requestId()).orElseThrow();
        assertThat(wes.status()).isEqualTo(BookingStatus.HELD);
        assertThat(heard.count("PROMOTED " + wes.bookingId().value())).as("heard before the relay").isZero();

        assertThat(engine.outbox().relay(tenant)).as("delivered by the relay").isEqualTo(2);
        assertThat(engine.outbox().relay(tenant)).as("a second pass").isZero();

        assertThat(heard.count("PROMOTED " + wes.bookingId().value())).isEqualTo(1);
        assertThat(heard.count("CANCELLED " + anns.bookingId().value())).isEqualTo(1);
        assertThat(heard.heard).filteredOn(l -> l.startsWith("HELD ")).hasSize(1);
        assertThat(engine.events(tenant, 0, 100)).extracting(OutboxEvent::state).containsOnly(OutboxEvent.State.DELIVERED);
        if (testGate() != SeatReservation.none()) {
            List<GateHolder> holders = testGate().inspect(tenant, slot.slotId()).map(GateView::holders).orElse(List.of());
            assertThat(holders).as("the gate counts the promoted waiter").extracting(GateHolder::studentId)
                    .contains(StudentId.of("wes"));
        }
    }

    @Test
    default void aListenerThatKeepsThrowingDeadLettersTheEventAndTheTenantGoesOnUntilAnOperatorRedeliversIt() {
        assumeOutbox();
        // the decisions' own engine hears nothing (its listener throws), so every event waits for the relay
        Recorder down = new Recorder();
        down.fail = b -> true;
        BookingEngine deciding = outboxEngine(testStore(), down, testSettings("relay-deciding"));
        TenantId tenant = testTenant();
        Slot slot = outboxSlot(deciding, tenant, "ob-dead", 3);
        Booking x = granted(deciding.hold(tenant, HoldRequest.of(RequestId.random(), slot.slotId(), StudentId.of("x"))));
        Booking y = granted(deciding.hold(tenant, HoldRequest.of(RequestId.random(), slot.slotId(), StudentId.of("y"))));
        Booking z = granted(deciding.hold(tenant, HoldRequest.of(RequestId.random(), slot.slotId(), StudentId.of("z"))));
        Recorder heard = new Recorder();
        AtomicBoolean xDown = new AtomicBoolean(true);
        heard.fail = b -> xDown.get() && b.bookingId().equals(x.bookingId());
        BookingEngine relay = outboxEngine(testStore(), heard, testSettings("relay-dead"));

        assertThat(relay.outbox().relay(tenant)).as("the first try fails; y and z wait behind x").isZero();
        assertThat(relay.outbox().relay(tenant)).as("not before the back-off").isZero();
        testClock().advance(Duration.ofSeconds(1));
        assertThat(relay.outbox().relay(tenant)).as("the second try").isZero();
        testClock().advance(Duration.ofSeconds(2));
        assertThat(relay.outbox().relay(tenant)).as("the third try: a dead letter").isZero();
        assertThat(relay.outbox().relay(tenant)).as("the tenant goes on").isEqualTo(2);

        assertThat(heard.heard).containsExactly("HELD " + y.bookingId().value(), "HELD " + z.bookingId().value());
        List<OutboxEvent> dead = relay.outbox().deadLetters(tenant, 10);
        assertThat(lines(dead)).containsExactly("1 HELD " + x.bookingId().value());
        assertThat(dead.get(0).attempts()).isEqualTo(3);
        assertThat(dead.get(0).lastError()).contains("listener down for " + x.bookingId().value());
        OutboxStats stats = relay.outbox().stats(tenant);
        assertThat(stats.dead()).isEqualTo(1);
        assertThat(stats.pending()).isZero();
        assertThat(relay.outbox().metrics().failures()).isEqualTo(3);
        assertThat(relay.outbox().metrics().deadLetters()).isEqualTo(1);

        xDown.set(false);
        assertThat(relay.outbox().redeliver(tenant, dead.get(0).id())).isTrue();
        assertThat(relay.outbox().redeliver(tenant, dead.get(0).id())).as("not dead any more").isFalse();
        assertThat(relay.outbox().relay(tenant)).isEqualTo(1);
        assertThat(heard.count("HELD " + x.bookingId().value())).isEqualTo(1);
        assertThat(relay.outbox().deadLetters(tenant, 10)).isEmpty();
        assertThat(relay.outbox().stats(tenant).dead()).isZero();
        assertThat(relay.events(tenant, 0, 10)).extracting(OutboxEvent::state).containsOnly(OutboxEvent.State.DELIVERED);
    }

    @Test
    default void twoRelaysDeliverEveryEventAtLeastOnceRecordItDeliveredOnceAndKeepTheOrderOfEachTenant() {
        assumeOutbox();
        int tenants = 4;
        int perTenant = relayedEvents() / tenants;
        // the deciding engine never runs its relay, so nothing it heard is recorded delivered: all wait for the relays
        BookingEngine deciding = outboxEngine(testStore(), BookingListener.NONE, testSettings("relay-load"));
        List<TenantId> ids = new ArrayList<>();
        for (int t = 0; t < tenants; t++) {
            TenantId tenant = TenantId.of(testTenant().value() + "-" + t);
            ids.add(tenant);
            outboxSlot(deciding, tenant, "ob-load", perTenant);
        }
        Concurrent.run(16, tenants * perTenant, i -> {
            TenantId tenant = ids.get(i % tenants);
            granted(deciding.hold(tenant, HoldRequest.of(RequestId.random(), SlotId.of("ob-load"),
                    StudentId.of("s" + i))));
            return null;
        });
        Map<TenantId, List<Long>> delivered = new HashMap<>();
        ids.forEach(t -> delivered.put(t, new ArrayList<>()));
        List<BookingEngine> relays = new ArrayList<>();
        for (String name : List.of("relay-a", "relay-b")) {
            relays.add(outboxEngine(testStore(), new BookingListener() {
                @Override
                public void event(OutboxEvent event) {
                    List<Long> mine = delivered.get(event.tenantId());
                    synchronized (mine) {
                        mine.add(event.id());
                    }
                }
            }, testSettings(name)));
        }
        Concurrent.run(2, r -> {
            boolean more = true;
            while (more) {
                more = false;
                for (TenantId tenant : ids) {
                    relays.get(r).outbox().relay(tenant);
                    more |= relays.get(r).outbox().stats(tenant).pending() > 0;
                }
            }
            return null;
        });

        for (TenantId tenant : ids) {
            List<Long> got = delivered.get(tenant);
            assertThat(new java.util.TreeSet<>(got)).as("every event of %s at least once", tenant)
                    .hasSize(perTenant).first().isEqualTo(1L);
            assertThat(got).as("in order").isSorted();
            long recorded = 0;
            for (long after = 0; ; ) {
                List<OutboxEvent> page = deciding.events(tenant, after, 1000);
                if (page.isEmpty()) {
                    break;
                }
                for (OutboxEvent e : page) {
                    assertThat(e.state()).isEqualTo(OutboxEvent.State.DELIVERED);
                    assertThat(e.deliveredAt()).isNotNull();
                    recorded++;
                }
                after = page.get(page.size() - 1).id();
            }
            assertThat(recorded).as("recorded delivered, once each").isEqualTo(perTenant);
        }
    }

    @Test
    default void aPullConsumerReadsAfterItsStoredCursorWhateverWasDelivered() {
        assumeOutbox();
        BookingEngine engine = outboxEngine(testStore(), BookingListener.NONE, testSettings("relay-pull"));
        TenantId tenant = testTenant();
        Slot slot = outboxSlot(engine, tenant, "ob-pull", 5);
        for (int i = 0; i < 5; i++) {
            granted(engine.hold(tenant, HoldRequest.of(RequestId.random(), slot.slotId(), StudentId.of("p" + i))));
        }
        assertThat(engine.outbox().cursor(tenant, "kafka")).isZero();
        List<OutboxEvent> first = engine.outbox().next(tenant, "kafka", 2);
        assertThat(first).extracting(OutboxEvent::id).containsExactly(1L, 2L);
        engine.outbox().commit(tenant, "kafka", 2);
        assertThat(engine.outbox().cursor(tenant, "kafka")).isEqualTo(2);
        assertThat(engine.outbox().next(tenant, "kafka", 10)).extracting(OutboxEvent::id).containsExactly(3L, 4L, 5L);
        assertThat(engine.outbox().cursor(tenant, "audit")).as("another consumer").isZero();
        engine.outbox().commit(tenant, "kafka", 5);
        assertThat(engine.outbox().next(tenant, "kafka", 10)).isEmpty();
        assertThat(engine.events(testTenant(), 0, 1000)).hasSize(5);
        assertThat(engine.events(TenantId.of(testTenant().value() + "-other"), 0, 10)).as("another tenant's").isEmpty();
    }

    @Test
    default void retentionDeletesDeliveredEventsOnly() {
        assumeOutbox();
        Recorder heard = new Recorder();
        BookingEngine engine = outboxEngine(testStore(), heard,
                testSettings("relay-retention").withRetention(Duration.ofHours(1)));
        TenantId tenant = testTenant();
        Slot slot = outboxSlot(engine, tenant, "ob-retention", 2);
        Booking a = granted(engine.hold(tenant, HoldRequest.of(RequestId.random(), slot.slotId(), StudentId.of("a"))));
        heard.fail = b -> b.studentId().equals(StudentId.of("b"));
        granted(engine.hold(tenant, HoldRequest.of(RequestId.random(), slot.slotId(), StudentId.of("b"))));
        engine.outbox().relay(tenant); // records a delivered; b fails again and waits for its back-off
        assertThat(engine.outbox().purge(tenant)).as("delivered less than the retention ago").isZero();
        testClock().advance(Duration.ofHours(2));
        assertThat(engine.outbox().purge(tenant)).isGreaterThanOrEqualTo(1);
        List<OutboxEvent> left = engine.events(tenant, 0, 10);
        assertThat(left).extracting(e -> e.booking().bookingId()).doesNotContain(a.bookingId());
        assertThat(left).extracting(OutboxEvent::state).containsExactly(OutboxEvent.State.PENDING);
    }
}
