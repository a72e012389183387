package org.slotbook.spring.bootapp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * A real Spring Boot application ({@link BookingApp}: the starter, Flyway and Actuator on the class
 * path, its own migrations in db/migration) started on a fresh PostgreSQL schema or MariaDB database,
 * each way the README sets Slotbook's migration up, and booked through HTTP. The database and Redis are
 * reached through forwarders the test can cut. The same class runs on Spring Boot 3.5 (the starter's
 * own tests) and on Spring Boot 4 (the boot4 profile).
 */
class BootApplicationTest {
    private static final String RUN = UUID.randomUUID().toString().replace("-", "").substring(0, 8);
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private final List<AutoCloseable> cleanup = new ArrayList<>();
    private int schemas;

    @AfterEach
    void cleanUp() throws Exception {
        for (int i = cleanup.size() - 1; i >= 0; i--) {
            cleanup.get(i).close();
        }
    }

    // ------------------------------------------------------------------ the scenarios

    @ParameterizedTest
    @ValueSource(strings = {"postgresql", "mariadb"})
    void theStarterMigratesAFreshSchemaAndTheServiceBooksThroughHttp(String db) throws Exception {
        Schema schema = freshSchema(db);
        App app = start(schema, Map.of());
        assertThat(schema.historyScripts("flyway_schema_history")).containsExactly("V1__host_customer.sql",
                "V2__host_order.sql");
        assertThat(schema.historyScripts("slotbook_schema_history")).contains("R__slotbook.sql");

        String tenant = "gym";
        HttpResponse<String> scheduled = app.post("/tenants/" + tenant + "/slots", slot("spin", 1));
        assertThat(scheduled.statusCode()).as(scheduled.body()).isEqualTo(201);
        assertThat(scheduled.body()).contains("\"type\":\"Scheduled\"");
        HttpResponse<String> held = app.post("/tenants/gym/slots/spin/holds", "{\"requestId\":\"r1\",\"studentId\":\"ann\"}");
        assertThat(held.statusCode()).as(held.body()).isEqualTo(201);
        assertThat(held.body()).contains("\"type\":\"Held\"");
        assertThat(app.post("/tenants/gym/slots/spin/holds", "{\"requestId\":\"r1\",\"studentId\":\"ann\"}")
                .statusCode()).as("the same request, the same answer").isEqualTo(201);
        HttpResponse<String> full = app.post("/tenants/gym/slots/spin/holds", "{\"studentId\":\"bob\"}");
        assertThat(full.statusCode()).as(full.body()).isEqualTo(409);
        assertThat(full.body()).contains("\"type\":\"Full\"");
        HttpResponse<String> missing = app.post("/tenants/gym/slots/nowhere/holds", "{\"studentId\":\"bob\"}");
        assertThat(missing.statusCode()).as(missing.body()).isEqualTo(404);
        assertThat(missing.body()).contains("\"type\":\"NotFound\"");

        HttpResponse<String> blank = app.post("/tenants/gym/slots/spin/holds", "{\"studentId\":\"  \"}");
        assertThat(blank.statusCode()).as(blank.body()).isEqualTo(400);
        assertThat(blank.headers().firstValue("Content-Type").orElse("")).startsWith("application/problem+json");
        assertThat(blank.body()).contains("\"status\":400", "\"field\":\"studentId\"", "studentId must not be blank");
        HttpResponse<String> empty = app.post("/tenants/gym/slots/spin/holds", "{}");
        assertThat(empty.statusCode()).as(empty.body()).isEqualTo(400);

        assertThat(app.post("/tenants/gym/slots", slot("yoga", 3)).statusCode()).isEqualTo(201);
        HttpResponse<String> reused = app.post("/tenants/gym/slots/yoga/holds", "{\"requestId\":\"r1\",\"studentId\":\"cy\"}");
        assertThat(reused.statusCode()).as(reused.body()).isEqualTo(409);
        assertThat(reused.headers().firstValue("Content-Type").orElse("")).startsWith("application/problem+json");
        assertThat(reused.body()).contains("\"requestId\":\"r1\"", "request-id-reused").doesNotContain("ann");
        assertThat(schema.count("SELECT COUNT(*) FROM slotbook_booking WHERE tenant_id = 'gym'"))
                .as("ann's hold, nothing else").isEqualTo(1);

        String prometheus = app.get("/actuator/prometheus").body();
        assertThat(prometheus).contains("slotbook_engine_calls_seconds_bucket{").contains("operation=\"hold\"");

        // Redis away: health degraded but UP, and booking goes on through the database
        app.redis.close();
        HttpResponse<String> health = app.get("/actuator/health");
        assertThat(health.statusCode()).as("UP (a DOWN application answers 503): " + health.body()).isEqualTo(200);
        assertThat(health.body()).as("the application's own status").matches("(?s)\\{\"status\":\"UP\".*|.*,\"status\":\"UP\"}")
                .contains("\"gate\":{\"status\":\"degraded\"");
        assertThat(app.post("/tenants/gym/slots/yoga/holds", "{\"studentId\":\"dee\"}").statusCode()).isEqualTo(201);
        assertThat(schema.count("SELECT COUNT(*) FROM slotbook_booking WHERE tenant_id = 'gym' AND slot_id = 'yoga'"))
                .isEqualTo(1);

        // the database away: 503 with Retry-After, as a problem
        app.database.close();
        HttpResponse<String> away = app.post("/tenants/gym/slots/yoga/holds", "{\"studentId\":\"eve\"}");
        assertThat(away.statusCode()).as(away.body()).isEqualTo(503);
        assertThat(away.headers().firstValue("Retry-After")).hasValue("1");
        assertThat(away.body()).contains("\"status\":503", "store-unavailable");
        app.close();

        // a rerun on the same schema applies nothing again
        App again = start(schema, Map.of());
        assertThat(again.post("/tenants/gym/slots/yoga/holds", "{\"studentId\":\"fay\"}").statusCode()).isEqualTo(201);
        assertThat(schema.historyScripts("flyway_schema_history")).hasSize(2);
        assertThat(schema.historyScripts("slotbook_schema_history")).containsOnlyOnce("R__slotbook.sql");
    }

