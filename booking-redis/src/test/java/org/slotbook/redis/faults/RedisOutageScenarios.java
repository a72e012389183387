package org.slotbook.redis.faults;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;
import org.slotbook.core.Full;
import org.slotbook.core.HoldRequest;
import org.slotbook.core.HoldResult;
import org.slotbook.core.RequestId;
import org.slotbook.core.SlotId;
import org.slotbook.core.StudentId;
import org.slotbook.core.tck.Concurrent;
import org.slotbook.core.tck.faults.FlashSale;
import org.slotbook.core.tck.faults.Violations;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisClientConfig;

/**
 * Flash sales through the engine while the Redis behind the gate fails: killed, emptied by
 * {@code FLUSHALL}, stripped of its scripts by {@code SCRIPT FLUSH}, down for most of the sale. Every
 * sale must answer every student, never oversell, sell out, and answer {@code Held} for exactly the
 * bookings the store keeps; once reconciled, the gate holds exactly the store's live bookings.
 */
public abstract class RedisOutageScenarios extends RedisFaultSuite {
    /** Client threads of a sale. */
    protected int threads() {
        return 32;
    }

    /**
     * A killed server is noticed at once (refused or dropped connections); the timeouts only bound a
     * server that hangs, and are not so short that a loaded build machine trips them.
     */
    @Override
    protected JedisClientConfig clientConfig() {
        return DefaultJedisClientConfig.builder().connectionTimeoutMillis(1000).socketTimeoutMillis(2000).build();
    }

    @Override
    protected int clientConnections() {
        return threads() + 4;
    }

    @Test
    void killedMidSaleTheEngineGoesOnWithTheDatabaseAlone() {
        SlotId slot = schedule("kill", 50);
        int students = 10_000;
        // the threads that answer after the restart began wait until the server is up: else the rest of
        // the sale, answered by the database alone while the server starts, may end before any hold
        // meets the empty gate
        CountDownLatch restarted = new CountDownLatch(1);
        FlashSale.Result sale = sell(slot, students, answered -> {
            if (answered == students / 3) {
                redis.kill();
            } else if (answered == 2 * students / 3) {
                try {
                    redis.start();
                } finally {
                    restarted.countDown();
                }
            } else if (answered > 2 * students / 3) {
                await(restarted);
            }
        });
        Violations v = new Violations();
        invariants().checkSale(slot, 50, sale, clock.instant(), v);
        System.out.printf("kill mid-sale: %d students, %d held, %d holds without the gate, slowest answer %d ms%n",
                students, sale.held().size(), gate.unavailableCount(), sale.slowest().toMillis());
        v.check(gate.unavailableCount() > 0, "no hold found Redis dead");
        v.check(engine.metrics().gateUnavailable() > 0, "the engine counted no hold without the gate");
        // back up and empty: the first hold after the restart found the slot missing and rebuilt it
        v.check(engine.metrics().gateRebuilds() > 0, "the restarted, empty gate was never rebuilt");
        reconcileAndCheckGate(slot, 50, v);
        v.check(sale.slowest().compareTo(Duration.ofSeconds(10)) < 0, "slowest answer %d ms",
                sale.slowest().toMillis());
        report("redis-killed-mid-sale/" + storeName(), v);
    }

    @Test
    void flushAllMidSale() {
        SlotId slot = schedule("flushall", 40);
        int students = 4_000;
        FlashSale.Result sale = sell(slot, students, answered -> {
            if (answered == students / 4 || answered == students / 2) {
                try (Jedis admin = admin()) {
                    admin.flushAll();
                }
            }
        });
        Violations v = new Violations();
        invariants().checkSale(slot, 40, sale, clock.instant(), v);
        v.check(engine.metrics().gateRebuilds() > 0, "the emptied gate was never rebuilt");
        reconcileAndCheckGate(slot, 40, v);
        report("flushall-mid-sale/" + storeName(), v);
    }

    @Test
    void scriptFlushMidSale() {
        SlotId slot = schedule("scriptflush", 40);
        int students = 4_000;
        FlashSale.Result sale = sell(slot, students, answered -> {
            if (answered % 500 == 0) {
                try (Jedis admin = admin()) {
                    admin.scriptFlush();
                }
            }
        });
        Violations v = new Violations();
        invariants().checkSale(slot, 40, sale, clock.instant(), v);
        v.check(gate.unavailableCount() == 0, "SCRIPT FLUSH made the gate unavailable %d times",
                gate.unavailableCount());
        v.check(engine.metrics().gateFull() > 0, "the gate never answered Full");
        // nothing was lost: the gate is exact without any reconcile
        invariants().checkGate(slot, 40, clock.instant(), v);
        report("script-flush-mid-sale/" + storeName(), v);
    }

    @Test
    void saleWhileDownThenRestartAndReconcile() {
        SlotId slot = schedule("down", 30);
        int students = 3_000;
        FlashSale.Result sale = sell(slot, students, answered -> {
            if (answered == students / 10) {
                redis.kill();
            }
        });
        Violations v = new Violations();
        invariants().checkSale(slot, 30, sale, clock.instant(), v);
        assertThat(redis.isAlive()).as("Redis stays down after the kill").isFalse();
        redis.start();
        v.check(gate.inspect(tenant, slot).isEmpty(), "the restarted Redis is not empty");
        v.check(engine.reconcileAll(tenant).slotsChecked() == 1, "reconcileAll did not check the one slot");
        invariants().checkGate(slot, 30, clock.instant(), v);
        // the gate is used again: the next student is turned away by Redis alone
        long full = engine.metrics().gateFull();
        HoldResult late = engine.hold(tenant, HoldRequest.of(RequestId.random(), slot, StudentId.of("late")));
        v.check(late instanceof Full, "a student after the sale was answered %s", late);
        v.check(engine.metrics().gateFull() == full + 1, "the gate did not answer Full alone");
        report("sale-while-redis-down/" + storeName(), v);
    }

    private FlashSale.Result sell(SlotId slot, int students, Concurrent.Progress fault) {
        return FlashSale.run(engine, tenant, List.of(slot), students, threads(), fault);
    }
}
