package org.slotbook.redis;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.slotbook.core.BookingEngine;
import org.slotbook.core.memory.InMemoryStore;
import org.slotbook.core.spi.SeatReservation;
import org.slotbook.redis.support.TestRedis;
import redis.clients.jedis.ConnectionPoolConfig;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisPooled;

/**
 * The Redis guide's standalone wiring for Jedis 6.x and 7.0 ({@code JedisPooled}; they have no
 * {@code RedisClient}), compiled and run by the builds on those versions; {@link ReadmeSectionTest}
 * checks the guide shows exactly the marked region.
 */
class ReadmeWiringTest {

    @Test
    void pooledStandaloneWiringWorks() {
        HostAndPort server = TestRedis.standalone();
        String redisHost = server.getHost();
        int redisPort = server.getPort();
        InMemoryStore store = InMemoryStore.create();
        // --- readme: standalone-pooled ---
        ConnectionPoolConfig pool = new ConnectionPoolConfig();
        pool.setMaxTotal(64);
        pool.setMaxWait(Duration.ofMillis(200));
        JedisPooled redis = new JedisPooled(pool, new HostAndPort(redisHost, redisPort),
                DefaultJedisClientConfig.builder()
                        .connectionTimeoutMillis(200)
                        .socketTimeoutMillis(300)
                        .build());
        SeatReservation gate = RedisSeatReservation.create(redis);
        // --- end ---
        try (redis) {
            ReadmeSectionTest.bookOneSeat(BookingEngine.builder().store(store).reservation(gate).build(), redis);
        }
    }
}
