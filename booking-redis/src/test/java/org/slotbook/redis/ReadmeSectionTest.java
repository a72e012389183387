package org.slotbook.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.slotbook.core.BookingEngine;
import org.slotbook.core.CoachId;
import org.slotbook.core.Held;
import org.slotbook.core.HoldRequest;
import org.slotbook.core.RequestId;
import org.slotbook.core.RoomId;
import org.slotbook.core.SlotId;
import org.slotbook.core.SlotSpec;
import org.slotbook.core.StudentId;
import org.slotbook.core.TenantId;
import org.slotbook.core.TimeRange;
import org.slotbook.core.memory.InMemoryStore;
import org.slotbook.core.spi.SeatReservation;
import org.slotbook.redis.support.TestCluster;
import org.slotbook.redis.support.TestRedis;
import redis.clients.jedis.ConnectionPoolConfig;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.RedisClusterClient;

/**
 * The wiring shown in the README's Redis section, compiled and run here: every {@code java} block of
 * that file must equal one marked region of this class.
 */
class ReadmeSectionTest {

    @Test
    void standaloneWiringWorks() {
        HostAndPort server = TestRedis.standalone();
        String redisHost = server.getHost();
        int redisPort = server.getPort();
        InMemoryStore store = InMemoryStore.create();
        // --- readme: standalone ---
        ConnectionPoolConfig pool = new ConnectionPoolConfig();
        pool.setMaxTotal(64);                          // at least the threads that call the engine
        pool.setMaxWait(Duration.ofMillis(200));       // an exhausted pool must not stall a hold
        RedisClient redis = RedisClient.builder()
                .hostAndPort(redisHost, redisPort)
                .clientConfig(DefaultJedisClientConfig.builder()
                        .connectionTimeoutMillis(200)  // a dead server is noticed at once
                        .socketTimeoutMillis(300)      // a hold script runs in well under a millisecond
                        .build())
                .poolConfig(pool)
                .build();
        SeatReservation gate = RedisSeatReservation.builder(redis)
                .keyPrefix("slotbook:")                // default
                .reclaimBatch(16)                      // default: expired holders reclaimed per hold, at most
                .build();
        BookingEngine engine = BookingEngine.builder()
                .store(store)
                .reservation(gate)
                .build();
        // --- end ---
        try (redis) {
            bookOneSeat(engine);
        }
    }

    @Test
    void clusterWiringWorks() {
        try (TestCluster testCluster = TestCluster.start()) {
            Set<HostAndPort> seeds = testCluster.seeds();
            // --- readme: cluster ---
            RedisClusterClient cluster = RedisClusterClient.builder()
                    .nodes(seeds)                      // any reachable masters; the client learns the rest
                    .clientConfig(DefaultJedisClientConfig.builder()
                            .connectionTimeoutMillis(200)
                            .socketTimeoutMillis(300)
                            .build())
                    .maxAttempts(2)                    // retries multiply the wait when a node is down
                    .maxTotalRetriesDuration(Duration.ofMillis(500))
                    .build();
            SeatReservation gate = RedisSeatReservation.create(cluster);
            // --- end ---
            try (cluster) {
                InMemoryStore store = InMemoryStore.create();
                bookOneSeat(BookingEngine.builder().store(store).reservation(gate).build());
            }
        }
    }

    private static void bookOneSeat(BookingEngine engine) {
        TenantId tenant = TenantId.of("readme-" + System.nanoTime());
        Instant start = Instant.now().plus(Duration.ofDays(1));
        engine.schedule(tenant, new SlotSpec(SlotId.of("yoga"), CoachId.of("ana"), RoomId.of("studio"),
                TimeRange.of(start, Duration.ofHours(1)), 1));
        assertThat(engine.hold(tenant, HoldRequest.of(RequestId.random(), SlotId.of("yoga"), StudentId.of("sam"))))
                .isInstanceOf(Held.class);
        assertThat(engine.hold(tenant, HoldRequest.of(RequestId.random(), SlotId.of("yoga"), StudentId.of("kim"))))
                .isInstanceOf(org.slotbook.core.Full.class);
        assertThat(engine.metrics().gateFull()).as("the gate answered Full alone").isEqualTo(1);
    }

    @Test
    void readmeSnippetsAreTheCompiledOnes() throws IOException {
        String whole = Files.readString(Path.of("../README.md"));
        String readme = whole.substring(whole.indexOf("<!-- booking-redis section"),
                whole.indexOf("<!-- end of booking-redis section -->"));
        List<String> snippets = new ArrayList<>();
        for (int open = readme.indexOf("```java"); open >= 0; open = readme.indexOf("```java", open + 1)) {
            int close = readme.indexOf("```", open + 7);
            snippets.add(normalize(readme.substring(open + 7, close).lines().collect(Collectors.toList())));
        }
        List<String> source = Files.readAllLines(
                Path.of("src/test/java/org/slotbook/redis/ReadmeSectionTest.java"));
        List<String> regions = new ArrayList<>();
        for (String name : List.of("standalone", "cluster")) {
            int from = indexOf(source, "// --- readme: " + name + " ---") + 1;
            int to = from;
            while (!source.get(to).contains("// --- end ---")) {
                to++;
            }
            regions.add(normalize(source.subList(from, to)));
        }
        assertThat(snippets).isEqualTo(regions);
    }

    private static int indexOf(List<String> lines, String marker) {
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).contains(marker)) {
                return i;
            }
        }
        throw new AssertionError("marker not found: " + marker);
    }

    private static String normalize(List<String> lines) {
        int indent = lines.stream().filter(l -> !l.isBlank())
                .mapToInt(l -> l.length() - l.stripLeading().length()).min().orElse(0);
        return lines.stream().map(l -> l.isBlank() ? "" : l.substring(indent).stripTrailing())
                .collect(Collectors.joining("\n")).strip();
    }
}
