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
import org.slotbook.core.Full;
import org.slotbook.core.Held;
import org.slotbook.core.HoldRequest;
import org.slotbook.core.RequestId;
import org.slotbook.core.RoomId;
import org.slotbook.core.SlotId;
import org.slotbook.core.SlotSpec;
import org.slotbook.core.StudentId;
import org.slotbook.core.TenantId;
import org.slotbook.core.TimeRange;
import org.slotbook.core.tck.MarkdownPages;
import org.slotbook.core.memory.InMemoryStore;
import org.slotbook.core.spi.GateHolder;
import org.slotbook.core.spi.GateView;
import org.slotbook.core.spi.SeatReservation;
import org.slotbook.redis.support.TestCluster;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisCluster;
import redis.clients.jedis.UnifiedJedis;

/**
 * The wiring shown in the guide's Redis page: every {@code java} block of its marked section must equal
 * one marked region of this class or of {@code ReadmeWiringTest}, whose two variants (under
 * {@code src/test/jedis-client} and {@code src/test/jedis-pooled}) hold the snippets that need the
 * client classes of one Jedis generation. Each build compiles and runs the variant of its Jedis; the
 * {@code JedisCluster} snippet, whose constructor every tested Jedis has, runs here in every build.
 */
class ReadmeSectionTest {
    private static final Path TESTS = Path.of("src/test");
    private static final Path PACKAGE = Path.of("org/slotbook/redis");

    /** The page's java blocks in order: the file and the marked region each must equal. */
    private static final List<List<String>> SNIPPETS = List.of(
            List.of("jedis-client", "ReadmeWiringTest.java", "standalone"),
            List.of("jedis-pooled", "ReadmeWiringTest.java", "standalone-pooled"),
            List.of("jedis-client", "ReadmeWiringTest.java", "cluster"),
            List.of("java", "ReadmeSectionTest.java", "cluster-jediscluster"));

    @Test
    @SuppressWarnings("deprecation") // JedisCluster is deprecated in Jedis 8 (RedisClusterClient), not in 6.x and 7.x
    void jedisClusterWiringWorks() {
        TestCluster testCluster = TestCluster.shared();
        Set<HostAndPort> seeds = testCluster.seeds();
        // --- readme: cluster-jediscluster ---
        JedisCluster cluster = new JedisCluster(seeds,
                DefaultJedisClientConfig.builder()
                        .connectionTimeoutMillis(200)
                        .socketTimeoutMillis(300)
                        .build(),
                2,                                 // maxAttempts
                Duration.ofMillis(500));           // maxTotalRetriesDuration
        SeatReservation gate = RedisSeatReservation.create(cluster);
        // --- end ---
        try (cluster) {
            InMemoryStore store = InMemoryStore.create();
            bookOneSeat(BookingEngine.builder().store(store).reservation(gate).build(), cluster);
        }
    }

    /**
     * Books the one seat of a fresh slot, sees the gate alone refuse the next student, and reads the
     * gate's keys back through {@code redis}: capacity 1, the first student its only holder.
     */
    static void bookOneSeat(BookingEngine engine, UnifiedJedis redis) {
        TenantId tenant = TenantId.of("readme-" + System.nanoTime());
        SlotId slot = SlotId.of("yoga");
        Instant start = Instant.now().plus(Duration.ofDays(1));
        engine.schedule(tenant, new SlotSpec(slot, CoachId.of("ana"), RoomId.of("studio"),
                TimeRange.of(start, Duration.ofHours(1)), 1));
        assertThat(engine.hold(tenant, HoldRequest.of(RequestId.random(), slot, StudentId.of("sam"))))
                .isInstanceOf(Held.class);
        assertThat(engine.hold(tenant, HoldRequest.of(RequestId.random(), slot, StudentId.of("kim"))))
                .isInstanceOf(Full.class);
        assertThat(engine.metrics().gateFull()).as("the gate answered Full alone").isEqualTo(1);
        GateView view = RedisSeatReservation.create(redis).inspect(tenant, slot).orElseThrow();
        assertThat(view.capacity()).isEqualTo(1);
        assertThat(view.holders()).extracting(GateHolder::studentId).containsExactly(StudentId.of("sam"));
    }

    @Test
    void readmeSnippetsAreTheCompiledOnes() throws IOException {
        String whole = MarkdownPages.page("docs/guides/redis.md");
        String readme = whole.substring(whole.indexOf("<!-- booking-redis section"),
                whole.indexOf("<!-- end of booking-redis section -->"));
        List<String> snippets = new ArrayList<>();
        for (int open = readme.indexOf("```java"); open >= 0; open = readme.indexOf("```java", open + 1)) {
            int close = readme.indexOf("```", open + 7);
            snippets.add(normalize(readme.substring(open + 7, close).lines().collect(Collectors.toList())));
        }
        List<String> regions = new ArrayList<>();
        for (List<String> snippet : SNIPPETS) {
            List<String> source = Files.readAllLines(
                    TESTS.resolve(snippet.get(0)).resolve(PACKAGE).resolve(snippet.get(1)));
            int from = indexOf(source, "// --- readme: " + snippet.get(2) + " ---") + 1;
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
