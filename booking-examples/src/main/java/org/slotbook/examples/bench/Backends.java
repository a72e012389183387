package org.slotbook.examples.bench;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.io.IOException;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.net.URI;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.UUID;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.slotbook.core.BookingEngine;
import org.slotbook.core.HoldPolicy;
import org.slotbook.core.SlotId;
import org.slotbook.core.TenantId;
import org.slotbook.core.spi.SeatReservation;
import org.slotbook.jdbc.JdbcSchema;
import org.slotbook.jdbc.JdbcStore;
import org.slotbook.jdbc.TenantMove;
import org.slotbook.redis.RedisSeatReservation;
import redis.clients.jedis.ConnectionPoolConfig;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.RedisClient;
import redis.embedded.RedisServer;

/**
 * Wires a ledger database and an optional Redis gate for the examples: what a host application
 * does at start-up. Closing it closes the pool and the client and stops an embedded server.
 */
public final class Backends implements AutoCloseable {
    private static final String DEFAULT_H2 = "jdbc:h2:mem:slotbook-%s;DB_CLOSE_DELAY=-1";
    /** The PostgreSQL application_name of the examples' connections. */
    public static final String APPLICATION_NAME = "slotbook-examples";

    private final HikariDataSource dataSource;
    private final JdbcStore store;
    private final RedisServer embeddedRedis;
    private final RedisClient redis;
    /** The Redis gate, or null when there is none. */
    private final RedisSeatReservation redisGate;
    private final String ledgerName;
    private final String gateName;
    private final String jdbcUrl;
    private final BookingEngine engine;
    /** Whether the ledger's tables are distributed by Citus. */
    private final boolean citus;

    private Backends(HikariDataSource dataSource, JdbcStore store, RedisServer embeddedRedis, RedisClient redis,
                     RedisSeatReservation redisGate, String ledgerName, String gateName, String jdbcUrl,
                     HoldPolicy policy, boolean citus) {
        this.citus = citus;
        this.dataSource = dataSource;
        this.jdbcUrl = jdbcUrl;
        this.store = store;
        this.embeddedRedis = embeddedRedis;
        this.redis = redis;
        this.redisGate = redisGate;
        this.ledgerName = ledgerName;
        this.gateName = gateName;
        this.engine = BookingEngine.builder()
                .store(store)
                .reservation(gate())
                .holdPolicy(policy)
                .build();
    }

    /**
     * @param jdbcUrl  null for H2 in memory
     * @param redisUrl null for an embedded Redis (unless {@code noRedis})
     */
    public static Backends open(String jdbcUrl, String redisUrl, boolean noRedis, PrintStream out) {
        return open(jdbcUrl, redisUrl, noRedis, out, 64, HoldPolicy.ofDefaults());
    }

    public static Backends open(String jdbcUrl, String redisUrl, boolean noRedis, PrintStream out, int poolSize,
                                HoldPolicy policy) {
        return open(jdbcUrl, redisUrl, noRedis, out, poolSize, policy, false);
    }

    /**
     * A Citus coordinator (its workers added) without a gate: the tables and routines are created, then
     * distributed by tenant ({@link JdbcSchema#distribute}), as a host does at start-up.
     */
    public static Backends openCitus(String jdbcUrl, PrintStream out, int poolSize, HoldPolicy policy) {
        return open(jdbcUrl, null, true, out, poolSize, policy, true);
    }

