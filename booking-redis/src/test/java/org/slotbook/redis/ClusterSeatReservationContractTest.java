package org.slotbook.redis;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.slotbook.core.spi.SeatReservation;
import org.slotbook.core.tck.SeatReservationContract;
import org.slotbook.redis.support.TestCluster;
import org.slotbook.redis.support.TestRedis;
import redis.clients.jedis.RedisClusterClient;

/** The gate contract through {@link RedisClusterClient} on a three-master cluster. */
class ClusterSeatReservationContractTest extends SeatReservationContract {
    private static TestCluster cluster;
    private static RedisClusterClient client;
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
