package org.slotbook.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntConsumer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.slotbook.core.Booking;
import org.slotbook.core.BookingEngine;
import org.slotbook.core.BookingId;
import org.slotbook.core.CoachId;
import org.slotbook.core.Full;
import org.slotbook.core.Held;
import org.slotbook.core.HoldPolicy;
import org.slotbook.core.HoldRequest;
import org.slotbook.core.HoldResult;
import org.slotbook.core.RequestId;
import org.slotbook.core.RoomId;
import org.slotbook.core.Scheduled;
import org.slotbook.core.SlotId;
import org.slotbook.core.SlotSpec;
import org.slotbook.core.StudentId;
import org.slotbook.core.TenantId;
import org.slotbook.core.TimeRange;
import org.slotbook.core.spi.ConflictDetector;
import org.slotbook.core.spi.GateHolder;
import org.slotbook.core.spi.GateView;
import org.slotbook.core.spi.SeatLedger;
import org.slotbook.core.tck.MutableClock;
import org.slotbook.redis.support.RedisProcess;
import org.slotbook.redis.support.TestRedis;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.RedisClient;

/**
 * Flash sales through a {@link BookingEngine} while the Redis behind the gate fails: killed, emptied
 * by {@code FLUSHALL}, stripped of its scripts by {@code SCRIPT FLUSH}, restarted. The Redis server
 * is a process this class starts on a free port and kills or stops by its own handle.
 *
 * <p>Invariants are read back from the ledger: never more live bookings than seats, every
 * {@code Held} the engine answered is a live booking (and every live booking was answered), every
 * request got an answer. The ledger comes from {@link #ledger()}, so the same sale runs over any
 * store.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class AbstractRedisFaultTest {
    /** The ledger under the engine, and its conflict detector (from one store). */
    protected record Ledger(SeatLedger seats, ConflictDetector conflicts) {
    }

    protected abstract Ledger ledger();

    /** Client threads of a sale. */
    protected int threads() {
        return 32;
    }

    private static final HoldPolicy POLICY = HoldPolicy.ofDefaults();

    private RedisProcess redis;
    private RedisClient client;
    private Ledger ledger;
    private MutableClock clock;
    private RedisSeatReservation gate;
    private BookingEngine engine;
    private TenantId tenant;

    @BeforeAll
    void startRedis() {
        if (!RedisProcess.binaryAvailable()) {
            TestRedis.missing("no redis-server binary for the fault tests");
        }
        redis = RedisProcess.standalone();
        // short timeouts and a short pool wait: a dead server is noticed in milliseconds
        client = RedisClient.builder().hostAndPort(redis.hostAndPort())
                .clientConfig(DefaultJedisClientConfig.builder().connectionTimeoutMillis(200)
                        .socketTimeoutMillis(500).build())
                .poolConfig(TestRedis.poolConfig(threads() + 4)).build();
        ledger = ledger();
    }

    @AfterAll
    void stopRedis() {
        if (client != null) {
            client.close();
        }
        if (redis != null) {
            redis.stop();
        }
    }

    @BeforeEach
    void freshEngine() {
        if (!redis.isAlive()) {
            redis.start();
        }
        clock = new MutableClock();
        gate = RedisSeatReservation.builder(client).keyPrefix(TestRedis.freshPrefix("fault")).build();
        engine = BookingEngine.builder().ledger(ledger.seats()).conflicts(ledger.conflicts()).reservation(gate)
                .holdPolicy(POLICY).clock(clock).build();
        tenant = TenantId.of("t-" + UUID.randomUUID());
    }

    @AfterEach
    void serverBack() {
        if (!redis.isAlive()) {
            redis.start();
        }
    }

    @Test
    void killedMidSaleTheEngineGoesOnWithTheDatabaseAlone() throws Exception {
        SlotId slot = schedule("kill", 50);
        int students = 10_000;
        Sale sale = sell(slot, students, answered -> {
            if (answered == students / 3) {
                redis.kill();
            } else if (answered == 2 * students / 3) {
                redis.start();
            }
        });
        assertInvariants(slot, 50, sale);
        System.out.printf("kill mid-sale: %d students, %d held, %d holds without the gate, slowest answer %d ms%n",
                students, sale.held().size(), gate.unavailableCount(), sale.slowest().toMillis());
        assertThat(gate.unavailableCount()).as("holds that found Redis dead").isPositive();
        assertThat(engine.metrics().gateUnavailable()).isPositive();
        // back up and empty: the first hold after the restart found the slot missing and rebuilt it
        assertThat(engine.metrics().gateRebuilds()).isPositive();
        assertGateConvergesAfterReconcile(slot, 50);
        assertThat(sale.slowest()).as("slowest answer").isLessThan(Duration.ofSeconds(5));
    }

    @Test
    void flushAllMidSale() throws Exception {
        SlotId slot = schedule("flushall", 40);
        int students = 4_000;
        Sale sale = sell(slot, students, answered -> {
            if (answered == students / 4 || answered == students / 2) {
                try (Jedis admin = admin()) {
                    admin.flushAll();
                }
            }
        });
        assertInvariants(slot, 40, sale);
        assertThat(engine.metrics().gateRebuilds()).isPositive();
        assertGateConvergesAfterReconcile(slot, 40);
    }

    @Test
    void scriptFlushMidSale() throws Exception {
        SlotId slot = schedule("scriptflush", 40);
        int students = 4_000;
        Sale sale = sell(slot, students, answered -> {
            if (answered % 500 == 0) {
                try (Jedis admin = admin()) {
                    admin.scriptFlush();
                }
            }
        });
        assertInvariants(slot, 40, sale);
        assertThat(gate.unavailableCount()).as("SCRIPT FLUSH never makes the gate unavailable").isZero();
        assertThat(engine.metrics().gateFull()).as("the gate kept answering Full").isPositive();
        // nothing was lost: the gate is exact without any reconcile
        assertGateMatchesLedger(slot, 40, clock.instant());
    }

    @Test
    void saleWhileDownThenRestartAndReconcile() throws Exception {
        SlotId slot = schedule("down", 30);
        int students = 3_000;
        Sale sale = sell(slot, students, answered -> {
            if (answered == students / 10) {
                redis.kill();
            }
        });
        assertInvariants(slot, 30, sale);
        assertThat(redis.isAlive()).isFalse();
        redis.start();
        assertThat(gate.inspect(tenant, slot, clock.instant())).as("restarted empty").isEmpty();
        assertThat(engine.reconcileAll(tenant).slotsChecked()).isEqualTo(1);
        assertGateMatchesLedger(slot, 30, clock.instant());
        // the gate is used again: the next student is turned away by Redis alone
        long full = engine.metrics().gateFull();
        HoldResult late = engine.hold(tenant, HoldRequest.of(RequestId.random(), slot, StudentId.of("late")));
        assertThat(late).isInstanceOf(Full.class);
        assertThat(engine.metrics().gateFull()).isEqualTo(full + 1);
    }

    // ------------------------------------------------------------------ the sale

    private record Sale(List<Held> held, int answers, int requests, long slowestNanos) {
        Duration slowest() {
            return Duration.ofNanos(slowestNanos);
        }
    }

    /** Every student asks once, from {@link #threads()} threads; {@code fault} sees the running answer count. */
    private Sale sell(SlotId slot, int students, IntConsumer fault) throws Exception {
        ConcurrentLinkedQueue<Held> held = new ConcurrentLinkedQueue<>();
        AtomicInteger next = new AtomicInteger();
        AtomicInteger answers = new AtomicInteger();
        AtomicLong slowest = new AtomicLong();
        CountDownLatch start = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(threads());
        try {
            List<Callable<Void>> work = new ArrayList<>();
            for (int t = 0; t < threads(); t++) {
                work.add(() -> {
                    start.await();
                    for (int i = next.getAndIncrement(); i < students; i = next.getAndIncrement()) {
                        long begin = System.nanoTime();
                        HoldResult result = engine.hold(tenant,
                                HoldRequest.of(RequestId.of("r" + i), slot, StudentId.of("student-" + i)));
                        slowest.accumulateAndGet(System.nanoTime() - begin, Math::max);
                        if (result instanceof Held h) {
                            held.add(h);
                        } else {
                            assertThat(result).as("student %d", i).isInstanceOf(Full.class);
                        }
                        fault.accept(answers.incrementAndGet());
                    }
                    return null;
                });
            }
            List<Future<Void>> futures = new ArrayList<>();
            for (Callable<Void> w : work) {
                futures.add(pool.submit(w));
            }
            start.countDown();
            for (Future<Void> f : futures) {
                f.get(120, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        return new Sale(List.copyOf(held), answers.get(), students, slowest.get());
    }

    private void assertInvariants(SlotId slot, int capacity, Sale sale) {
        assertThat(sale.answers()).as("every request answered").isEqualTo(sale.requests());
        List<Booking> live = liveBookings(slot, clock.instant());
        assertThat(live.size()).as("live bookings (no oversell)").isLessThanOrEqualTo(capacity);
        Set<BookingId> liveIds = new HashSet<>();
        live.forEach(b -> liveIds.add(b.bookingId()));
        Set<BookingId> answeredIds = new HashSet<>();
        sale.held().forEach(h -> answeredIds.add(h.booking().bookingId()));
        assertThat(answeredIds).as("answered Held").hasSize(sale.held().size());
        assertThat(liveIds).as("every answered Held is in the ledger, and nothing else").isEqualTo(answeredIds);
        assertThat(live).as("sold out").hasSize(capacity);
    }

    private void assertGateConvergesAfterReconcile(SlotId slot, int capacity) {
        // holders the gate kept for requests the ledger refused are younger than the in-flight grace
        clock.advance(POLICY.inFlightGrace().plusSeconds(1));
        engine.reconcile(tenant, slot);
        assertGateMatchesLedger(slot, capacity, clock.instant());
    }

    private void assertGateMatchesLedger(SlotId slot, int capacity, Instant now) {
        GateView view = gate.inspect(tenant, slot, now).orElseThrow();
        assertThat(view.capacity()).isEqualTo(capacity);
        Set<StudentId> inGate = new HashSet<>();
        for (GateHolder h : view.holders()) {
            inGate.add(h.studentId());
        }
        Set<StudentId> inLedger = new HashSet<>();
        liveBookings(slot, now).forEach(b -> inLedger.add(b.studentId()));
        assertThat(inGate).as("gate holders = ledger's live bookings").isEqualTo(inLedger);
        assertThat(view.remaining()).isEqualTo(capacity - inLedger.size());
    }

    private List<Booking> liveBookings(SlotId slot, Instant now) {
        return ledger.seats().inTransaction(tenant, tx -> {
            tx.setRollbackOnly();
            return ledger.seats().liveBookings(tx, slot, now);
        });
    }

    private SlotId schedule(String name, int capacity) {
        SlotId slot = SlotId.of(name);
        Instant start = clock.instant().truncatedTo(ChronoUnit.HOURS).plus(Duration.ofDays(1));
        assertThat(engine.schedule(tenant, new SlotSpec(slot, CoachId.of("coach-" + name), RoomId.of("room-" + name),
                new TimeRange(start, start.plus(Duration.ofHours(1))), capacity))).isInstanceOf(Scheduled.class);
        return slot;
    }

    private Jedis admin() {
        return new Jedis(redis.hostAndPort(), TestRedis.adminConfig());
    }
}
