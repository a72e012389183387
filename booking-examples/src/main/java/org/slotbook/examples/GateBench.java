package org.slotbook.examples;

import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.redisson.Redisson;
import org.redisson.api.RPermitExpirableSemaphore;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import org.slotbook.core.RequestId;
import org.slotbook.core.SlotId;
import org.slotbook.core.SlotSpec;
import org.slotbook.core.StudentId;
import org.slotbook.core.TenantId;
import org.slotbook.core.spi.GateOutcome;
import org.slotbook.core.spi.SeatReservation;
import org.slotbook.examples.bench.LoadDriver;
import org.slotbook.examples.bench.Measured;
import org.slotbook.examples.bench.RedisCleanUp;
import org.slotbook.redis.RedisSeatReservation;
import org.slotbook.redis.internal.SlotKeys;
import redis.clients.jedis.ConnectionPoolConfig;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.RedisClient;

/**
 * Seat decisions per second on one Redis, four ways side by side in the same run, on a full slot and
 * on an open slot, at 16 and 50 client threads:
 * <ul>
 *   <li><b>gate</b>: {@link SeatReservation#tryHold} of {@link RedisSeatReservation} (one
 *       {@code EVALSHA} of {@code hold.lua} through a Jedis {@code RedisClient} pool), with its default
 *       settings: the holds of concurrent threads share pipelines;</li>
 *   <li><b>gate alone</b>: the same with {@code pipelineLanes(0)}, each hold on a pooled connection
 *       of its own;</li>
 *   <li><b>raw</b>: a plain loop of Jedis {@code evalsha} of a minimal 4-command hold script
 *       ({@code TIME}, {@code ZSCORE}, {@code ZCOUNT}, {@code ZADD}, capacity passed as an argument: it
 *       refuses a student who holds already and a full slot, like a real hold) on the same client, on
 *       keys named by the gate's own {@link SlotKeys} — the floor a Lua gate can reach with this
 *       client;</li>
 *   <li><b>redisson</b>: {@code RPermitExpirableSemaphore.tryAcquire(0, ttl)} (a permit leased for
 *       the same ttl) through a Redisson client with a pool of the same size.</li>
 * </ul>
 *
 * <pre>
 * mvn -B -q -pl booking-examples -am compile exec:java -Dexec.mainClass=org.slotbook.examples.GateBench \
 *     -Dexec.args="redis://127.0.0.1:6379 5"
 * </pre>
 *
 * The four of a row are measured side by side: after one second of warm-up each, they take turns of
 * one second until each has had its seconds, so a load that comes and goes on the machine falls on
 * all four alike. On the open slot the gates and the raw script grow alike: each client thread holds
 * on a slot (a sorted set) of its own, and moves to a fresh one before it holds 100,000 seats.
 *
 * <p>Arguments: the Redis URL (default {@code redis://127.0.0.1:6379}) and the seconds measured per
 * figure (default 5). Keys are written under a fresh
 * {@code slotbook-bench:...} prefix, expire within the hour, and are deleted at the end, Redisson's
 * included (found by {@code SCAN} with the gate's own key pattern, never {@code KEYS}).
 */
public final class GateBench {
    private static final TenantId TENANT = TenantId.of("bench");
    private static final Duration TTL = Duration.ofMinutes(10);
    private static final int POOL = 64;
    /** The minimal hold: KEYS[1] holders; ARGV student, ttl ms, capacity. */
    private static final String MINIMAL_HOLD = String.join("\n",
            "local t = redis.call('TIME')",
            "local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)",
            "local score = redis.call('ZSCORE', KEYS[1], ARGV[1])",
            "if score and tonumber(score) > now then return 'D' end",
            "if redis.call('ZCOUNT', KEYS[1], '(' .. now, '+inf') >= tonumber(ARGV[3]) then return 'F' end",
            "redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[1])",
            "return 'H'");

    private GateBench() {
    }

