package org.slotbook.examples;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import org.slotbook.core.RequestId;
import org.slotbook.core.SlotId;
import org.slotbook.core.StudentId;
import org.slotbook.core.TenantId;
import org.slotbook.core.spi.GateDecision;
import org.slotbook.core.spi.GateOutcome;
import org.slotbook.core.spi.SeatReservation;
import org.slotbook.redis.RedisSeatReservation;
import redis.clients.jedis.ConnectionPoolConfig;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.RedisClient;

/**
 * Gate decisions per second through {@link SeatReservation#tryHold} on the Redis gate, on a full slot
 * and on an open slot, at 1 and 50 client threads; and in the same run the raw ceiling:
 * {@code redis-benchmark} (started here as a subprocess) sending {@code EVALSHA} of the same
 * {@code hold.lua} with the same keys and arguments over 1 and 50 connections. Between the two, a
 * plain loop of Jedis {@code evalsha} calls on the same client and threads shows what the client
 * itself costs.
 *
 * <pre>
 * mvn -B -q -pl booking-examples -am compile exec:java -Dexec.mainClass=org.slotbook.examples.GateBench \
 *     -Dexec.args="redis://127.0.0.1:6379 5"
 * </pre>
 *
 * Arguments: the Redis URL (default {@code redis://127.0.0.1:6379}) and the seconds measured per
 * figure (default 5). Keys are written under a fresh {@code slotbook-bench:...} prefix and expire
 * within the hour.
 */
public final class GateBench {
    private static final TenantId TENANT = TenantId.of("bench");
    private static final Duration TTL = Duration.ofMinutes(10);

    private GateBench() {
    }

    public static void main(String[] args) throws Exception {
        URI uri = URI.create(args.length > 0 ? args[0] : "redis://127.0.0.1:6379");
        int seconds = args.length > 1 ? Integer.parseInt(args[1]) : 5;
        HostAndPort server = new HostAndPort(uri.getHost(), uri.getPort() > 0 ? uri.getPort() : 6379);
        String prefix = "slotbook-bench:" + Long.toHexString(System.currentTimeMillis()) + ":";

        ConnectionPoolConfig pool = new ConnectionPoolConfig();
        pool.setMaxTotal(64);
        pool.setMaxIdle(64);
        pool.setMinIdle(50);
        try (RedisClient redis = RedisClient.builder().hostAndPort(server)
                .clientConfig(DefaultJedisClientConfig.builder().connectionTimeoutMillis(500)
                        .socketTimeoutMillis(1000).build())
                .poolConfig(pool).build()) {
            RedisSeatReservation gate = RedisSeatReservation.builder(redis).keyPrefix(prefix).build();
            Instant keep = Instant.now().plus(Duration.ofHours(1));

            SlotId full = SlotId.of("full");
            gate.initialize(TENANT, full, 1, keep);
            Instant now = Instant.now();
            gate.tryHold(TENANT, full, StudentId.of("first"), RequestId.of("first"), now, now.plus(TTL));

            String hold = resource("/org/slotbook/redis/hold.lua");
            String sha = redis.scriptLoad(hold);
            System.out.printf(Locale.ROOT, "Redis %s, %d s per figure, hold.lua sha %s%n", server, seconds, sha);

            List<String[]> rows = new ArrayList<>();
            for (int threads : new int[] {1, 50}) {
                double gateFull = measure(threads, seconds, (t, i) -> {
                    Instant n = Instant.now();
                    return gate.tryHold(TENANT, full, StudentId.of("s" + t + "-" + i), RequestId.of("r" + t + "-" + i),
                            n, n.plus(TTL));
                }, GateOutcome.FULL, "gate");
                String fullBase = prefix + "{bench:full}";
                double jedisFull = measure(threads, seconds, (t, i) -> {
                    long n = System.currentTimeMillis();
                    Object reply = redis.evalsha(sha, List.of(fullBase + ":cap", fullBase + ":holders", fullBase + ":meta"),
                            List.of("s" + t + "-" + i, "r" + t + "-" + i, Long.toString(n), Long.toString(n + 600_000), "16"));
                    return "F".equals(reply) ? GateDecision.FULL : GateDecision.UNAVAILABLE;
                }, GateOutcome.FULL, "jedis");
                double rawFull = redisBenchmark(server, threads, seconds, sha, fullBase, "1");
                rows.add(row("full slot", threads, gateFull, jedisFull, rawFull));

                // an open slot stays open: each thread rotates to a fresh slot before one can fill up
                int capacity = 100_000;
                SlotId[] open = new SlotId[threads];
                double gateOpen = measure(threads, seconds, (t, i) -> {
                    int round = i / (capacity - 1);
                    if (i % (capacity - 1) == 0) {
                        open[t] = SlotId.of("open-" + threads + "-" + t + "-" + round);
                        gate.initialize(TENANT, open[t], capacity, keep);
                    }
                    Instant n = Instant.now();
                    return gate.tryHold(TENANT, open[t], StudentId.of("s" + i), RequestId.of("r" + i), n, n.plus(TTL));
                }, GateOutcome.HELD, "gate");
                String jedisOpen = prefix + "{bench:open-jedis-" + threads + "}";
                redis.set(jedisOpen + ":cap", "1000000000");
                redis.pexpireAt(jedisOpen + ":cap", keep.toEpochMilli());
                double jedisOpenRate = measure(threads, seconds, (t, i) -> {
                    long n = System.currentTimeMillis();
                    Object reply = redis.evalsha(sha, List.of(jedisOpen + ":cap", jedisOpen + ":holders", jedisOpen + ":meta"),
                            List.of("s" + t + "-" + i, "r" + t + "-" + i, Long.toString(n), Long.toString(n + 600_000), "16"));
                    return "H".equals(reply) ? GateDecision.HELD : GateDecision.UNAVAILABLE;
                }, GateOutcome.HELD, "jedis");
                String rawOpen = prefix + "{bench:open-raw-" + threads + "}";
                redis.set(rawOpen + ":cap", "1000000000");
                redis.pexpireAt(rawOpen + ":cap", keep.toEpochMilli());
                double rawOpenRate = redisBenchmark(server, threads, seconds, sha, rawOpen, "1000000000");
                rows.add(row("open slot", threads, gateOpen, jedisOpenRate, rawOpenRate));
            }

            System.out.println();
            System.out.println("| slot | client threads | gate decisions/s (SeatReservation) "
                    + "| plain Jedis EVALSHA/s (same client) | redis-benchmark EVALSHA/s | gate / redis-benchmark |");
            System.out.println("|---|---:|---:|---:|---:|---:|");
            for (String[] r : rows) {
                System.out.println("| " + String.join(" | ", r) + " |");
            }
            for (String key : redis.keys(prefix + "*")) {
                redis.del(key);
            }
        }
    }

