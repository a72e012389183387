package org.slotbook.redis;

import java.time.Duration;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.slotbook.core.BookingEngine;
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
 * The Redis guide's wiring for Jedis 7.1 and newer ({@code RedisClient}, {@code RedisClusterClient}),
 * compiled and run by the builds on those versions; {@link ReadmeSectionTest} checks the guide shows
 * exactly the marked regions.
 */
class ReadmeWiringTest {

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
                .pipelineLanes(2)                      // default: concurrent holds share round trips
                .build();
        BookingEngine engine = BookingEngine.builder()
                .store(store)
                .reservation(gate)
                .build();
        // --- end ---
        try (redis) {
            ReadmeSectionTest.bookOneSeat(engine, redis);
        }
    }

    @Test
    void clusterWiringWorks() {
        TestCluster testCluster = TestCluster.shared();
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
            ReadmeSectionTest.bookOneSeat(BookingEngine.builder().store(store).reservation(gate).build(),
                    cluster);
        }
    }
}