    private static Backends open(String jdbcUrl, String redisUrl, boolean noRedis, PrintStream out, int poolSize,
                                 HoldPolicy policy, boolean citus) {
        String url = jdbcUrl != null ? jdbcUrl : String.format(DEFAULT_H2, UUID.randomUUID());
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url);
        config.setMaximumPoolSize(poolSize);
        config.setMinimumIdle(Math.min(4, poolSize));
        config.setConnectionTimeout(10_000);
        config.setPoolName("slotbook-examples");
        if (url.startsWith("jdbc:postgresql:")) {
            // lets a benchmark find this pool's sessions in pg_stat_activity
            config.addDataSourceProperty("ApplicationName", APPLICATION_NAME);
        }
        HikariDataSource dataSource = new HikariDataSource(config);
        RedisServer embedded = null;
        RedisClient client = null;
        try {
            JdbcSchema.create(dataSource);
            if (citus) {
                JdbcSchema.distribute(dataSource, JdbcStore.create(dataSource).tablePrefix());
            }
            JdbcStore store = JdbcStore.create(dataSource);
            String ledgerName = (citus ? "Citus" : store.dialect()) + (jdbcUrl == null ? " (in memory)" : " " + redactUser(url));
            RedisSeatReservation gate = null;
            String gateName = "none (DB-only)";
            if (!noRedis) {
                HostAndPort hostAndPort;
                if (redisUrl == null) {
                    int port = freePort();
                    embedded = RedisServer.builder().port(port).setting("bind 127.0.0.1").setting("save \"\"")
                            .setting("appendonly no").build();
                    embedded.start();
                    hostAndPort = new HostAndPort("127.0.0.1", port);
                    gateName = "Redis (embedded, port " + port + ")";
                } else {
                    URI uri = URI.create(redisUrl);
                    hostAndPort = new HostAndPort(uri.getHost(), uri.getPort() > 0 ? uri.getPort() : 6379);
                    gateName = "Redis " + hostAndPort;
                }
                ConnectionPoolConfig pool = new ConnectionPoolConfig();
                pool.setMaxTotal(128);
                pool.setMaxIdle(128);
                pool.setMaxWait(Duration.ofMillis(500));
                // Jedis 7.1 and newer; on Jedis 6.x and 7.0 (Spring Boot 3.5 and 4.0), which have no
                // RedisClient, the same pooled client is new JedisPooled(pool, hostAndPort, clientConfig)
                client = RedisClient.builder().hostAndPort(hostAndPort)
                        .clientConfig(DefaultJedisClientConfig.builder()
                                .connectionTimeoutMillis(300).socketTimeoutMillis(500).build())
                        .poolConfig(pool)
                        .build();
                gate = RedisSeatReservation.builder(client).keyPrefix("slotbook-example:" + UUID.randomUUID() + ":")
                        .build();
            }
            return new Backends(dataSource, store, embedded, client, gate, ledgerName, gateName, url, policy, citus);
        } catch (RuntimeException | IOException e) {
            if (client != null) {
                client.close();
            }
            stopQuietly(embedded);
            dataSource.close();
            throw e instanceof RuntimeException re ? re : new IllegalStateException("cannot start Redis: " + e, e);
        }
    }

    /** An engine over the store and the gate (when there is one), with the policy {@code open} was given. */
    public BookingEngine engine() {
        return engine;
    }

    public JdbcStore store() {
        return store;
    }

    public DataSource dataSource() {
        return dataSource;
    }

    /** The gate: the Redis one, or {@link SeatReservation#none()}. */
    public SeatReservation gate() {
        return redisGate == null ? SeatReservation.none() : redisGate;
    }

    /** The JDBC URL of the ledger database (the generated one for H2 in memory). */
    public String jdbcUrl() {
        return jdbcUrl;
    }

    /** The Redis client behind the gate, or null when there is no gate. */
    public RedisClient redis() {
        return redis;
    }

    /** The prefix of every gate key, or null when there is no gate. */
    public @Nullable String gateKeyPrefix() {
        return redisGate == null ? null : redisGate.keyPrefix();
    }

    /** The SCAN MATCH pattern of every gate key, from the gate itself, or null when there is no gate. */
    public @Nullable String gateKeyPattern() {
        return redisGate == null ? null : redisGate.keyPattern();
    }

    public String ledgerName() {
        return ledgerName;
    }

    /** The database's name in the benchmark's tables: PostgreSQL, Citus, MariaDB or H2. */
    public String databaseName() {
        return switch (store.dialect()) {
            case POSTGRESQL -> citus ? "Citus" : "PostgreSQL";
            case MARIADB -> "MariaDB";
            case H2 -> "H2";
        };
    }

    public String gateName() {
        return gateName;
    }

    /** HELD or CONFIRMED bookings of the slot, counted by a query of its own (not through the engine). */
    public long countLiveBookings(TenantId tenant, SlotId slot) throws SQLException {
        return count("SELECT COUNT(*) FROM " + store.tablePrefix() + "booking"
                + " WHERE tenant_id = ? AND slot_id = ? AND status IN ('HELD', 'CONFIRMED')", tenant.value(), slot.value());
    }

    /**
     * Deletes every row of {@code tenant} from the store's tables in one transaction (the delete step
     * of a {@link TenantMove}, which knows the tables); answers the rows deleted. The examples that
     * measure call it at their end, so repeated runs find the tables as the first one did.
     */
    public int deleteTenant(TenantId tenant) {
        return TenantMove.builder(dataSource, dataSource).sourcePrefix(store.tablePrefix()).build()
                .deleteFromSource(tenant);
    }

    /** The one number {@code sql} answers, its parameters bound in order, on a connection of the pool. */
    public long count(String sql, Object... parameters) throws SQLException {
        try (Connection c = dataSource.getConnection()) {
            return count(c, sql, parameters);
        }
    }

    /** The one number {@code sql} answers on {@code c}, its parameters bound in order. */
    static long count(Connection c, String sql, Object... parameters) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            for (int i = 0; i < parameters.length; i++) {
                ps.setObject(i + 1, parameters[i]);
            }
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    @Override
    public void close() {
        if (redis != null) {
            redis.close();
        }
        stopQuietly(embeddedRedis);
        dataSource.close();
    }

    private static void stopQuietly(RedisServer server) {
        if (server != null) {
            try {
                server.stop();
            } catch (RuntimeException e) {
                // already gone
            }
        }
    }

    private static String redactUser(String url) {
        return url.replaceAll("(?i)(password=)[^&;]*", "$1***");
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            socket.setReuseAddress(true);
            return socket.getLocalPort();
        }
    }
}
