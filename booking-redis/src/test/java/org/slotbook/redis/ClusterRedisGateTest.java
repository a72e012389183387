package org.slotbook.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slotbook.core.RequestId;
import org.slotbook.core.SlotId;
import org.slotbook.core.StudentId;
import org.slotbook.core.spi.GateDecision;
import org.slotbook.redis.internal.SlotKeys;
import org.slotbook.redis.support.TestCluster;
import org.slotbook.redis.support.TestRedis;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisCluster;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.util.JedisClusterCRC16;

/**
 * The same behaviour through this build's cluster client ({@code RedisClusterClient}; {@code JedisCluster}
 * on Jedis 6.x and 7.0) on a real three-master cluster.
 */
class ClusterRedisGateTest extends AbstractRedisGateTest {
    private static TestCluster cluster;
    private static UnifiedJedis client;

    @BeforeAll
    static void startCluster() {
        cluster = TestCluster.start();
        client = cluster.client();
    }

    @AfterAll
    static void stopCluster() {
        if (client != null) {
            client.close();
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    @Override
    protected UnifiedJedis jedis() {
        return client;
    }

    @Override
    protected void flushScripts() {
        for (int i = 0; i < TestCluster.MASTERS; i++) {
            try (Jedis node = cluster.connect(i)) {
                node.scriptFlush();
            }
        }
    }

    @Test
    void theLegacyJedisClusterClientWorksToo() {
        try (JedisCluster legacy = new JedisCluster(cluster.seeds(), TestRedis.clientConfig(), 2,
                Duration.ofMillis(500))) {
            RedisSeatReservation viaLegacy = RedisSeatReservation.builder(legacy).keyPrefix(prefix).build();
            SlotId slot = SlotId.of("legacy");
            viaLegacy.initialize(tenant, slot, 1, keep());
            assertThat(viaLegacy.tryHold(tenant, slot, StudentId.of("a"), RequestId.of("r1"),
                    Duration.ofMinutes(5))).isEqualTo(GateDecision.HELD);
            // the same keys, seen through the other client
            assertThat(gate.tryHold(tenant, slot, StudentId.of("a"), RequestId.of("r2"),
                    Duration.ofMinutes(5))).isEqualTo(GateDecision.duplicate(RequestId.of("r1")));
        }
    }

    @Test
    void slotsSpreadOverAllMastersAndEachSlotLivesOnItsOwner() {
        Map<Integer, Integer> perMaster = new HashMap<>();
        for (int i = 0; i < 24; i++) {
            SlotId slot = SlotId.of("spread-" + i);
            List<String> keys = SlotKeys.keys(prefix, tenant, slot);
            int master = cluster.masterOf(keys.get(0));
            perMaster.merge(master, 1, Integer::sum);
            gate.initialize(tenant, slot, 2, keep());
            assertThat(gate.tryHold(tenant, slot, StudentId.of("a"), RequestId.random(),
                    Duration.ofMinutes(5))).isEqualTo(GateDecision.HELD);
            try (Jedis owner = cluster.connect(master)) {
                for (String key : keys) {
                    assertThat(owner.clusterKeySlot(key)).isEqualTo(JedisClusterCRC16.getSlot(keys.get(0)));
                    assertThat(owner.exists(key)).as("%s on its owner, master %d", key, master).isTrue();
                }
            }
        }
        assertThat(perMaster.keySet()).as("masters that own the test's slots").hasSize(TestCluster.MASTERS);
    }
}
