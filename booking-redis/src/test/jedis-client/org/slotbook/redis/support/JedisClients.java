package org.slotbook.redis.support;

import java.time.Duration;
import java.util.Set;
import redis.clients.jedis.ConnectionPoolConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.RedisClusterClient;
import redis.clients.jedis.UnifiedJedis;

/**
 * The clients the tests build, for Jedis 7.1 and newer (8.x is the default build): {@link RedisClient}
 * and {@link RedisClusterClient}. The build compiles this file or its twin under
 * {@code src/test/jedis-pooled} (Jedis 6.x and 7.0, which have neither class), chosen by the property
 * {@code jedis.client.api}; the tests see only {@link UnifiedJedis}.
 */
public final class JedisClients {
    /** Which client classes this build's tests use. */
    public static final String API = "RedisClient";

    private JedisClients() {
    }

    /** A pooled standalone client. */
    public static UnifiedJedis standalone(HostAndPort server, JedisClientConfig config, ConnectionPoolConfig pool) {
        return RedisClient.builder().hostAndPort(server).clientConfig(config).poolConfig(pool).build();
    }

    /** A cluster client whose retries end after {@code maxAttempts} or {@code retries}, whichever first. */
    public static UnifiedJedis cluster(Set<HostAndPort> seeds, JedisClientConfig config, ConnectionPoolConfig pool,
                                       int maxAttempts, Duration retries) {
        return RedisClusterClient.builder().nodes(seeds).clientConfig(config).poolConfig(pool)
                .maxAttempts(maxAttempts).maxTotalRetriesDuration(retries).build();
    }
}
