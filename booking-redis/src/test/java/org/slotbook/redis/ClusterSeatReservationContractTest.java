package org.slotbook.redis;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.slotbook.core.spi.SeatReservation;
import org.slotbook.core.tck.SeatReservationContract;
import org.slotbook.redis.support.TestCluster;
import org.slotbook.redis.support.TestRedis;
import redis.clients.jedis.UnifiedJedis;

/**
 * The gate contract through this build's cluster client ({@code RedisClusterClient}; {@code JedisCluster}
 * on Jedis 6.x and 7.0) on a three-master cluster.
 */
class ClusterSeatReservationContractTest extends SeatReservationContract {
    private static TestCluster cluster;
    private static UnifiedJedis client;
    private static RedisSeatReservation gate;

    @BeforeAll
    static void startCluster() {
        cluster = TestCluster.start();
        client = cluster.client();
        gate = RedisSeatReservation.builder(client).keyPrefix(TestRedis.freshPrefix("contract")).build();
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
    protected SeatReservation reservation() {
        return gate;
    }
}
