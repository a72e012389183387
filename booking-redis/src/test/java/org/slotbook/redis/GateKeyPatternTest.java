package org.slotbook.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.slotbook.core.SlotId;
import org.slotbook.core.TenantId;
import org.slotbook.redis.support.TestRedis;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;

/** What an operator scans for: a gate's key pattern finds its keys, and only its keys, whatever its prefix. */
class GateKeyPatternTest {

    @Test
    void theKeyPatternEscapesTheGlobCharactersOfThePrefix() {
        try (UnifiedJedis redis = TestRedis.client(TestRedis.standalone())) {
            assertThat(RedisSeatReservation.create(redis).keyPattern()).isEqualTo("slotbook:*");
            assertThat(RedisSeatReservation.builder(redis).keyPrefix("a*b?[c]\\:").build().keyPattern())
                    .isEqualTo("a\\*b\\?\\[c\\]\\\\:*");
        }
    }

    @Test
    void scanningWithTheKeyPatternFindsEveryKeyTheGateListsAndNoOther() {
        try (UnifiedJedis redis = TestRedis.client(TestRedis.standalone())) {
            String base = TestRedis.freshPrefix("GateKeyPatternTest");
            RedisSeatReservation gate = RedisSeatReservation.builder(redis).keyPrefix(base + "a*b?[c]\\:").build();
            TenantId tenant = TenantId.of("campus:north");
            Instant keep = Instant.now().plus(Duration.ofMinutes(10));
            List<String> listed = new ArrayList<>();
            for (String slot : List.of("yoga", "pilates{7}")) {
                gate.initialize(tenant, SlotId.of(slot), 3, keep);
                listed.addAll(gate.keys(tenant, SlotId.of(slot)));
            }
            // matched by the prefix read as a glob, not by the escaped pattern
            String lookalike = base + "aXbYc:lookalike";
            redis.set(lookalike, "x");
            try {
                assertThat(scan(redis, gate.keyPattern())).containsExactlyInAnyOrderElementsOf(listed);
                assertThat(scan(redis, base + "a*b?[c]\\:*")).contains(lookalike);
            } finally {
                redis.del(lookalike);
                listed.forEach(redis::del);
            }
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
