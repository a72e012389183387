package org.slotbook.examples.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.slotbook.core.spi.GateHolder;
import org.slotbook.core.spi.GateView;
import org.slotbook.redis.RedisSeatReservation;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;

/**
 * The Redis ceiling line speaks the gate's own layout: after a short run, the keys it created are
 * exactly those the gate's key builder lists, the holders it took are recorded as the gate records
 * them (so the script got its arguments in the gate's order), and the run's SCAN clean-up removes its
 * keys and nothing else. On {@code SLOTBOOK_TEST_REDIS_URL}, or an embedded Redis without it.
 */
class RedisCeilingLineTest {
    private static final int SLOTS = 3;
    private static final int SEATS = 2;

    @Test
    void theCeilingUsesTheGatesKeysAndArgumentsAndTheCleanUpOnlyItsOwnKeys() throws Exception {
        PrintStream quiet = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
        try (Backends backends = Backends.open(null, System.getenv("SLOTBOOK_TEST_REDIS_URL"), false, quiet)) {
            UnifiedJedis redis = backends.redis();
            RedisCeilingLine line = new RedisCeilingLine(redis, backends.gateKeyPrefix() + "ceiling:");
            Workload spread = new Workload("spread", "test", SLOTS, SEATS, 60, 3);
            String unrelated = "slotbook-bench-test:" + UUID.randomUUID() + ":survivor";
            redis.set(unrelated, "another application's key");
            try {
                Instant before = Instant.now();
                // in two turns of 25 and 35 requests, counted as one line
                Turns turns = line.prepare(spread);
                Result result = turns.finish(Measured.sum(List.of(turns.run(0, 25), turns.run(25, 60))));
                assertThat(result.line()).isEqualTo(RedisCeilingLine.NAME);
                assertThat(result.errors()).as("%s", result.note()).isZero();
                assertThat(result.decisions()).isEqualTo(60);
                assertThat(result.holds()).as("every seat of every slot taken").isEqualTo(SLOTS * SEATS);

                RedisSeatReservation gate = RedisSeatReservation.builder(redis).keyPrefix(line.keyPrefix(spread)).build();
                Set<String> listed = new HashSet<>();
                for (int i = 0; i < SLOTS; i++) {
                    listed.addAll(gate.keys(RedisCeilingLine.TENANT, RedisCeilingLine.slot(i)));
                    GateView view = gate.inspect(RedisCeilingLine.TENANT, RedisCeilingLine.slot(i)).orElseThrow();
                    assertThat(view.capacity()).isEqualTo(SEATS);
                    assertThat(view.holders()).hasSize(SEATS).allSatisfy(h -> {
                        // student-<i> sent request r<i>, held for the line's ten minutes
                        assertThat(h.studentId().value()).isEqualTo("student-" + h.requestId().value().substring(1));
                        assertThat(h.expiresAt()).isBetween(before.plus(Duration.ofMinutes(9)),
                                Instant.now().plus(Duration.ofMinutes(11)));
                    });
                    assertThat(view.holders()).extracting(GateHolder::requestId).doesNotHaveDuplicates();
                }
                assertThat(scan(redis, backends.gateKeyPattern())).as("every key of the run").isEqualTo(listed);

                assertThat(RedisCleanUp.deleteMatching(redis, backends.gateKeyPattern())).isEqualTo(listed.size());
                assertThat(scan(redis, backends.gateKeyPattern())).isEmpty();
                assertThat(redis.get(unrelated)).isEqualTo("another application's key");
            } finally {
                redis.del(unrelated);
            }
        }
    }

    @Test
    void theCleanUpRefusesAPatternThatIsNotARunsOwn() {
        for (String pattern : new String[] {null, "", "*"}) {
            assertThatThrownBy(() -> RedisCleanUp.deleteMatching(null, pattern))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("pattern");
        }
    }

    private static Set<String> scan(UnifiedJedis redis, String pattern) {
        Set<String> keys = new HashSet<>();
        ScanParams params = new ScanParams().match(pattern).count(1000);
        String cursor = ScanParams.SCAN_POINTER_START;
        do {
            ScanResult<String> page = redis.scan(cursor, params);
            keys.addAll(page.getResult());
            cursor = page.getCursor();
        } while (!cursor.equals(ScanParams.SCAN_POINTER_START));
        return keys;
    }
}
