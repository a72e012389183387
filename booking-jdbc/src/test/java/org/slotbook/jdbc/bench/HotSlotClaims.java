package org.slotbook.jdbc.bench;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.slotbook.core.BookingId;
import org.slotbook.core.BookingStatus;
import org.slotbook.core.CoachId;
import org.slotbook.core.RequestId;
import org.slotbook.core.RoomId;
import org.slotbook.core.Slot;
import org.slotbook.core.SlotId;
import org.slotbook.core.SlotSpec;
import org.slotbook.core.SlotStatus;
import org.slotbook.core.StudentId;
import org.slotbook.core.TenantId;
import org.slotbook.core.TimeRange;
import org.slotbook.core.Held;
import org.slotbook.core.HoldRequest;
import org.slotbook.core.spi.HoldCommand;
import org.slotbook.core.tck.Concurrent;
import org.slotbook.jdbc.JdbcSchema;
import org.slotbook.jdbc.JdbcStore;
import org.slotbook.jdbc.testing.TestDatabases;

/**
 * Hot-slot seat claims per second: {@code threads} clients claim seats of one slot of
 * {@code seats} seats of which {@code sold} percent are already confirmed (a hot slot late in its
 * sale), one claim per transaction, for {@code seconds}; then, on PostgreSQL, the same on a fresh
 * slot with the partial free-seat index dropped. Statistics are refreshed after the slot is filled,
 * as autovacuum would.
 *
 * <pre>
 * java -cp ... org.slotbook.jdbc.bench.HotSlotClaims JDBC_URL [threads=8] [seconds=10] [seats=100000] [sold=90]
 * </pre>
 */
public final class HotSlotClaims {
    private HotSlotClaims() {
    }

    public static void main(String[] args) throws Exception {
        String url = args[0];
        int threads = args.length > 1 ? Integer.parseInt(args[1]) : 8;
        int seconds = args.length > 2 ? Integer.parseInt(args[2]) : 10;
        int seats = args.length > 3 ? Integer.parseInt(args[3]) : SlotSpec.MAX_CAPACITY;
        int sold = args.length > 4 ? Integer.parseInt(args[4]) : 90;
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url);
        config.setMaximumPoolSize(threads);
        config.setTransactionIsolation("TRANSACTION_READ_COMMITTED");
        try (HikariDataSource dataSource = new HikariDataSource(config)) {
            String prefix = TestDatabases.freshPrefix();
            JdbcSchema.create(dataSource, prefix);
            try {
                JdbcStore store = JdbcStore.builder(dataSource).tablePrefix(prefix).build();
                String index = prefix + (store.dialect() == org.slotbook.jdbc.JdbcDialect.POSTGRESQL
                        ? "slot_seat_free_ix" : "slot_seat_claim_ix");
                System.out.printf("%s, %d threads, %d s, slot of %d seats, %d%% sold before%n", store.dialect(), threads,
                        seconds, seats, sold);
                run("with " + index, store, dataSource, prefix, threads, seconds, seats, sold);
                if (store.dialect() == org.slotbook.jdbc.JdbcDialect.POSTGRESQL) {
                    try (Connection c = dataSource.getConnection(); Statement s = c.createStatement()) {
                        s.execute("DROP INDEX " + index);
                    }
                    run("without " + index, store, dataSource, prefix, threads, seconds, seats, sold);
                } else {
                    // the MariaDB claim names its index (FORCE INDEX): it cannot run without it
                    System.out.println("(the " + store.dialect() + " claim requires " + index + ")");
                }
            } finally {
                try (Connection c = dataSource.getConnection(); Statement s = c.createStatement()) {
                    for (String table : List.of("occupancy", "resource_lock", "booking", "slot_seat", "slot")) {
                        s.execute("DROP TABLE IF EXISTS " + prefix + table);
                    }
                }
            }
        }
    }

    private static void run(String label, JdbcStore store, HikariDataSource dataSource, String prefix, int threads,
                            int seconds, int seats, int sold) throws Exception {
        TenantId tenant = TenantId.of("bench-" + System.nanoTime());
        Instant start = Instant.now().plus(Duration.ofDays(1)).truncatedTo(ChronoUnit.HOURS);
        Slot slot = new Slot(tenant, SlotId.of("hot"), CoachId.of("c"), RoomId.of("r"),
                TimeRange.of(start, Duration.ofHours(1)), seats, SlotStatus.OPEN);
        store.schedule(tenant, slot, Duration.ofHours(24), java.time.ZoneOffset.UTC);
        boolean postgres = store.dialect() == org.slotbook.jdbc.JdbcDialect.POSTGRESQL;
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement()) {
            c.setAutoCommit(true);
            String concat = postgres ? "'sold-' || seq" : "CONCAT('sold-', seq)";
            s.executeUpdate("UPDATE " + prefix + "slot_seat SET status = 'CONFIRMED', booking_id = " + concat
                    + ", student_id = " + concat + ", held_until = CURRENT_TIMESTAMP WHERE tenant_id = '"
                    + tenant.value() + "' AND seq <= " + (long) seats * sold / 100);
            s.execute(postgres ? "VACUUM ANALYZE " + prefix + "slot_seat" : "ANALYZE TABLE " + prefix + "slot_seat");
            if (!postgres) {
                // let InnoDB purge the index entries the bulk update left behind, as a gradual sale would
                long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
                while (System.nanoTime() < until) {
                    try (var rs = s.executeQuery("SELECT count FROM information_schema.INNODB_METRICS"
                            + " WHERE name = 'trx_rseg_history_len'")) {
                        if (!rs.next() || rs.getLong(1) < 1000) {
                            break;
                        }
                    }
                    Thread.sleep(500);
                }
            }
        }
        // warm-up: JIT and connections
        claimFor(store, tenant, slot, threads, 2_000_000_000L);
        long nanos = TimeUnit.SECONDS.toNanos(seconds);
        long began = System.nanoTime();
        long claims = claimFor(store, tenant, slot, threads, nanos);
        double elapsed = (System.nanoTime() - began) / 1e9;
        System.out.printf("%-40s %8d claims in %5.1f s = %7.0f claims/s%n", label, claims, elapsed, claims / elapsed);
    }

    /** Claims seats on {@code threads} threads for {@code nanos}, one per transaction; answers how many were held. */
    private static long claimFor(JdbcStore store, TenantId tenant, Slot slot, int threads, long nanos) {
        return Concurrent.load(threads, Duration.ofNanos(nanos), () -> {
            HoldCommand command = new HoldCommand(BookingId.random(), HoldRequest.of(RequestId.random(),
                    slot.slotId(), StudentId.of("s-" + BookingId.random())), BookingStatus.HELD, null,
                    Duration.ofHours(1), Duration.ofHours(24), true);
            return store.hold(tenant, command).result() instanceof Held;
        });
    }
}
