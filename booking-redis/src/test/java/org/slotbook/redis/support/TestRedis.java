package org.slotbook.redis.support;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;
import redis.clients.jedis.ConnectionPoolConfig;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.RedisProtocol;
import redis.clients.jedis.UnifiedJedis;

/**
 * Where the tests find a standalone Redis: {@code SLOTBOOK_TEST_REDIS_URL} first, then Testcontainers
 * when Docker is present, then a redis-server from embedded-redis started for this JVM. When none can
 * be had the test is skipped, or fails when {@code SLOTBOOK_TEST_REQUIRE_SERVICES=true}.
 */
public final class TestRedis {
    private static HostAndPort shared;
    private static String sharedFrom;

    private TestRedis() {
    }

    public static boolean servicesRequired() {
        return "true".equalsIgnoreCase(System.getenv("SLOTBOOK_TEST_REQUIRE_SERVICES"));
    }

    /** Skips the test, or fails it when services are required. */
    public static void missing(String what) {
        if (servicesRequired()) {
            Assertions.fail(what + " (SLOTBOOK_TEST_REQUIRE_SERVICES=true)");
        }
        Assumptions.abort(what);
    }

    /** The shared standalone server of this JVM. */
    public static synchronized HostAndPort standalone() {
        if (shared == null) {
            String url = System.getenv("SLOTBOOK_TEST_REDIS_URL");
            if (url != null && !url.isBlank()) {
                URI uri = URI.create(url.trim());
                String host = uri.getHost();
                if (!"127.0.0.1".equals(host) && !"localhost".equals(host)) {
                    throw new IllegalStateException("SLOTBOOK_TEST_REDIS_URL must point at 127.0.0.1, got " + url);
                }
                shared = new HostAndPort("127.0.0.1", uri.getPort() > 0 ? uri.getPort() : 6379);
                sharedFrom = "SLOTBOOK_TEST_REDIS_URL";
            }
            if (shared == null && dockerPresent()) {
                shared = Containers.startRedis();
                sharedFrom = "Testcontainers";
            }
            if (shared == null && RedisProcess.embeddedAvailable()) {
                RedisProcess server = RedisProcess.embedded();
                Runtime.getRuntime().addShutdownHook(new Thread(server::stop, "embedded-redis-stop"));
                shared = server.hostAndPort();
                sharedFrom = "embedded-redis";
            }
        }
        if (shared == null) {
            missing("no Redis: set SLOTBOOK_TEST_REDIS_URL (e.g. redis://127.0.0.1:6379), or provide Docker, "
                    + "or run where embedded-redis ships a redis-server");
        }
        return shared;
    }

    public static synchronized String standaloneSource() {
        return sharedFrom;
    }

    /**
     * Bounded timeouts, generous enough for a loaded build machine: these tests check behaviour, not
     * timeouts ({@code UnavailableRedisTest} does that with its own short ones).
     */
    public static JedisClientConfig clientConfig() {
        return DefaultJedisClientConfig.builder().connectionTimeoutMillis(2000).socketTimeoutMillis(5000).build();
    }

    /** For single connections ({@code Jedis}) that set servers up: RESP2, short timeouts. */
    public static JedisClientConfig adminConfig() {
        return DefaultJedisClientConfig.builder().connectionTimeoutMillis(2000).socketTimeoutMillis(5000)
                .protocol(RedisProtocol.RESP2)
                .build();
    }

    public static ConnectionPoolConfig poolConfig(int size) {
        ConnectionPoolConfig pool = new ConnectionPoolConfig();
        pool.setMaxTotal(size);
        pool.setMaxIdle(size);
        pool.setMaxWait(java.time.Duration.ofMillis(5000));
        return pool;
    }

    /** A pooled client of this build's Jedis ({@link JedisClients#API}). */
    public static UnifiedJedis client(HostAndPort server) {
        return JedisClients.standalone(server, clientConfig(), poolConfig(64));
    }

    /** A key prefix no other test (or earlier run) uses. */
    /**
     * Everything the gate stores for one slot, as stored: the holders key's members with their scores
     * and the meta hash's fields (tombstones included), for a test that a call changed nothing.
     */
    public static java.util.Map<String, Object> slotState(UnifiedJedis jedis, org.slotbook.redis.RedisSeatReservation gate,
                                                          org.slotbook.core.TenantId tenant,
                                                          org.slotbook.core.SlotId slot) {
        java.util.List<String> keys = gate.keys(tenant, slot);
        java.util.Map<String, Object> state = new java.util.LinkedHashMap<>();
        java.util.Map<String, Double> holders = new java.util.TreeMap<>();
        jedis.zrangeWithScores(keys.get(0), 0, -1).forEach(t -> holders.put(t.getElement(), t.getScore()));
        state.put("holders", holders);
        state.put("meta", new java.util.TreeMap<>(jedis.hgetAll(keys.get(1))));
        return state;
    }

    public static String freshPrefix(String name) {
        return "slotbook-test:" + name + ":" + Long.toHexString(System.nanoTime()) + ":"
                + Integer.toHexString(java.util.concurrent.ThreadLocalRandom.current().nextInt()) + ":";
    }

    private static boolean dockerPresent() {
        return System.getenv("DOCKER_HOST") != null || Files.exists(Path.of("/var/run/docker.sock"));
    }

    /** Kept apart so Testcontainers classes are only touched when Docker is there. */
    private static final class Containers {
        @SuppressWarnings("resource")
        static HostAndPort startRedis() {
            if (!org.testcontainers.DockerClientFactory.instance().isDockerAvailable()) {
                return null;
            }
            org.testcontainers.containers.GenericContainer<?> redis =
                    new org.testcontainers.containers.GenericContainer<>("redis:7.0").withExposedPorts(6379);
            redis.start();
            return new HostAndPort("127.0.0.1", redis.getMappedPort(6379));
        }
    }
}
