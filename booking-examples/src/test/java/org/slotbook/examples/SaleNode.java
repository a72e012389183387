package org.slotbook.examples;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.slotbook.core.Availability;
import org.slotbook.core.AvailabilityResult;
import org.slotbook.core.BookingEngine;
import org.slotbook.core.Held;
import org.slotbook.core.HoldPolicy;
import org.slotbook.core.HoldRequest;
import org.slotbook.core.HoldResult;
import org.slotbook.core.RequestId;
import org.slotbook.core.SlotId;
import org.slotbook.core.StudentId;
import org.slotbook.core.TenantId;
import org.slotbook.core.shard.ShardMapping;
import org.slotbook.core.shard.ShardedUpkeep;
import org.slotbook.core.shard.TenantRoutedStore;
import org.slotbook.jdbc.JdbcStore;
import org.slotbook.redis.RedisSeatReservation;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.RedisClient;

/**
 * One application node of {@link TwoNodeFlashSaleTest}, run as a child JVM: an engine over the
 * shards and the Redis gate it is given, selling one slot per tenant until every slot is confirmed
 * full or its deadline passes. Every hold request it sends is answered on one line of its answers
 * file ({@code requestId tenant student answer bookingId}), written and flushed as the answer comes.
 *
 * <p>Arguments, {@code key=value}: {@code shard=NAME|JDBC_URL|PREFIX} (repeated),
 * {@code tenant=TENANT|SHARD} (repeated), {@code slot}, {@code redis}, {@code gatePrefix},
 * {@code answers}, {@code go} (a file whose appearance starts the sale), {@code node} (student id
 * prefix), {@code threads}, {@code paceMillis}, {@code confirm} (true: confirm every hold),
 * {@code holdTtlMillis}, {@code deadlineMillis}.
 */
public final class SaleNode {
    private SaleNode() {
    }

    public static void main(String[] args) throws Exception {
        Map<String, List<String>> a = new LinkedHashMap<>();
        for (String arg : args) {
            int eq = arg.indexOf('=');
            a.computeIfAbsent(arg.substring(0, eq), k -> new ArrayList<>()).add(arg.substring(eq + 1));
        }
        TenantRoutedStore.Builder shards = TenantRoutedStore.builder();
        List<HikariDataSource> pools = new ArrayList<>();
        for (String shard : a.get("shard")) {
            String[] p = shard.split("\\|");
            HikariConfig config = new HikariConfig();
            config.setJdbcUrl(p[1]);
            config.setMaximumPoolSize(8);
            config.setMinimumIdle(1);
            config.setPoolName("node-" + p[0]);
            HikariDataSource ds = new HikariDataSource(config);
            pools.add(ds);
            shards.shard(p[0], JdbcStore.builder(ds).tablePrefix(p[2]).build());
        }
        Map<TenantId, String> table = new ConcurrentHashMap<>();
        List<TenantId> tenants = new ArrayList<>();
        for (String t : a.get("tenant")) {
            String[] p = t.split("\\|");
            tenants.add(TenantId.of(p[0]));
            table.put(TenantId.of(p[0]), p[1]);
        }
        TenantRoutedStore store = shards.mapping(ShardMapping.table(table, x -> {
            throw new IllegalStateException("no shard for " + x);
        })).build();
        URI redisUri = URI.create(one(a, "redis"));
        RedisClient redis = RedisClient.builder()
                .hostAndPort(new HostAndPort(redisUri.getHost(), redisUri.getPort() > 0 ? redisUri.getPort() : 6379))
                .clientConfig(DefaultJedisClientConfig.builder().socketTimeoutMillis(2000).build()).build();
        RedisSeatReservation gate = RedisSeatReservation.builder(redis).keyPrefix(one(a, "gatePrefix")).build();
        HoldPolicy policy = HoldPolicy.ofDefaults()
                .withHoldTtl(Duration.ofMillis(Long.parseLong(one(a, "holdTtlMillis"))))
                .withCacheGrace(Duration.ofMillis(200)).withInFlightGrace(Duration.ofSeconds(10));
        BookingEngine engine = BookingEngine.builder().store(store).reservation(gate).holdPolicy(policy).build();
        SlotId slot = SlotId.of(one(a, "slot"));
        String node = one(a, "node");
        int threads = Integer.parseInt(one(a, "threads"));
        long pace = Long.parseLong(one(a, "paceMillis"));
        boolean confirm = Boolean.parseBoolean(one(a, "confirm"));
        long deadline = System.nanoTime() + Duration.ofMillis(Long.parseLong(one(a, "deadlineMillis"))).toNanos();
        Path go = Path.of(one(a, "go"));

        try (PrintWriter answers = new PrintWriter(Files.newBufferedWriter(Path.of(one(a, "answers")),
                StandardCharsets.UTF_8));
             ShardedUpkeep upkeep = ShardedUpkeep.builder(engine, store).interval(Duration.ofMillis(500)).build()) {
            // ready: the node has its pools, gate and engine; the sale starts when every node is
            Files.writeString(Path.of(one(a, "answers") + ".ready"), "ready");
            while (!Files.exists(go)) {
                Thread.sleep(10);
            }
            upkeep.start();
            AtomicInteger students = new AtomicInteger();
            List<Thread> workers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                Thread worker = new Thread(() -> {
                    try {
                        while (System.nanoTime() < deadline && !soldOut(engine, tenants, slot)) {
                            int n = students.getAndIncrement();
                            TenantId tenant = tenants.get(n % tenants.size());
                            StudentId student = StudentId.of(node + "-" + n);
                            RequestId request = RequestId.random();
                            HoldResult result = engine.hold(tenant, HoldRequest.of(request, slot, student));
                            String booking = result instanceof Held held ? held.booking().bookingId().value() : "-";
                            synchronized (answers) {
                                answers.println(request.value() + " " + tenant.value() + " " + student.value() + " "
                                        + result.getClass().getSimpleName() + " " + booking);
                                answers.flush();
                            }
                            if (confirm && result instanceof Held held) {
                                engine.confirm(tenant, held.booking().bookingId(), student);
                            }
                            Thread.sleep(pace);
                        }
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                });
                worker.start();
                workers.add(worker);
            }
            for (Thread worker : workers) {
                worker.join();
            }
        } finally {
            redis.close();
            pools.forEach(HikariDataSource::close);
        }
    }

    /** Every tenant's slot has all its seats confirmed. */
    private static boolean soldOut(BookingEngine engine, List<TenantId> tenants, SlotId slot) {
        for (TenantId tenant : tenants) {
            AvailabilityResult r = engine.availability(tenant, slot);
            if (!(r instanceof Availability av) || av.confirmed() < av.capacity()) {
                return false;
            }
        }
        return true;
    }

    private static String one(Map<String, List<String>> args, String key) throws IOException {
        List<String> values = args.get(key);
        if (values == null || values.size() != 1) {
            throw new IllegalArgumentException(key + " must be given once, got " + values);
        }
        return values.get(0);
    }
}
