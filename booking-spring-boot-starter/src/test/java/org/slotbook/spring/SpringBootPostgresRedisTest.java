package org.slotbook.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slotbook.core.tck.Concurrent;
import org.slotbook.core.BookingEngine;
import org.slotbook.core.CoachId;
import org.slotbook.core.Held;
import org.slotbook.core.HoldRequest;
import org.slotbook.core.RequestId;
import org.slotbook.core.RoomId;
import org.slotbook.core.SlotId;
import org.slotbook.core.SlotSpec;
import org.slotbook.core.StudentId;
import org.slotbook.core.TenantId;
import org.slotbook.core.TimeRange;
import org.slotbook.core.spi.GateHolder;
import org.slotbook.core.spi.GateView;
import org.slotbook.core.spi.SeatReservation;
import org.slotbook.spring.app.HostApp;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * A host application on real PostgreSQL and Redis with a pool of 4 connections and no Slotbook
 * wiring of its own: the engine refuses to run inside the host's transaction (so a host rollback
 * leaves no booking and no gate hold, and Slotbook never commits the host's rows), 16 concurrent
 * requests all succeed on the small pool, and metrics and health show under /actuator.
 */
@SpringBootTest(classes = HostApp.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class SpringBootPostgresRedisTest {
    private static final String RUN = UUID.randomUUID().toString().replace("-", "").substring(0, 8);
    private static final String PREFIX = "sbt" + RUN + "_";

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        String postgres = System.getenv("SLOTBOOK_TEST_POSTGRES_URL");
        String redis = System.getenv("SLOTBOOK_TEST_REDIS_URL");
        org.junit.jupiter.api.Assumptions.assumeTrue(postgres != null && redis != null
                        || "true".equals(System.getenv("SLOTBOOK_TEST_REQUIRE_SERVICES")),
                "needs SLOTBOOK_TEST_POSTGRES_URL and SLOTBOOK_TEST_REDIS_URL");
        registry.add("spring.datasource.url", () -> postgres);
        registry.add("spring.datasource.hikari.maximum-pool-size", () -> "4");
        registry.add("spring.flyway.enabled", () -> "false");
        registry.add("slotbook.flyway.enabled", () -> "true");
        registry.add("slotbook.jdbc.table-prefix", () -> PREFIX);
        registry.add("slotbook.redis.url", () -> redis);
        registry.add("slotbook.redis.key-prefix", () -> "sbt" + RUN + ":");
        registry.add("management.endpoints.web.exposure.include", () -> "health,metrics");
        registry.add("management.endpoint.health.show-details", () -> "always");
    }

    @BeforeAll
    static void hostTable() {
        // the host's own table, as its own migrations would create it
        new JdbcTemplate(MigrationsMatchSchemaTest.dataSource("postgresql"))
                .execute("CREATE TABLE IF NOT EXISTS host_order (id VARCHAR(64) PRIMARY KEY)");
    }

    @Autowired
    BookingEngine engine;
    @Autowired
    HostApp.Checkout checkout;
    @Autowired
    JdbcTemplate jdbc;
    @Autowired
    SeatReservation gate;
    @LocalServerPort
    int port;

    private final TenantId tenant = TenantId.of("t-" + UUID.randomUUID());

    private SlotId schedule(int capacity) {
        SlotId slot = SlotId.of("s-" + UUID.randomUUID());
        Instant start = Instant.now().plus(Duration.ofDays(3)).truncatedTo(ChronoUnit.HOURS);
        engine.schedule(tenant, new SlotSpec(slot, CoachId.of("c-" + slot), RoomId.of("r-" + slot),
                TimeRange.of(start, Duration.ofHours(1)), capacity));
        return slot;
    }

    private int bookings(SlotId slot) {
        return jdbc.queryForObject("SELECT COUNT(*) FROM " + PREFIX + "booking WHERE tenant_id = ? AND slot_id = ?"
                + " AND status IN ('HELD', 'CONFIRMED')", Integer.class, tenant.value(), slot.value());
    }

    private List<GateHolder> gateHolders(SlotId slot) {
        return gate.inspect(tenant, slot).map(GateView::holders).orElse(List.of());
    }

    private int hostOrders(String id) {
        return jdbc.queryForObject("SELECT COUNT(*) FROM host_order WHERE id = ?", Integer.class, id);
    }

    @Test
    void insideAHostTransactionTheEngineRefusesAndTheRollbackLeavesNothing() {
        SlotId slot = schedule(5);
        String order = "o-" + UUID.randomUUID();
        HoldRequest request = HoldRequest.of(RequestId.random(), slot, StudentId.of("st1"));

        assertThatThrownBy(() -> checkout.orderInsideTransaction(order, tenant, request))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("inside an active Spring transaction")
                .hasMessageContaining("Propagation.NOT_SUPPORTED");

        assertThat(hostOrders(order)).as("the host's row was rolled back, never committed by Slotbook").isZero();
        assertThat(bookings(slot)).as("no booking in the ledger").isZero();
        assertThat(gateHolders(slot)).as("no gate hold in Redis").isEmpty();
        assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM " + PREFIX + "slot_seat WHERE tenant_id = ? AND"
                + " slot_id = ? AND status = 'FREE'", Integer.class, tenant.value(), slot.value())).isEqualTo(5);
    }

    @Test
    void outsideTheTransactionTheBookingAndTheHostsRowBothStand() {
        SlotId slot = schedule(5);
        String order = "o-" + UUID.randomUUID();
        HoldRequest request = HoldRequest.of(RequestId.random(), slot, StudentId.of("st2"));

        assertThat(checkout.orderOutsideTransaction(order, tenant, request)).isInstanceOf(Held.class);

        assertThat(hostOrders(order)).isEqualTo(1);
        assertThat(bookings(slot)).isEqualTo(1);
        assertThat(gateHolders(slot)).extracting(GateHolder::studentId).containsExactly(StudentId.of("st2"));
    }

    @Test
    void sixteenConcurrentRequestsOnAPoolOfFourAllSucceed() throws Exception {
        SlotId slot = schedule(20);
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        for (HttpResponse<String> response : Concurrent.run(16, i -> {
            URI uri = URI.create("http://127.0.0.1:" + port + "/tenants/" + tenant.value() + "/slots/"
                    + slot.value() + "/holds/student-" + i);
            try {
                return http.send(HttpRequest.newBuilder(uri).POST(HttpRequest.BodyPublishers.noBody())
                        .timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
            } catch (java.io.IOException | InterruptedException e) {
                throw new AssertionError("request " + i + " failed: " + e, e);
            }
        })) {
            assertThat(response.statusCode()).isEqualTo(200);
            assertThat(response.body()).contains("\"type\":\"Held\"");
        }
        assertThat(bookings(slot)).isEqualTo(16);
        assertThat(gateHolders(slot)).hasSize(16);
    }

    @Test
    void metricsAndHealthShowUnderActuator() throws Exception {
        SlotId slot = schedule(1);
        engine.hold(tenant, HoldRequest.of(RequestId.random(), slot, StudentId.of("a")));
        engine.hold(tenant, HoldRequest.of(RequestId.random(), slot, StudentId.of("b")));
        HttpClient http = HttpClient.newHttpClient();

        String calls = get(http, "/actuator/metrics/slotbook.engine.calls?tag=operation:hold&tag=outcome:Full");
        assertThat(calls).contains("\"name\":\"slotbook.engine.calls\"").contains("\"statistic\":\"COUNT\"");
        String decisions = get(http, "/actuator/metrics/slotbook.gate.decisions?tag=answer:full");
        assertThat(decisions).contains("\"name\":\"slotbook.gate.decisions\"");
        assertThat(get(http, "/actuator/metrics")).contains("slotbook.engine.calls", "slotbook.gate.decisions",
                "slotbook.reconcile.repairs", "slotbook.sweep.expired");

        String health = get(http, "/actuator/health");
        assertThat(health).contains("\"slotbook\":{\"status\":\"UP\"").contains("\"ledger\":{\"status\":\"UP\"")
                .contains("\"gate\":{\"status\":\"UP\"");
        assertThat(bookings(slot)).isEqualTo(1);
    }

    private String get(HttpClient http, String path) throws Exception {
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .build(), HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as(path + ": " + response.body()).isEqualTo(200);
        return response.body();
    }
}