    public static void main(String[] args) throws Exception {
        URI uri = URI.create(args.length > 0 ? args[0] : "redis://127.0.0.1:6379");
        int seconds = args.length > 1 ? Integer.parseInt(args[1]) : 5;
        HostAndPort server = new HostAndPort(uri.getHost(), uri.getPort() > 0 ? uri.getPort() : 6379);
        String prefix = "slotbook-bench:" + Long.toHexString(System.currentTimeMillis()) + ":";

        ConnectionPoolConfig pool = new ConnectionPoolConfig();
        pool.setMaxTotal(POOL);
        pool.setMaxIdle(POOL);
        pool.setMinIdle(50);
        Config config = new Config();
        config.useSingleServer().setAddress("redis://" + server.getHost() + ":" + server.getPort())
                .setConnectionPoolSize(POOL).setConnectionMinimumIdleSize(50).setTimeout(1000);
        RedissonClient redisson = Redisson.create(config);
        try (RedisClient redis = RedisClient.builder().hostAndPort(server)
                .clientConfig(DefaultJedisClientConfig.builder().connectionTimeoutMillis(500)
                        .socketTimeoutMillis(1000).build())
                .poolConfig(pool).build()) {
            RedisSeatReservation gate = RedisSeatReservation.builder(redis).keyPrefix(prefix).build();
            RedisSeatReservation alone = RedisSeatReservation.builder(redis).keyPrefix(prefix).pipelineLanes(0).build();
            Instant keep = Instant.now().plus(Duration.ofHours(1));
            String minimalSha = redis.scriptLoad(MINIMAL_HOLD);
            String ttlMillis = Long.toString(TTL.toMillis());
            System.out.printf(Locale.ROOT, "Redis %s, %d s per figure, minimal hold sha %s%n", server, seconds,
                    minimalSha);

            // the full slots: capacity 1, already held
            SlotId full = SlotId.of("full");
            gate.initialize(TENANT, full, 1, keep);
            gate.tryHold(TENANT, full, StudentId.of("first"), RequestId.of("first"), TTL);
            String rawFull = gate.keys(TENANT, SlotId.of("raw-full")).get(SlotKeys.HOLDERS);
            redis.evalsha(minimalSha, List.of(rawFull), List.of("first", ttlMillis, "1"));
            redis.pexpireAt(rawFull, keep.toEpochMilli());
            RPermitExpirableSemaphore semFull = redisson.getPermitExpirableSemaphore(prefix + "redisson-full");
            semFull.trySetPermits(1);
            semFull.expire(Duration.ofHours(1));
            if (semFull.tryAcquire(0, TTL.toMillis(), TimeUnit.MILLISECONDS) == null) {
                throw new IllegalStateException("could not take the one permit of the full semaphore");
            }

            List<String[]> rows = new ArrayList<>();
            for (int threads : new int[] {16, 50}) {
                double[] fullRates = sideBySide(threads, seconds,
                        new Variant("gate full", (t, i) -> gate.tryHold(TENANT, full, StudentId.of("s" + t + "-" + i),
                                RequestId.of("r" + t + "-" + i), TTL).outcome() == GateOutcome.FULL),
                        new Variant("gate alone full", (t, i) -> alone.tryHold(TENANT, full,
                                StudentId.of("s" + t + "-" + i), RequestId.of("r" + t + "-" + i), TTL).outcome()
                                == GateOutcome.FULL),
                        new Variant("raw full", (t, i) -> "F".equals(redis.evalsha(minimalSha, List.of(rawFull),
                                List.of("s" + t + "-" + i, ttlMillis, "1")))),
                        new Variant("redisson full", (t, i) ->
                                semFull.tryAcquire(0, TTL.toMillis(), TimeUnit.MILLISECONDS) == null));
                rows.add(row("full slot", threads, fullRates));

                // an open slot stays open: each thread holds on a slot of its own and moves to a fresh one
                // before it fills up, the gate's and the raw script's alike
                int capacity = SlotSpec.MAX_CAPACITY;
                String capacityArg = Integer.toString(capacity);
                SlotId[] open = new SlotId[threads];
                SlotId[] aloneOpen = new SlotId[threads];
                String[] rawOpen = new String[threads];
                List<String> rawOpenKeys = Collections.synchronizedList(new ArrayList<>());
                RPermitExpirableSemaphore semOpen = redisson.getPermitExpirableSemaphore(
                        prefix + "redisson-open-" + threads);
                semOpen.trySetPermits(Integer.MAX_VALUE / 2);
                semOpen.expire(Duration.ofHours(1));
                double[] openRates = sideBySide(threads, seconds,
                        new Variant("gate open", (t, i) -> {
                            if (i % (capacity - 1) == 0) {
                                open[t] = SlotId.of("open-" + threads + "-" + t + "-" + i / (capacity - 1));
                                gate.initialize(TENANT, open[t], capacity, keep);
                            }
                            return gate.tryHold(TENANT, open[t], StudentId.of("s" + i), RequestId.of("r" + i), TTL)
                                    .outcome() == GateOutcome.HELD;
                        }),
                        new Variant("gate alone open", (t, i) -> {
                            if (i % (capacity - 1) == 0) {
                                aloneOpen[t] = SlotId.of("alone-open-" + threads + "-" + t + "-" + i / (capacity - 1));
                                alone.initialize(TENANT, aloneOpen[t], capacity, keep);
                            }
                            return alone.tryHold(TENANT, aloneOpen[t], StudentId.of("s" + i), RequestId.of("r" + i),
                                    TTL).outcome() == GateOutcome.HELD;
                        }),
                        new Variant("raw open", (t, i) -> {
                            if (i % (capacity - 1) == 0) {
                                rawOpen[t] = gate.keys(TENANT, SlotId.of("raw-open-" + threads + "-" + t + "-"
                                        + i / (capacity - 1))).get(SlotKeys.HOLDERS);
                                rawOpenKeys.add(rawOpen[t]);
                            }
                            return "H".equals(redis.evalsha(minimalSha, List.of(rawOpen[t]),
                                    List.of("s" + i, ttlMillis, capacityArg)));
                        }),
                        new Variant("redisson open", (t, i) ->
                                semOpen.tryAcquire(0, TTL.toMillis(), TimeUnit.MILLISECONDS) != null));
                for (String key : rawOpenKeys) {
                    redis.pexpireAt(key, keep.toEpochMilli());
                }
                rows.add(row("open slot", threads, openRates));
            }

            System.out.println();
            System.out.println("| slot | client threads | gate tryHold/s | gate, pipelineLanes(0) tryHold/s "
                    + "| raw EVALSHA 4-command hold/s | Redisson RPermitExpirableSemaphore.tryAcquire/s | gate / raw "
                    + "| gate / Redisson |");
            System.out.println("|---|---:|---:|---:|---:|---:|---:|---:|");
            for (String[] r : rows) {
                System.out.println("| " + String.join(" | ", r) + " |");
            }
            RedisCleanUp.deleteMatching(redis, gate.keyPattern());
            // Redisson's semaphores: the permits key under the run's prefix, the leases under "{<name>}:"
            RedisCleanUp.deleteMatching(redis, prefix + "redisson-*");
            RedisCleanUp.deleteMatching(redis, "{" + prefix + "redisson-*");
        } finally {
            redisson.shutdown();
        }
    }

