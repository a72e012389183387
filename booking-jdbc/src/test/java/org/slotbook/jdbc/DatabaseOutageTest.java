package org.slotbook.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.slotbook.core.BookingEngine;
import org.slotbook.core.BookingStoreException;
import org.slotbook.core.HoldRequest;
import org.slotbook.core.RequestId;
import org.slotbook.core.SlotId;
import org.slotbook.core.StudentId;
import org.slotbook.core.TenantId;
import org.slotbook.core.memory.InMemorySeatReservation;

/**
 * A database that cannot be reached: the pool times out, nothing is sent, and the engine believes
 * that instead of asking the unreachable database once more whether the hold committed.
 */
class DatabaseOutageTest {
    private static final long POOL_TIMEOUT_MS = 500;

    @Test
    void aHoldDuringAnOutageFailsInOnePoolTimeoutAndGivesTheGateHoldBack() throws IOException {
        int port;
        try (ServerSocket free = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = free.getLocalPort(); // closed again: nothing listens there
        }
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl("jdbc:postgresql://127.0.0.1:" + port + "/test?user=postgres&connectTimeout=1");
        config.setConnectionTimeout(POOL_TIMEOUT_MS);
        config.setInitializationFailTimeout(-1); // start without a database
        config.setMaximumPoolSize(2);
        config.setMinimumIdle(0);
        config.setPoolName("slotbook-outage");
        try (HikariDataSource dataSource = new HikariDataSource(config)) {
            JdbcStore store = JdbcStore.builder(dataSource).dialect(JdbcDialect.POSTGRESQL).build();
            InMemorySeatReservation gate = InMemorySeatReservation.create();
            BookingEngine engine = BookingEngine.builder().store(store).reservation(gate).build();
            TenantId tenant = TenantId.of("outage");
            SlotId slot = SlotId.of("yoga");
            gate.initialize(tenant, slot, 5, Instant.now().plus(Duration.ofDays(1)));
            // warm up (class loading, the pool's first attempts), so the timed hold measures the wait alone
            catchThrowableOfType(BookingStoreException.class, () -> engine.hold(tenant,
                    HoldRequest.of(RequestId.random(), slot, StudentId.of("warm-up"))));
            HoldRequest request = HoldRequest.of(RequestId.random(), slot, StudentId.of("sam"));

            long started = System.nanoTime();
            BookingStoreException failure = catchThrowableOfType(BookingStoreException.class,
                    () -> engine.hold(tenant, request));
            long tookMs = (System.nanoTime() - started) / 1_000_000;

            assertThat(failure).as("the hold fails with a store exception").isNotNull();
            assertThat(failure.retryable()).as("retryable: the database may come back").isTrue();
            assertThat(failure.outcomeUnknown()).as("nothing was sent, so nothing changed").isFalse();
            assertThat(failure.getSuppressed()).as("no second read was tried").isEmpty();
            assertThat(tookMs).as("one pool timeout (%d ms), not two", POOL_TIMEOUT_MS)
                    .isGreaterThanOrEqualTo(POOL_TIMEOUT_MS * 9 / 10)
                    .isLessThan(POOL_TIMEOUT_MS * 3 / 2);
            assertThat(gate.inspect(tenant, slot).orElseThrow().holders()).as("the gate hold was given back")
                    .isEmpty();
            assertThat(gate.inspect(tenant, slot).orElseThrow().remaining()).isEqualTo(5);
        }
    }
}