    @ParameterizedTest
    @ValueSource(strings = {"postgresql", "mariadb"})
    void bootsFlywayRunsSlotbooksMigrationWithTheHostsOwn(String db) throws Exception {
        Schema schema = freshSchema(db);
        App app = start(schema, bootFlyway());
        assertThat(schema.historyScripts("flyway_schema_history")).containsExactly("V1__host_customer.sql",
                "V2__host_order.sql", "R__slotbook.sql");
        assertThat(schema.tableExists("slotbook_schema_history")).as("no history of the starter's own").isFalse();
        assertThat(app.post("/tenants/t/slots", slot("spin", 2)).statusCode()).isEqualTo(201);
        assertThat(app.post("/tenants/t/slots/spin/holds", "{\"studentId\":\"ann\"}").statusCode()).isEqualTo(201);
        app.close();

        App again = start(schema, bootFlyway());
        assertThat(again.post("/tenants/t/slots/spin/holds", "{\"studentId\":\"bob\"}").statusCode()).isEqualTo(201);
        assertThat(schema.historyScripts("flyway_schema_history")).hasSize(3);
        assertThat(schema.count("SELECT COUNT(*) FROM slotbook_booking WHERE tenant_id = 't'")).isEqualTo(2);
    }

    @ParameterizedTest
    @ValueSource(strings = {"postgresql", "mariadb"})
    void aNonEmptySchemaBaselinedByBootStillGetsSlotbooksTables(String db) throws Exception {
        // Boot's way: the host's tables exist, no history; Boot baselines at version 2 and runs the rest
        Schema schema = freshSchema(db);
        schema.execute("CREATE TABLE legacy_invoice (id VARCHAR(64) PRIMARY KEY)");
        Map<String, String> baseline = new LinkedHashMap<>(bootFlyway());
        baseline.put("spring.flyway.baseline-on-migrate", "true");
        baseline.put("spring.flyway.baseline-version", "2");
        App app = start(schema, baseline);
        assertThat(schema.historyScripts("flyway_schema_history")).containsExactly("<< Flyway Baseline >>",
                "R__slotbook.sql");
        assertThat(app.post("/tenants/t/slots", slot("spin", 2)).statusCode()).isEqualTo(201);
        assertThat(app.post("/tenants/t/slots/spin/holds", "{\"studentId\":\"ann\"}").statusCode()).isEqualTo(201);

        // the starter's way on another non-empty schema: its own history, no setting at all
        Schema other = freshSchema(db);
        other.execute("CREATE TABLE legacy_invoice (id VARCHAR(64) PRIMARY KEY)");
        App own = start(other, Map.of("spring.flyway.baseline-on-migrate", "true",
                "spring.flyway.baseline-version", "2"));
        assertThat(other.historyScripts("slotbook_schema_history")).contains("R__slotbook.sql");
        assertThat(own.post("/tenants/t/slots", slot("spin", 2)).statusCode()).isEqualTo(201);
    }

