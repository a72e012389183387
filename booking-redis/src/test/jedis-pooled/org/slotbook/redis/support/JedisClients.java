package org.slotbook.redis.support;

import java.time.Duration;
import java.util.Set;
import redis.clients.jedis.ConnectionPoolConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.JedisCluster;
import redis.clients.jedis.JedisPooled;
import redis.clients.jedis.UnifiedJedis;

/**
 * The clients the tests build, for Jedis 6.x and 7.0 (what Spring Boot 3.5 and 4.0 manage), which
 * have no {@code RedisClient}: {@link JedisPooled} and {@link JedisCluster}. The build compiles this
 * file or its twin under {@code src/test/jedis-client} (Jedis 7.1 and newer), chosen by the property
 * {@code jedis.client.api}; the tests see only {@link UnifiedJedis}.
 */
public final class JedisClients {
    /** Which client classes this build's tests use. */
    public static final String API = "JedisPooled";

    private JedisClients() {
    }

    /** A pooled standalone client. */
    public static UnifiedJedis standalone(HostAndPort server, JedisClientConfig config, ConnectionPoolConfig pool) {
        return new JedisPooled(pool, server, config);
    }

    /** A cluster client whose retries end after {@code maxAttempts} or {@code retries}, whichever first. */
    public static UnifiedJedis cluster(Set<HostAndPort> seeds, JedisClientConfig config, ConnectionPoolConfig pool,
                                       int maxAttempts, Duration retries) {
        return new JedisCluster(seeds, config, maxAttempts, retries, pool);
    }
}