    private interface Call {
        /** The {@code iteration}-th decision of client thread {@code thread}; false when it was not the expected answer. */
        boolean run(int thread, int iteration) throws Exception;
    }

    /** One of the four ways of a row, with each client thread's count of calls so far. */
    private static final class Variant {
        final String name;
        final Call call;
        int[] next;
        long decisions;
        double seconds;

        Variant(String name, Call call) {
            this.name = name;
            this.call = call;
        }
    }

    private static String[] row(String slot, int threads, double[] rates) {
        double gate = rates[0];
        double alone = rates[1];
        double raw = rates[2];
        double redisson = rates[3];
        return new String[] {slot, Integer.toString(threads), String.format(Locale.ROOT, "%,.0f", gate),
                String.format(Locale.ROOT, "%,.0f", alone), String.format(Locale.ROOT, "%,.0f", raw), String.format(Locale.ROOT, "%,.0f", redisson),
                String.format(Locale.ROOT, "%.0f%%", 100 * gate / raw),
                String.format(Locale.ROOT, "%.0f%%", 100 * gate / redisson)};
    }

    /**
     * Decisions per second of each variant: one second of warm-up each, then turns of one second
     * each, round after round, until each has been measured for {@code seconds}. Every answer must be
     * the expected one.
     */
    private static double[] sideBySide(int threads, int seconds, Variant... variants) throws Exception {
        for (Variant v : variants) {
            v.next = new int[threads];
            turn(threads, v);
            v.decisions = 0;
            v.seconds = 0;
        }
        for (int round = 0; round < seconds; round++) {
            for (Variant v : variants) {
                turn(threads, v);
            }
        }
        double[] rates = new double[variants.length];
        for (int i = 0; i < variants.length; i++) {
            rates[i] = variants[i].decisions / variants[i].seconds;
            System.out.printf(Locale.ROOT, "%-16s %2d threads: %,.0f/s%n", variants[i].name, threads, rates[i]);
        }
        return rates;
    }

    /** One second of {@code v} on {@code threads} client threads, added to its count. */
    private static void turn(int threads, Variant v) throws Exception {
        Measured m = LoadDriver.threads(threads).forDuration(Duration.ofSeconds(1), thread -> () -> {
            if (!v.call.run(thread, v.next[thread]++)) {
                throw new IllegalStateException(v.name + ": unexpected answer");
            }
            return true;
        }).requireNoErrors(v.name);
        v.decisions += m.decisions();
        v.seconds += m.seconds();
    }
}
