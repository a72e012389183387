package org.slotbook.examples;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slotbook.core.BookingEngine;
import org.slotbook.core.CoachId;
import org.slotbook.core.RoomId;
import org.slotbook.core.SlotId;
import org.slotbook.core.SlotSpec;
import org.slotbook.core.TenantId;
import org.slotbook.core.TimeRange;
import org.slotbook.core.shard.ShardMapping;
import org.slotbook.core.shard.TenantRoutedStore;
import org.slotbook.jdbc.JdbcSchema;
import org.slotbook.jdbc.JdbcStore;

/**
 * Two engine nodes (child JVMs) on the same two shards (one tenant's ledger on PostgreSQL, the other's
 * on MariaDB) and the same Redis gate race a flash sale; one node is killed mid-sale with holds it
 * never confirmed. Checked by SQL on both shards: no slot oversold, no student twice in a slot, every
 * request id answered once, the dead node's holds expired and their seats sold by the survivor.
 */
class TwoNodeFlashSaleTest {
    private static final int SEATS = 12;
    private static final long HOLD_TTL_MS = 3_000;

    @TempDir
    Path dir;

    @Test
    void twoNodesRaceAndTheSurvivorSellsTheSeatsOfTheNodeThatDied() throws Exception {
        String pg = env("SLOTBOOK_TEST_POSTGRES_URL");
        String maria = env("SLOTBOOK_TEST_MARIADB_URL");
        String redis = env("SLOTBOOK_TEST_REDIS_URL");
        String run = UUID.randomUUID().toString().replace("-", "").substring(0, 8);
        String prefix = "n" + run + "_";
        TenantId onPg = TenantId.of("chain-" + run + "-pg");
        TenantId onMaria = TenantId.of("chain-" + run + "-maria");
        SlotId slot = SlotId.of("opening");
        Map<String, HikariDataSource> shards = Map.of("pg", pool(pg), "maria", pool(maria));
        Process victim = null;
        Process survivor = null;
        try {
            shards.values().forEach(ds -> JdbcSchema.create(ds, prefix));
            TenantRoutedStore store = TenantRoutedStore.builder()
                    .shard("pg", JdbcStore.builder(shards.get("pg")).tablePrefix(prefix).build())
                    .shard("maria", JdbcStore.builder(shards.get("maria")).tablePrefix(prefix).build())
                    .mapping(ShardMapping.table(Map.of(onPg, "pg", onMaria, "maria"), t -> "pg")).build();
            BookingEngine engine = BookingEngine.builder().store(store).build();
            Instant start = Instant.now().truncatedTo(ChronoUnit.HOURS).plus(Duration.ofDays(1));
            for (TenantId tenant : List.of(onPg, onMaria)) {
                engine.schedule(tenant, new SlotSpec(slot, CoachId.of("coach"), RoomId.of("hall"),
                        TimeRange.of(start, Duration.ofHours(1)), SEATS));
            }
            Path go = dir.resolve("go");
            List<String> common = List.of(
                    "shard=pg|" + pg + "|" + prefix, "shard=maria|" + maria + "|" + prefix,
                    "tenant=" + onPg.value() + "|pg", "tenant=" + onMaria.value() + "|maria",
                    "slot=" + slot.value(), "redis=" + redis, "gatePrefix=sale-" + run + ":", "go=" + go,
                    "holdTtlMillis=" + HOLD_TTL_MS, "threads=4", "paceMillis=40");
            victim = node(common, "victim", false, 60_000);
            survivor = node(common, "survivor", true, 45_000);
            // both nodes start selling together, once both are up (a node still starting under load would
            // find the slot sold out by the other)
            long ready = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (!(Files.exists(dir.resolve("victim.txt.ready")) && Files.exists(dir.resolve("survivor.txt.ready")))
                    && System.nanoTime() < ready && victim.isAlive() && survivor.isAlive()) {
                Thread.sleep(20);
            }
            Files.writeString(go, "go");

            Path victimAnswers = dir.resolve("victim.txt");
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (held(victimAnswers) < 4 && System.nanoTime() < until && victim.isAlive()) {
                Thread.sleep(20);
            }
            assertThat(held(victimAnswers)).as("the victim node holds seats before it dies").isGreaterThanOrEqualTo(4);
            victim.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            assertThat(survivor.waitFor(50, TimeUnit.SECONDS)).as("the survivor finishes the sale").isTrue();
            assertThat(survivor.exitValue()).as("survivor exit code; see %s", dir.resolve("survivor.log")).isZero();
            engine.sweepExpired(onPg, 1000);
            engine.sweepExpired(onMaria, 1000);

            List<String[]> victimLines = lines(victimAnswers);
            List<String[]> survivorLines = lines(dir.resolve("survivor.txt"));
            for (TenantId tenant : List.of(onPg, onMaria)) {
                HikariDataSource db = shards.get(tenant.equals(onPg) ? "pg" : "maria");
                HikariDataSource other = shards.get(tenant.equals(onPg) ? "maria" : "pg");
                assertThat(count(other, "SELECT COUNT(*) FROM " + prefix + "booking WHERE tenant_id = ?", tenant))
                        .as("nothing of %s on the other shard", tenant).isZero();
                assertThat(count(db, "SELECT COUNT(*) FROM " + prefix + "booking WHERE tenant_id = ?"
                        + " AND status = 'CONFIRMED'", tenant)).as("%s sold out, every seat confirmed", tenant)
                        .isEqualTo(SEATS);
                assertThat(count(db, "SELECT COUNT(*) FROM " + prefix + "booking WHERE tenant_id = ?"
                        + " AND status = 'HELD'", tenant)).as("no hold left").isZero();
                assertThat(count(db, "SELECT COUNT(*) FROM " + prefix + "slot_seat WHERE tenant_id = ?"
                        + " AND status IN ('HELD', 'CONFIRMED')", tenant)).as("seats taken = capacity").isEqualTo(SEATS);
                assertThat(count(db, "SELECT COUNT(*) FROM (SELECT student_id FROM " + prefix + "booking"
                        + " WHERE tenant_id = ? AND status = 'CONFIRMED' GROUP BY student_id HAVING COUNT(*) > 1) x",
                        tenant)).as("no student twice").isZero();
                assertThat(count(db, "SELECT COUNT(*) FROM " + prefix + "booking WHERE tenant_id = ?"
                        + " AND student_id LIKE 'victim-%' AND status <> 'EXPIRED'", tenant))
                        .as("every hold of the dead node expired").isZero();

                Map<String, String> students = new HashMap<>();
                Map<String, String> rows = requestsToBookings(db, prefix, tenant, students);
                Map<String, String> answeredHeld = new HashMap<>();
                Set<String> answered = new HashSet<>();
                for (List<String[]> file : List.of(victimLines, survivorLines)) {
                    for (String[] line : file) {
                        assertThat(answered.add(line[0])).as("request %s answered once", line[0]).isTrue();
                        if (line[1].equals(tenant.value()) && line[3].equals("Held")) {
                            answeredHeld.put(line[0], line[4]);
                        }
                    }
                }
                for (Map.Entry<String, String> held : answeredHeld.entrySet()) {
                    assertThat(rows).as("a Held answer is a booking row").containsEntry(held.getKey(), held.getValue());
                }
                for (Map.Entry<String, String> row : rows.entrySet()) {
                    if (!answered.contains(row.getKey())) {
                        assertThat(students.get(row.getKey())).as("only the killed node can leave a booking"
                                + " unanswered (cut off between its commit and its answer)").startsWith("victim-");
                    }
                }
                long unanswered = rows.keySet().stream().filter(r -> !answered.contains(r)).count();
                assertThat(unanswered).as("bookings whose answer died with the killed node (at most its 4 threads)")
                        .isLessThanOrEqualTo(4);
            }
            long victimHeld = victimLines.stream().filter(l -> l[3].equals("Held")).count();
            long survivorHeld = survivorLines.stream().filter(l -> l[3].equals("Held")).count();
            assertThat(survivorHeld).as("the survivor sold every seat, those of the dead node's holds included")
                    .isEqualTo(2L * SEATS);
            assertThat(victimHeld).isGreaterThanOrEqualTo(4);
        } finally {
            for (Process p : new Process[] {victim, survivor}) {
                if (p != null && p.isAlive()) {
                    p.destroyForcibly();
                }
            }
            for (HikariDataSource ds : shards.values()) {
                drop(ds, prefix);
                ds.close();
            }
        }
    }

