package org.slotbook.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.slotbook.core.BookingEngine;
import org.slotbook.core.BookingStoreException;
import org.slotbook.core.CoachId;
import org.slotbook.core.HoldRequest;
import org.slotbook.core.RequestId;
import org.slotbook.core.RoomId;
import org.slotbook.core.SlotId;
import org.slotbook.core.SlotSpec;
import org.slotbook.core.StudentId;
import org.slotbook.core.TenantId;
import org.slotbook.core.TimeRange;
import org.slotbook.core.tck.Fixtures;
import org.slotbook.jdbc.testing.TestDatabases;
import org.slotbook.jdbc.testing.TestDatabases.TestDatabase;

/**
 * A call waits for a connection at most once: with every connection of a pool of two taken, many
 * concurrent holds (which queue on the store's hold lanes behind each other's batches) each fail within
 * the pool's connection timeout plus a small margin, with the retryable, nothing-sent
 * {@link BookingStoreException}, and nothing is written. A queued hold once waited for its lane's batch
 * (one timeout) and then for its own connection (a second one).
 */
class HoldWaitBoundTest {
    private static final long POOL_TIMEOUT_MS = 1_000;
    /** Thread wake-ups on a loaded machine; a second wait for a connection would add a whole timeout. */
    private static final long MARGIN_MS = 300;
    private static final int HOLDS = 24;

    @Test
    void onPostgresEveryHoldFailsWithinOnePoolTimeout() throws Exception {
        everyHoldFailsWithinOnePoolTimeout(TestDatabases.postgres());
    }

    @Test
    void onMariaDbEveryHoldFailsWithinOnePoolTimeout() throws Exception {
        everyHoldFailsWithinOnePoolTimeout(TestDatabases.mariadb());
    }

    private void everyHoldFailsWithinOnePoolTimeout(TestDatabase shared) throws Exception {
        HikariConfig config = new HikariConfig();
        config.setDataSource(shared.dataSource());
        config.setMaximumPoolSize(2);
        config.setMinimumIdle(2);
        config.setConnectionTimeout(POOL_TIMEOUT_MS);
        config.setPoolName("slotbook-two-connections");
        ExecutorService threads = Executors.newFixedThreadPool(HOLDS);
        try (shared; HikariDataSource two = new HikariDataSource(config)) {
            JdbcStore store = JdbcStore.builder(two).tablePrefix(shared.prefix()).build();
            assertThat(store.holdLanes()).as("holds queue on lanes").isPositive();
            BookingEngine engine = BookingEngine.builder().store(store).build();
            TenantId tenant = TenantId.of("wait-" + Fixtures.shortRandom());
            SlotId slot = SlotId.of("spin");
            Instant start = Instant.now().truncatedTo(ChronoUnit.HOURS).plus(Duration.ofDays(1));
            engine.schedule(tenant, new SlotSpec(slot, CoachId.of("c"), RoomId.of("r"),
                    TimeRange.of(start, Duration.ofHours(1)), HOLDS));

            List<Future<Long>> holds = new ArrayList<>();
            List<BookingStoreException> failures = new ArrayList<>();
            try (Connection taken1 = two.getConnection(); Connection taken2 = two.getConnection()) {
                CountDownLatch go = new CountDownLatch(1);
                for (int i = 0; i < HOLDS; i++) {
                    StudentId student = StudentId.of("s" + i);
                    holds.add(threads.submit(() -> {
                        go.await();
                        long began = System.nanoTime();
                        try {
                            engine.hold(tenant, HoldRequest.of(RequestId.random(), slot, student));
                        } catch (BookingStoreException e) {
                            synchronized (failures) {
                                failures.add(e);
                            }
                        }
                        return (System.nanoTime() - began) / 1_000_000;
                    }));
                }
                go.countDown();
                long longest = 0;
                List<Long> waits = new ArrayList<>();
                for (Future<Long> hold : holds) {
                    long ms = hold.get();
                    waits.add(ms);
                    longest = Math.max(longest, ms);
                }
                assertThat(longest).as("the longest of %d holds' waits (ms: %s), pool timeout %d ms", HOLDS, waits,
                        POOL_TIMEOUT_MS).isLessThanOrEqualTo(POOL_TIMEOUT_MS + MARGIN_MS);
            }
            assertThat(failures).as("every hold failed").hasSize(HOLDS);
            assertThat(failures).allSatisfy(e -> {
                assertThat(e.retryable()).as("retryable: %s", e.getMessage()).isTrue();
                assertThat(e.outcomeUnknown()).as("nothing was sent: %s", e.getMessage()).isFalse();
            });
            assertThat(shared.count("SELECT COUNT(*) FROM " + shared.table("booking") + " WHERE tenant_id = ?",
                    tenant.value())).as("bookings written").isZero();
        } finally {
            threads.shutdownNow();
        }
    }
}