    @ParameterizedTest
    @ValueSource(strings = {"postgresql", "mariadb"})
    void aSchemaOfThePreviousReleaseIsBroughtUpToDateEitherWay(String db) throws Exception {
        // the previous release's service ran with Boot's Flyway off (its V1s under db/migration broke it),
        // so Boot's Flyway now meets a non-empty schema without a history: the baseline settings of the README
        Map<String, String> firstBootFlyway = Map.of("spring.flyway.baseline-on-migrate", "true",
                "spring.flyway.baseline-version", "0");
        Schema schema = freshSchema(db);
        previousRelease(schema);
        assertThat(schema.historyScripts("slotbook_schema_history")).containsExactly("V1__slotbook.sql");

        App app = start(schema, firstBootFlyway);
        assertThat(schema.historyScripts("slotbook_schema_history")).containsExactly("V1__slotbook.sql",
                "R__slotbook.sql");
        assertThat(app.post("/tenants/t/slots", slot("spin", 2)).statusCode()).isEqualTo(201);
        assertThat(app.post("/tenants/t/slots/spin/holds", "{\"studentId\":\"ann\"}").statusCode()).isEqualTo(201);
        app.close();

        Schema moved = freshSchema(db);
        previousRelease(moved);
        Map<String, String> both = new LinkedHashMap<>(bootFlyway());
        both.putAll(firstBootFlyway);
        App boot = start(moved, both);
        assertThat(moved.historyScripts("flyway_schema_history")).contains("R__slotbook.sql");
        assertThat(boot.post("/tenants/t/slots", slot("spin", 2)).statusCode()).isEqualTo(201);
    }

    @ParameterizedTest
    @ValueSource(strings = {"postgresql", "mariadb"})
    void withoutTheMigrationStartUpFailsNamingWhatIsMissing(String db) throws Exception {
        Schema schema = freshSchema(db);
        assertThatThrownBy(() -> start(schema, Map.of("slotbook.flyway.enabled", "false")))
                .hasStackTraceContaining("missing table slotbook_slot")
                .hasStackTraceContaining("classpath:org/slotbook/jdbc/migration/{vendor}");
    }

    // ------------------------------------------------------------------ the way of the previous release

    /**
     * What the previous release left: its V1 (the same schema, then shipped as a versioned migration at
     * db/migration/slotbook/db) applied with the starter's own history table.
     */
    private static void previousRelease(Schema schema) throws IOException {
        Path dir = Files.createTempDirectory("slotbook-previous").resolve("db/migration/slotbook/" + schema.vendor);
        Files.createDirectories(dir);
        String current;
        try (var in = BootApplicationTest.class.getClassLoader()
                .getResourceAsStream("org/slotbook/jdbc/migration/" + schema.vendor + "/R__slotbook.sql")) {
            current = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        Files.writeString(dir.resolve("V1__slotbook.sql"), current);
        Flyway.configure().dataSource(schema.url, null, null).locations("filesystem:" + dir)
                .table("slotbook_schema_history").placeholders(Map.of("slotbook_prefix", "slotbook_"))
                .baselineOnMigrate(true).baselineVersion("0").load().migrate();
    }

    // ------------------------------------------------------------------ applications and schemas

    private static Map<String, String> bootFlyway() {
        return Map.of("spring.flyway.locations", "classpath:db/migration,classpath:org/slotbook/jdbc/migration/{vendor}",
                "spring.flyway.placeholders.slotbook_prefix", "slotbook_");
    }

    private static String slot(String id, int capacity) {
        Instant start = Instant.now().plus(Duration.ofDays(3)).truncatedTo(ChronoUnit.HOURS);
        return "{\"slotId\":\"" + id + "\",\"start\":\"" + start + "\",\"capacity\":" + capacity + "}";
    }

    private App start(Schema schema, Map<String, String> settings) throws IOException {
        URI redis = URI.create(env("SLOTBOOK_TEST_REDIS_URL", "redis"));
        TcpForwarder redisForwarder = new TcpForwarder(redis.getHost(), redis.getPort());
        TcpForwarder dbForwarder = new TcpForwarder(schema.host, schema.port);
        cleanup.add(redisForwarder);
        cleanup.add(dbForwarder);
        Map<String, Object> properties = new LinkedHashMap<>();
        properties.put("server.port", "0");
        properties.put("spring.datasource.url", schema.urlThrough(dbForwarder.port()));
        properties.put("spring.datasource.hikari.connection-timeout", "1000");
        properties.put("spring.datasource.hikari.maximum-pool-size", "4");
        properties.put("slotbook.redis.url", "redis://127.0.0.1:" + redisForwarder.port());
        properties.put("slotbook.redis.key-prefix", "sba" + RUN + schema.name + ":");
        properties.put("slotbook.upkeep.enabled", "false");
        properties.put("management.endpoints.web.exposure.include", "health,prometheus");
        properties.put("management.endpoint.health.show-details", "always");
        properties.put("management.health.redis.enabled", "false");
        properties.putAll(settings);
        ConfigurableApplicationContext context = new SpringApplicationBuilder(BookingApp.class)
                .properties(properties).run();
        App app = new App(context, redisForwarder, dbForwarder);
        cleanup.add(app);
        return app;
    }

    private Schema freshSchema(String db) throws SQLException {
        String name = "sba" + RUN + "_" + (++schemas);
        Schema schema = new Schema(db, name);
        cleanup.add(schema);
        return schema;
    }

    private static String env(String name, String what) {
        String value = System.getenv(name);
        assumeTrue(value != null || "true".equals(System.getenv("SLOTBOOK_TEST_REQUIRE_SERVICES")),
                "needs " + name);
        if (value == null) {
            throw new IllegalStateException("SLOTBOOK_TEST_REQUIRE_SERVICES is set but no " + what + " URL is");
        }
        return value;
    }

    /** A running application with its forwarders. */
    private static final class App implements AutoCloseable {
        final ConfigurableApplicationContext context;
        final TcpForwarder redis;
        final TcpForwarder database;
        final int port;

        App(ConfigurableApplicationContext context, TcpForwarder redis, TcpForwarder database) {
            this.context = context;
            this.redis = redis;
            this.database = database;
            this.port = Integer.parseInt(context.getEnvironment().getProperty("local.server.port"));
        }

        HttpResponse<String> post(String path, String json) throws IOException, InterruptedException {
            return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                    .header("Content-Type", "application/json").timeout(Duration.ofSeconds(30))
                    .POST(HttpRequest.BodyPublishers.ofString(json)).build(), HttpResponse.BodyHandlers.ofString());
        }

        HttpResponse<String> get(String path) throws IOException, InterruptedException {
            return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                    .timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
        }

        @Override
        public void close() {
            if (context.isActive()) {
                context.close();
            }
        }
    }

