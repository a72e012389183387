package org.slotbook.examples.service;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.slotbook.core.tck.Concurrent;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The booking service on PostgreSQL (and Redis): 200 students send a hold for a 10-seat slot at the
 * same moment, over HTTP; the database then holds exactly 10 live bookings, on 10 different seats.
 */
@SpringBootTest(classes = BookingService.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class BookingServiceTest {
    private static final String RUN = UUID.randomUUID().toString().replace("-", "").substring(0, 8);
    private static final String PREFIX = "svc" + RUN + "_";

    @DynamicPropertySource
    static void servers(DynamicPropertyRegistry registry) {
        String postgres = System.getenv("SLOTBOOK_TEST_POSTGRES_URL");
        boolean required = "true".equals(System.getenv("SLOTBOOK_TEST_REQUIRE_SERVICES"));
        if (postgres == null && required) {
            throw new IllegalStateException("SLOTBOOK_TEST_REQUIRE_SERVICES is set but SLOTBOOK_TEST_POSTGRES_URL is not");
        }
        Assumptions.assumeTrue(postgres != null, "needs SLOTBOOK_TEST_POSTGRES_URL");
        registry.add("spring.datasource.url", () -> postgres);
        registry.add("slotbook.jdbc.table-prefix", () -> PREFIX);
        String redis = System.getenv("SLOTBOOK_TEST_REDIS_URL");
        if (redis != null) {
            registry.add("slotbook.redis.url", () -> redis);
            registry.add("slotbook.redis.key-prefix", () -> "svc" + RUN + ":");
        }
    }

    @LocalServerPort
    int port;
    @Autowired
    JdbcTemplate jdbc;

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    private HttpResponse<String> post(String path, String json) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .header("Content-Type", "application/json").timeout(Duration.ofSeconds(60))
                .POST(HttpRequest.BodyPublishers.ofString(json)).build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void twoHundredConcurrentHoldsForTenSeatsMakeTenBookings() throws Exception {
        String tenant = "gym-" + RUN;
        Instant start = Instant.now().plus(Duration.ofDays(7)).truncatedTo(ChronoUnit.HOURS);
        HttpResponse<String> scheduled = post("/tenants/" + tenant + "/slots", "{\"slotId\":\"spin\",\"coachId\":\"ana\","
                + "\"roomId\":\"studio-1\",\"start\":\"" + start + "\",\"minutes\":45,\"capacity\":10}");
        assertThat(scheduled.statusCode()).isEqualTo(201);
        assertThat(scheduled.body()).contains("\"type\":\"Scheduled\"");

        int students = 200;
        int held = 0;
        int full = 0;
        for (HttpResponse<String> response : Concurrent.run(students, students, i -> post("/tenants/" + tenant
                + "/slots/spin/holds", "{\"studentId\":\"student-" + i + "\"}"))) {
            held += response.body().contains("\"type\":\"Held\"") ? 1 : 0;
            full += response.body().contains("\"type\":\"Full\"") ? 1 : 0;
            assertThat(response.statusCode()).as(response.body())
                    .isEqualTo(response.body().contains("\"type\":\"Held\"") ? 201 : 409);
        }
        assertThat(held + full).isEqualTo(students);

        // the database is the judge: exactly 10 live bookings, each on its own seat
        assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM " + PREFIX + "booking WHERE tenant_id = ? AND slot_id = 'spin'"
                + " AND status IN ('HELD', 'CONFIRMED')", Integer.class, tenant)).isEqualTo(10);
        assertThat(jdbc.queryForObject("SELECT COUNT(DISTINCT seat) FROM " + PREFIX + "booking WHERE tenant_id = ?"
                + " AND slot_id = 'spin' AND status IN ('HELD', 'CONFIRMED')", Integer.class, tenant)).isEqualTo(10);
        assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM " + PREFIX + "slot_seat WHERE tenant_id = ? AND slot_id = 'spin'"
                + " AND status = 'FREE'", Integer.class, tenant)).isZero();
        HttpResponse<String> availability = http.send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + port + "/tenants/" + tenant + "/slots/spin")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(availability.body()).contains("\"type\":\"Availability\"").contains("\"remaining\":0");
    }

    @Test
    void fiftyConcurrentBookingsOnAFiveLessonPackagePayForFive() throws Exception {
        String tenant = "school-" + RUN;
        Instant start = Instant.now().plus(Duration.ofDays(7)).truncatedTo(ChronoUnit.HOURS);
        assertThat(post("/tenants/" + tenant + "/packages", "{\"packageId\":\"order-1\",\"studentId\":\"amy\","
                + "\"credits\":5,\"validFrom\":\"" + Instant.now().minus(Duration.ofDays(1)) + "\",\"validUntil\":\""
                + start.plus(Duration.ofDays(30)) + "\"}").body()).contains("\"remaining\":5");
        int slots = 50;
        for (int i = 0; i < slots; i++) {
            assertThat(post("/tenants/" + tenant + "/slots", "{\"slotId\":\"l" + i + "\",\"coachId\":\"c" + i
                    + "\",\"roomId\":\"r" + i + "\",\"start\":\"" + start.plus(Duration.ofHours(2L * i))
                    + "\",\"minutes\":60,\"capacity\":4,\"cost\":1}").body()).contains("\"type\":\"Scheduled\"");
        }
        int held = 0;
        for (HttpResponse<String> response : Concurrent.run(slots, slots, i -> post("/tenants/" + tenant + "/slots/l" + i
                + "/bookings", "{\"studentId\":\"amy\"}"))) {
            assertThat(response.body()).containsAnyOf("\"type\":\"Held\"", "\"type\":\"InsufficientCredits\"");
            assertThat(response.statusCode()).as(response.body())
                    .isEqualTo(response.body().contains("\"type\":\"Held\"") ? 201 : 409);
            held += response.body().contains("\"type\":\"Held\"") ? 1 : 0;
        }
        assertThat(held).isEqualTo(5);
        // the database is the judge: five paid bookings, nothing left, and the journal sums to it
        assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM " + PREFIX + "booking WHERE tenant_id = ?"
                + " AND status = 'CONFIRMED' AND credits = 1", Integer.class, tenant)).isEqualTo(5);
        assertThat(jdbc.queryForObject("SELECT remaining FROM " + PREFIX + "lesson_package WHERE tenant_id = ?"
                + " AND package_id = 'order-1'", Integer.class, tenant)).isZero();
        assertThat(jdbc.queryForObject("SELECT SUM(delta) FROM " + PREFIX + "credit_entry WHERE tenant_id = ?"
                + " AND package_id = 'order-1'", Integer.class, tenant)).isZero();
    }

    @Test
    void badInputIsA400AReusedRequestIdA409AndAnUnknownSlotA404() throws Exception {
        String tenant = "web-" + RUN;
        Instant start = Instant.now().plus(Duration.ofDays(7)).truncatedTo(ChronoUnit.HOURS);
        assertThat(post("/tenants/" + tenant + "/slots", "{\"slotId\":\"yoga\",\"coachId\":\"bo\","
                + "\"roomId\":\"studio-2\",\"start\":\"" + start + "\",\"minutes\":60,\"capacity\":2}").statusCode())
                .isEqualTo(201);

        HttpResponse<String> blank = post("/tenants/" + tenant + "/slots/yoga/holds", "{\"studentId\":\" \"}");
        assertThat(blank.statusCode()).as(blank.body()).isEqualTo(400);
        assertThat(blank.headers().firstValue("Content-Type")).hasValueSatisfying(
                type -> assertThat(type).startsWith("application/problem+json"));
        assertThat(blank.body()).contains("\"status\":400", "\"field\":\"studentId\"", "studentId must not be blank");
        HttpResponse<String> empty = post("/tenants/" + tenant + "/slots/yoga/holds", "{}");
        assertThat(empty.statusCode()).as(empty.body()).isEqualTo(400);
        assertThat(empty.body()).contains("studentId");

        assertThat(post("/tenants/" + tenant + "/slots/yoga/holds", "{\"requestId\":\"r-1\",\"studentId\":\"al\"}")
                .statusCode()).isEqualTo(201);
        HttpResponse<String> reused = post("/tenants/" + tenant + "/slots/yoga/holds",
                "{\"requestId\":\"r-1\",\"studentId\":\"bea\"}");
        assertThat(reused.statusCode()).as(reused.body()).isEqualTo(409);
        assertThat(reused.body()).contains("\"requestId\":\"r-1\"", "request-id-reused").doesNotContain("\"al\"");
        assertThat(post("/tenants/" + tenant + "/slots/yoga/holds", "{\"studentId\":\"dee\"}").statusCode())
                .isEqualTo(201);
        HttpResponse<String> full = post("/tenants/" + tenant + "/slots/yoga/holds", "{\"studentId\":\"cy\"}");
        assertThat(full.statusCode()).as(full.body()).isEqualTo(409);
        assertThat(full.body()).contains("\"type\":\"Full\"");
        HttpResponse<String> missing = post("/tenants/" + tenant + "/slots/nowhere/holds", "{\"studentId\":\"cy\"}");
        assertThat(missing.statusCode()).as(missing.body()).isEqualTo(404);
        assertThat(missing.body()).contains("\"type\":\"NotFound\"");
        assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM " + PREFIX + "booking WHERE tenant_id = ?", Integer.class,
                tenant)).as("al's and dee's holds").isEqualTo(2);
    }
}
