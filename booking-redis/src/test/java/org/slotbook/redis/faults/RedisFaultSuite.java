package org.slotbook.redis.faults;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.slotbook.core.SlotId;
import org.slotbook.core.tck.faults.FaultSuite;
import org.slotbook.core.tck.faults.ServerProcess;
import org.slotbook.core.tck.faults.Violations;
import org.slotbook.redis.RedisSeatReservation;
import org.slotbook.redis.support.JedisClients;
import org.slotbook.redis.support.RedisProcess;
import org.slotbook.redis.support.TestRedis;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.UnifiedJedis;

/**
 * A {@link FaultSuite} whose gate is a {@link RedisSeatReservation} on a redis-server process the
 * suite starts on a free port and kills, flushes or restarts by its own handle; each test gets a
 * fresh key prefix. The store stays open: a class that runs the scenarios names it.
 */
public abstract class RedisFaultSuite extends FaultSuite<RedisSeatReservation> {
    /** Client threads of a sale: as many as the pool has connections. */
    protected static final int THREADS = 16;

    /** Waits (at most 60 s) until a fault callback counts {@code latch} down. */
    protected static void await(CountDownLatch latch) {
        try {
            if (!latch.await(60, TimeUnit.SECONDS)) {
                throw new AssertionError("waited 60 s for the fault to be injected");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    /** The in-flight grace of {@link #reconcileAsADeploymentWould}, waited out in real time. */
    private static final Duration SHORT_GRACE = Duration.ofMillis(500);

    protected RedisProcess redis;
    protected UnifiedJedis client;

    /**
     * Reconciles {@code slot} once every gate holder the ledger does not name is older than a short
     * in-flight grace by the gate's own clock, as a periodic reconciliation job does once the grace
     * has passed. The gate keeps its own time, which the suite's clock does not move. Besides holders
     * of requests the ledger refused while the gate was wrong, this drops a holder that a reconcile
     * put back from a ledger read that a cancel overtook, when the cancel's tombstone was wiped
     * (DEL, expiry, FLUSHALL) before that reconcile's script ran: its {@code takenAt} is the
     * booking's creation, younger than the default grace.
     */
    protected void reconcileAsADeploymentWould(SlotId slot) {
        sleep(SHORT_GRACE.plusMillis(200));
        engine(store, gate, POLICY.withInFlightGrace(SHORT_GRACE)).reconcile(tenant, slot);
    }

    /**
     * Reconciles as a deployment would ({@link #reconcileAsADeploymentWould}), then checks that the
     * gate's holders are exactly the ledger's live bookings of {@code slot}.
     */
    protected void reconcileAndCheckGate(SlotId slot, int capacity, Violations v) {
        reconcileAsADeploymentWould(slot);
        invariants().checkGate(slot, capacity, clock.instant(), v);
    }

    /**
     * The timeouts of the gate's client. Short by default: a dead server is noticed in milliseconds,
     * not seconds.
     */
    protected JedisClientConfig clientConfig() {
        return DefaultJedisClientConfig.builder().connectionTimeoutMillis(200).socketTimeoutMillis(1000).build();
    }

    /** Connections of the gate's client. */
    protected int clientConnections() {
        return THREADS * 2 + 4;
    }

    @BeforeAll
    void startRedis() {
        if (!RedisProcess.binaryAvailable()) {
            TestRedis.missing("no redis-server binary for the fault scenarios");
        }
        redis = RedisProcess.standalone();
        client = JedisClients.standalone(redis.hostAndPort(), clientConfig(), TestRedis.poolConfig(clientConnections()));
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

    @Override
    protected RedisSeatReservation newGate() {
        return RedisSeatReservation.builder(client).keyPrefix(TestRedis.freshPrefix("faults")).build();
    }

    @Override
    protected List<? extends ServerProcess> servers() {
        return List.of(redis);
    }

    /** A connection to the suite's server, for the faults a scenario injects by command. */
    protected Jedis admin() {
        return new Jedis(redis.hostAndPort(), TestRedis.adminConfig());
    }

    /** The name a scenario's summary line gives its store. */
    protected String storeName() {
        return store.getClass().getSimpleName();
    }
}