    private interface Call {
        GateDecision run(int thread, int iteration);
    }

    private static String[] row(String slot, int threads, double gate, double jedis, double raw) {
        return new String[] {slot, Integer.toString(threads), String.format(Locale.ROOT, "%,.0f", gate),
                String.format(Locale.ROOT, "%,.0f", jedis), String.format(Locale.ROOT, "%,.0f", raw),
                String.format(Locale.ROOT, "%.0f%%", 100 * gate / raw)};
    }

    /** Decisions per second over {@code seconds}, after a one-second warm-up; every answer must be {@code expected}. */
    private static double measure(int threads, int seconds, Call call, GateOutcome expected, String what)
            throws Exception {
        LongAdder done = new LongAdder();
        AtomicBoolean counting = new AtomicBoolean(false);
        AtomicBoolean stop = new AtomicBoolean(false);
        CountDownLatch finished = new CountDownLatch(threads);
        List<Thread> workers = new ArrayList<>();
        RuntimeException[] failure = new RuntimeException[1];
        for (int t = 0; t < threads; t++) {
            int thread = t;
            Thread worker = new Thread(() -> {
                try {
                    for (int i = 0; !stop.get(); i++) {
                        GateDecision d = call.run(thread, i);
                        if (d.outcome() != expected) {
                            throw new IllegalStateException("expected " + expected + ", got " + d);
                        }
                        if (counting.get()) {
                            done.increment();
                        }
                    }
                } catch (RuntimeException e) {
                    failure[0] = e;
                } finally {
                    finished.countDown();
                }
            }, "bench-" + t);
            workers.add(worker);
            worker.start();
        }
        Thread.sleep(1000);
        counting.set(true);
        long start = System.nanoTime();
        Thread.sleep(seconds * 1000L);
        counting.set(false);
        long elapsed = System.nanoTime() - start;
        stop.set(true);
        finished.await();
        if (failure[0] != null) {
            throw failure[0];
        }
        double rate = done.sum() / (elapsed / 1e9);
        System.out.printf(Locale.ROOT, "%-5s %-4s  %2d threads: %,.0f/s%n", what, expected, threads, rate);
        return rate;
    }

    /**
     * redis-benchmark over {@code clients} connections sending EVALSHA of hold.lua on the slot whose
     * keys start with {@code base}; random students, so on an open slot each call adds a holder.
     */
    private static double redisBenchmark(HostAndPort server, int clients, int seconds, String sha, String base,
                                         String capacity) throws IOException, InterruptedException {
        long now = System.currentTimeMillis();
        // about `seconds` worth of requests at the rate a first short run measures
        double probe = runBenchmark(server, clients, 20_000, sha, base, now);
        int requests = (int) Math.max(20_000, Math.min(5_000_000, probe * seconds));
        double rate = runBenchmark(server, clients, requests, sha, base, now);
        System.out.printf(Locale.ROOT, "redis-benchmark -c %2d -n %d EVALSHA hold.lua (%s): %,.0f/s%n", clients, requests,
                capacity.equals("1") ? "full" : "open", rate);
        return rate;
    }

    private static double runBenchmark(HostAndPort server, int clients, int requests, String sha, String base, long now)
            throws IOException, InterruptedException {
        List<String> command = List.of("redis-benchmark", "-h", server.getHost(), "-p", Integer.toString(server.getPort()),
                "-c", Integer.toString(clients), "-n", Integer.toString(requests), "-r", "1000000000", "--csv",
                "EVALSHA", sha, "3", base + ":cap", base + ":holders", base + ":meta",
                "s__rand_int__", "r__rand_int__", Long.toString(now), Long.toString(now + 600_000), "16");
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        double rate = -1;
        StringBuilder output = new StringBuilder();
        try (BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(),
                StandardCharsets.UTF_8))) {
            for (String line = out.readLine(); line != null; line = out.readLine()) {
                output.append(line).append('\n');
                String[] cells = line.split("\",\"");
                if (cells.length >= 2 && cells[0].startsWith("\"EVALSHA")) {
                    rate = Double.parseDouble(cells[1].replace("\"", ""));
                }
            }
        }
        if (process.waitFor() != 0 || rate < 0) {
            throw new IllegalStateException("redis-benchmark failed: " + command + "\n" + output);
        }
        return rate;
    }

    private static String resource(String name) throws IOException {
        try (InputStream in = RedisSeatReservation.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IOException("missing resource " + name);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}