    private Process node(List<String> common, String name, boolean confirm, long deadlineMillis) throws IOException {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx256m", "-XX:TieredStopAtLevel=1",
                "-cp", System.getProperty("java.class.path"), SaleNode.class.getName()));
        command.addAll(common);
        command.addAll(List.of("node=" + name, "confirm=" + confirm, "deadlineMillis=" + deadlineMillis,
                "answers=" + dir.resolve(name + ".txt")));
        return new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(dir.resolve(name + ".log").toFile()).start();
    }

    private static long held(Path answers) throws IOException {
        return lines(answers).stream().filter(l -> l[3].equals("Held")).count();
    }

    /** The complete lines of an answers file (a line cut by a kill is left out). */
    private static List<String[]> lines(Path answers) throws IOException {
        if (!Files.exists(answers)) {
            return List.of();
        }
        List<String[]> out = new ArrayList<>();
        for (String line : Files.readAllLines(answers, StandardCharsets.UTF_8)) {
            String[] parts = line.split(" ");
            if (parts.length == 5) {
                out.add(parts);
            }
        }
        return out;
    }

    /** Request id to booking id of every booking row of the tenant; {@code students} gets request id to student. */
    private static Map<String, String> requestsToBookings(HikariDataSource db, String prefix, TenantId tenant,
                                                          Map<String, String> students) throws SQLException {
        Map<String, String> rows = new HashMap<>();
        try (Connection c = db.getConnection(); PreparedStatement ps = c.prepareStatement(
                "SELECT request_id, booking_id, student_id FROM " + prefix + "booking WHERE tenant_id = ?")) {
            ps.setString(1, tenant.value());
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    rows.put(rs.getString(1), rs.getString(2));
                    students.put(rs.getString(1), rs.getString(3));
                }
            }
        }
        return rows;
    }

    private static long count(HikariDataSource db, String sql, TenantId tenant) throws SQLException {
        try (Connection c = db.getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setString(1, tenant.value());
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    private static String env(String name) {
        String value = System.getenv(name);
        if (value == null || value.isBlank()) {
            if (Boolean.parseBoolean(System.getenv("SLOTBOOK_TEST_REQUIRE_SERVICES"))) {
                throw new AssertionError(name + " is required");
            }
            Assumptions.abort(name + " is not set");
        }
        return value;
    }

    private static HikariDataSource pool(String url) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url);
        config.setMaximumPoolSize(4);
        config.setPoolName("two-node-test");
        return new HikariDataSource(config);
    }

    private static void drop(HikariDataSource ds, String prefix) {
        try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
            boolean pg = c.getMetaData().getDatabaseProductName().toLowerCase().contains("postgres");
            for (String routine : List.of("schedule", "hold", "confirm", "cancel", "cancel_slot", "expire_due")) {
                s.execute((pg ? "DROP FUNCTION IF EXISTS " : "DROP PROCEDURE IF EXISTS ") + prefix + routine);
            }
            for (String table : List.of("occupancy", "resource_lock", "booking", "slot_seat", "slot")) {
                s.execute("DROP TABLE IF EXISTS " + prefix + table);
            }
        } catch (SQLException e) {
            System.err.println("could not drop " + prefix + "*: " + e);
        }
    }
}