    /**
     * A PostgreSQL schema or a MariaDB database of this test's own, created empty and dropped afterwards
     * (only the one this test created).
     */
    private static final class Schema implements AutoCloseable {
        final String vendor;
        final String name;
        final String host;
        final int port;
        final String url;
        private final String serverUrl;

        Schema(String vendor, String name) throws SQLException {
            this.vendor = vendor;
            this.name = name;
            this.serverUrl = env(vendor.equals("postgresql") ? "SLOTBOOK_TEST_POSTGRES_URL" : "SLOTBOOK_TEST_MARIADB_URL",
                    vendor);
            URI uri = URI.create(serverUrl.substring("jdbc:".length()));
            this.host = uri.getHost();
            this.port = uri.getPort();
            this.url = urlThrough(port);
            try (Connection c = DriverManager.getConnection(serverUrl); Statement s = c.createStatement()) {
                s.execute(vendor.equals("postgresql") ? "CREATE SCHEMA " + name : "CREATE DATABASE " + name);
            }
        }

        /** The URL of this schema on {@code port} of the server's host (or a forwarder on loopback). */
        String urlThrough(int viaPort) {
            String hostPort = (viaPort == port ? host : "127.0.0.1") + ":" + viaPort;
            URI uri = URI.create(serverUrl.substring("jdbc:".length()));
            String query = uri.getRawQuery() == null ? "" : uri.getRawQuery();
            if (vendor.equals("postgresql")) {
                return "jdbc:postgresql://" + hostPort + uri.getRawPath() + "?" + query
                        + (query.isEmpty() ? "" : "&") + "currentSchema=" + name;
            }
            return "jdbc:mariadb://" + hostPort + "/" + name + (query.isEmpty() ? "" : "?" + query);
        }

        void execute(String sql) throws SQLException {
            try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement()) {
                s.execute(sql);
            }
        }

        long count(String sql) throws SQLException {
            try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement();
                 ResultSet rs = s.executeQuery(sql)) {
                rs.next();
                return rs.getLong(1);
            }
        }

        boolean tableExists(String table) throws SQLException {
            try (Connection c = DriverManager.getConnection(url);
                 ResultSet rs = c.getMetaData().getTables(vendor.equals("mariadb") ? name : null,
                         vendor.equals("postgresql") ? name : null, table, null)) {
                return rs.next();
            }
        }

        /** The scripts of a Flyway history table, in the order they were applied. */
        List<String> historyScripts(String table) throws SQLException {
            List<String> scripts = new ArrayList<>();
            String q = vendor.equals("mariadb") ? "`" : "\"";
            try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement();
                 ResultSet rs = s.executeQuery("SELECT " + q + "script" + q + " FROM " + q + table + q
                         + " WHERE " + q + "success" + q + " ORDER BY " + q + "installed_rank" + q)) {
                while (rs.next()) {
                    scripts.add(rs.getString(1));
                }
            }
            return scripts;
        }

        @Override
        public void close() throws SQLException {
            try (Connection c = DriverManager.getConnection(serverUrl); Statement s = c.createStatement()) {
                s.execute(vendor.equals("postgresql") ? "DROP SCHEMA " + name + " CASCADE" : "DROP DATABASE " + name);
            }
        }
    }
}
