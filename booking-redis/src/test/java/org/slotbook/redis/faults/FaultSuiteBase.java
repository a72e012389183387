package org.slotbook.redis.faults;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInstance;
import org.slotbook.core.Booking;
import org.slotbook.core.BookingEngine;
import org.slotbook.core.CoachId;
import org.slotbook.core.HoldPolicy;
import org.slotbook.core.RoomId;
import org.slotbook.core.ScheduleResult;
import org.slotbook.core.Scheduled;
import org.slotbook.core.SlotId;
import org.slotbook.core.SlotSpec;
import org.slotbook.core.TenantId;
import org.slotbook.core.TimeRange;
import org.slotbook.core.spi.BookingStore;
import org.slotbook.core.spi.SeatReservation;
import org.slotbook.core.tck.MutableClock;
import org.slotbook.jdbc.JdbcStore;
import org.slotbook.jdbc.testing.TestDatabases.TestDatabase;
import org.slotbook.redis.RedisSeatReservation;
import org.slotbook.redis.support.JedisClients;
import org.slotbook.redis.support.RedisProcess;
import org.slotbook.redis.support.TestRedis;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.UnifiedJedis;

/**
 * The bed every fault scenario runs on: a redis-server process this class starts (and kills or
 * restarts by its own handle), a real database with fresh tables, and per test a fresh tenant, key
 * prefix, {@link MutableClock} and {@link BookingEngine}. Invariants are read back from the tables
 * and the gate by {@link Invariants}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class FaultSuiteBase {
    /** Client threads of a sale: as many as the pool has connections. */
    static final int THREADS = 16;

    static final HoldPolicy POLICY = HoldPolicy.ofDefaults();

    RedisProcess redis;
    UnifiedJedis client;
    TestDatabase db;
    JdbcStore store;

    MutableClock clock;
    RedisSeatReservation gate;
    BookingEngine engine;
    TenantId tenant;

    /** Opens the database of this suite (a {@code TestDatabases} factory). */
    abstract TestDatabase openDatabase();

    @BeforeAll
    void startServers() {
        if (!RedisProcess.binaryAvailable()) {
            TestRedis.missing("no redis-server binary for the fault-injection suite");
        }
        db = openDatabase();
        redis = RedisProcess.standalone();
        // short timeouts: a dead server is noticed in milliseconds, not seconds
        client = JedisClients.standalone(redis.hostAndPort(),
                DefaultJedisClientConfig.builder().connectionTimeoutMillis(200).socketTimeoutMillis(1000).build(),
                TestRedis.poolConfig(THREADS * 2 + 4));
        store = db.store();
    }

    @AfterAll
    void stopServers() {
        if (client != null) {
            client.close();
        }
        if (redis != null) {
            redis.stop();
        }
        if (db != null) {
            db.close();
        }
    }

    @BeforeEach
    void freshTenant() {
        if (!redis.isAlive()) {
            redis.start();
        }
        clock = new MutableClock();
        gate = RedisSeatReservation.builder(client).keyPrefix(TestRedis.freshPrefix("faults")).build();
        engine = engine(store, gate, POLICY);
        tenant = TenantId.of("t-" + UUID.randomUUID());
    }

    @AfterEach
    void redisBack() {
        if (!redis.isAlive()) {
            redis.start();
        }
    }

    /** An engine on {@code store} (the suite's store, or a fault-injecting wrapper of it). */
    BookingEngine engine(BookingStore store, SeatReservation reservation, HoldPolicy policy) {
        return BookingEngine.builder().store(store).reservation(reservation)
                .holdPolicy(policy).clock(clock).build();
    }

    /** A one-hour session tomorrow with its own coach and room. */
    SlotId schedule(String name, int capacity) {
        Instant start = clock.instant().truncatedTo(ChronoUnit.HOURS).plus(Duration.ofDays(1));
        return schedule(name, new TimeRange(start, start.plus(Duration.ofHours(1))), capacity);
    }

    SlotId schedule(String name, TimeRange time, int capacity) {
        SlotId slot = SlotId.of(name);
        ScheduleResult result = engine.schedule(tenant, new SlotSpec(slot, CoachId.of("coach-" + name),
                RoomId.of("room-" + name), time, capacity));
        if (!(result instanceof Scheduled)) {
            throw new AssertionError("could not schedule " + name + ": " + result);
        }
        return slot;
    }

    Invariants invariants() {
        return new Invariants(db, store, gate, tenant);
    }

    List<Booking> liveBookings(SlotId slot) {
        return invariants().liveBookings(slot, clock.instant());
    }

    Jedis admin() {
        return new Jedis(redis.hostAndPort(), TestRedis.adminConfig());
    }

    /** Prints the scenario's one-line summary and fails when any violation was found. */
    static void report(int scenario, String name, long operations, long faults, Violations violations) {
        System.out.printf("scenario %d %s: operations=%d faults=%d violations=%d%n", scenario, name, operations,
                faults, violations.count());
        violations.assertNone(scenario + " " + name);
    }
}
