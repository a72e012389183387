package org.slotbook.redis.support;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.slotbook.core.tck.faults.ServerProcess;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.util.JedisClusterCRC16;

/**
 * A real Redis Cluster of three masters (no replicas) on free loopback ports, started by the test:
 * master i owns hash slots {@code [i * 16384 / 3, (i + 1) * 16384 / 3)}.
 */
public final class TestCluster implements AutoCloseable {
    public static final int MASTERS = 3;

    private static TestCluster shared;

    private final List<RedisProcess> nodes = new ArrayList<>();
    private final int[] firstSlot = new int[MASTERS + 1];

    private TestCluster() {
    }

    public static TestCluster start() {
        if (!RedisProcess.binaryAvailable()) {
            TestRedis.missing("no redis-server binary to start a Redis Cluster with");
        }
        TestCluster cluster = new TestCluster();
        try {
            cluster.boot();
        } catch (RuntimeException e) {
            cluster.close();
            throw e;
        }
        return cluster;
    }

    /**
     * The cluster of this JVM's tests that use one as it is (each in keys of its own), started on first use and
     * stopped as the JVM exits; a test that breaks a master starts one of its own ({@link #start()}).
     */
    public static synchronized TestCluster shared() {
        if (shared == null) {
            TestCluster cluster = start();
            Runtime.getRuntime().addShutdownHook(new Thread(cluster::close, "test-cluster-stop"));
            shared = cluster;
        }
        return shared;
    }

    private void boot() {
        for (int i = 0; i < MASTERS; i++) {
            nodes.add(RedisProcess.clusterNode());
        }
        for (int i = 0; i <= MASTERS; i++) {
            firstSlot[i] = i * 16384 / MASTERS;
        }
        for (int i = 0; i < MASTERS; i++) {
            try (Jedis jedis = connect(i)) {
                jedis.clusterAddSlotsRange(firstSlot[i], firstSlot[i + 1] - 1);
            }
        }
        try (Jedis first = connect(0)) {
            for (int i = 1; i < MASTERS; i++) {
                first.clusterMeet("127.0.0.1", nodes.get(i).port());
            }
        }
        awaitOk();
    }

    /** Waits until every master reports {@code cluster_state:ok} and knows all the others. */
    public void awaitOk() {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (!allOk()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("Redis Cluster on " + nodes + " did not reach cluster_state:ok");
            }
            RedisProcess.sleep(50);
        }
    }

    private boolean allOk() {
        for (int i = 0; i < MASTERS; i++) {
            try (Jedis jedis = connect(i)) {
                String info = jedis.clusterInfo();
                if (!info.contains("cluster_state:ok") || !info.contains("cluster_known_nodes:" + MASTERS)) {
                    return false;
                }
            } catch (RuntimeException notYet) {
                return false;
            }
        }
        return true;
    }

    public Jedis connect(int master) {
        return new Jedis(nodes.get(master).hostAndPort(), TestRedis.adminConfig());
    }

    public RedisProcess node(int master) {
        return nodes.get(master);
    }

    /**
     * Master {@code master} as a process a test breaks: killed, it takes its hash slots down with it;
     * started again, it rejoins with the same id and slots, and the cluster is awaited ok.
     */
    public ServerProcess master(int master) {
        RedisProcess node = nodes.get(master);
        return new ServerProcess() {
            @Override
            public boolean isAlive() {
                return node.isAlive();
            }

            @Override
            public void start() {
                node.start();
                awaitOk();
            }

            @Override
            public void kill() {
                node.kill();
            }

            @Override
            public void stop() {
                node.stop();
            }

            @Override
            public String toString() {
                return "master " + master + " (" + node + ")";
            }
        };
    }

    /** The master that owns the key's hash slot. */
    public int masterOf(String key) {
        int slot = JedisClusterCRC16.getSlot(key);
        for (int i = 0; i < MASTERS; i++) {
            if (slot < firstSlot[i + 1]) {
                return i;
            }
        }
        throw new IllegalStateException("slot " + slot);
    }

    public Set<HostAndPort> seeds() {
        Set<HostAndPort> seeds = new LinkedHashSet<>();
        for (RedisProcess node : nodes) {
            seeds.add(node.hostAndPort());
        }
        return seeds;
    }

    public UnifiedJedis client() {
        return client(3, Duration.ofSeconds(2));
    }

    /** A client whose retries on a dead node end after {@code maxAttempts} or {@code retries}, whichever first. */
    public UnifiedJedis client(int maxAttempts, Duration retries) {
        return JedisClients.cluster(seeds(), TestRedis.clientConfig(), TestRedis.poolConfig(48), maxAttempts, retries);
    }

    @Override
    public void close() {
        for (RedisProcess node : nodes) {
            node.stop();
        }
    }
}
