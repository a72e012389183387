package org.slotbook.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.UUID;
import java.util.function.IntConsumer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.slotbook.core.BookingEngine;
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
import org.slotbook.core.spi.BookingStore;
import org.slotbook.core.tck.MutableClock;
import org.slotbook.redis.support.JedisClients;
import org.slotbook.redis.support.RedisProcess;
import org.slotbook.redis.support.TestRedis;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.UnifiedJedis;

/**
 * Flash sales through a {@link BookingEngine} while the Redis behind the gate fails: killed, emptied
 * by {@code FLUSHALL}, stripped of its scripts by {@code SCRIPT FLUSH}, restarted. The Redis server
 * is a process this class starts on a free port and kills or stops by its own handle.
 *
 * <p>Invariants are read back from the store: never more live bookings than seats, every
 * {@code Held} the engine answered is a live booking (and every live booking was answered), every
 * request got an answer. The store comes from {@link #store()}, so the same sales run over any
 * {@link BookingStore}: this class ships in booking-redis' test-jar ({@code <type>test-jar</type>}),
 * and a JDBC backend runs them by returning its {@code JdbcStore}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class AbstractRedisFaultTest {
    /** The store under the engine. */
    protected abstract BookingStore store();

    /** Client threads of a sale. */
    protected int threads() {
        return 32;
    }

    private static final HoldPolicy POLICY = HoldPolicy.ofDefaults();

    private RedisProcess redis;
    private UnifiedJedis client;
    private BookingStore store;
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
        // a killed server is noticed at once (refused or dropped connections); the timeouts only
        // bound a server that hangs, and are not so short that a loaded build machine trips them
        client = JedisClients.standalone(redis.hostAndPort(),
                DefaultJedisClientConfig.builder().connectionTimeoutMillis(1000).socketTimeoutMillis(2000).build(),
                TestRedis.poolConfig(threads() + 4));
        store = store();
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
        engine = BookingEngine.builder().store(store).reservation(gate)
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
        FlashSale.Result sale = sell(slot, students, answered -> {
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
        assertThat(sale.slowest()).as("slowest answer").isLessThan(Duration.ofSeconds(10));
    }

    @Test
    void flushAllMidSale() throws Exception {
        SlotId slot = schedule("flushall", 40);
        int students = 4_000;
        FlashSale.Result sale = sell(slot, students, answered -> {
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
        FlashSale.Result sale = sell(slot, students, answered -> {
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
        FlashSale.Result sale = sell(slot, students, answered -> {
            if (answered == students / 10) {
                redis.kill();
            }
        });
        assertInvariants(slot, 30, sale);
        assertThat(redis.isAlive()).isFalse();
        redis.start();
        assertThat(gate.inspect(tenant, slot)).as("restarted empty").isEmpty();
        assertThat(engine.reconcileAll(tenant).slotsChecked()).isEqualTo(1);
        assertGateMatchesLedger(slot, 30, clock.instant());
        // the gate is used again: the next student is turned away by Redis alone
        long full = engine.metrics().gateFull();
        HoldResult late = engine.hold(tenant, HoldRequest.of(RequestId.random(), slot, StudentId.of("late")));
        assertThat(late).isInstanceOf(Full.class);
        assertThat(engine.metrics().gateFull()).isEqualTo(full + 1);
    }

    // ------------------------------------------------------------------ the sale

    private FlashSale.Result sell(SlotId slot, int students, IntConsumer fault) throws Exception {
        return FlashSale.run(engine, tenant, List.of(slot), students, threads(), fault);
    }

    private void assertInvariants(SlotId slot, int capacity, FlashSale.Result sale) {
        FlashSale.assertInvariants(store, tenant, slot, capacity, sale, clock.instant());
    }

    private void assertGateConvergesAfterReconcile(SlotId slot, int capacity) {
        // holders the gate kept for requests the ledger refused are younger than the in-flight grace
        clock.advance(POLICY.inFlightGrace().plusSeconds(1));
        engine.reconcile(tenant, slot);
        assertGateMatchesLedger(slot, capacity, clock.instant());
    }

    private void assertGateMatchesLedger(SlotId slot, int capacity, Instant now) {
        FlashSale.assertGateMatchesLedger(gate, store, tenant, slot, capacity, now);
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
