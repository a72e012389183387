package org.slotbook.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.slotbook.core.BookingStoreException;
import org.slotbook.core.RequestId;
import org.slotbook.core.SlotId;
import org.slotbook.core.StudentId;
import org.slotbook.core.TenantId;
import org.slotbook.core.spi.GateDecision;
import org.slotbook.redis.support.JedisClients;
import org.slotbook.redis.support.TestRedis;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.UnifiedJedis;

/** A gate whose Redis cannot be reached answers UNAVAILABLE within its client's timeouts, and counts it. */
class UnavailableRedisTest {
    private static final TenantId TENANT = TenantId.of("t");
    private static final SlotId SLOT = SlotId.of("s");

    private static UnifiedJedis client(int port) {
        return JedisClients.standalone(new HostAndPort("127.0.0.1", port),
                DefaultJedisClientConfig.builder().connectionTimeoutMillis(200).socketTimeoutMillis(300).build(),
                TestRedis.poolConfig(4));
    }

    private static GateDecision hold(RedisSeatReservation gate) {
        return gate.tryHold(TENANT, SLOT, StudentId.of("a"), RequestId.random(), Duration.ofSeconds(60));
    }

    @Test
    void nothingListeningAnswersUnavailableAtOnce() throws IOException {
        int port;
        try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            port = probe.getLocalPort();
        }
        try (UnifiedJedis client = client(port)) {
            RedisSeatReservation gate = RedisSeatReservation.create(client);
            long start = System.nanoTime();
            for (int i = 0; i < 20; i++) {
                assertThat(hold(gate)).isEqualTo(GateDecision.UNAVAILABLE);
            }
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
            assertThat(gate.unavailableCount()).isEqualTo(20);
            assertThatThrownBy(() -> gate.release(TENANT, SLOT, StudentId.of("a"), RequestId.random()))
                    .isInstanceOf(BookingStoreException.class).hasMessageContaining("release");
            assertThatThrownBy(() -> gate.initialize(TENANT, SLOT, 3, Instant.now().plusSeconds(60)))
                    .isInstanceOf(BookingStoreException.class);
            assertThatThrownBy(() -> gate.inspect(TENANT, SLOT))
                    .isInstanceOf(BookingStoreException.class);
        }
    }

    @Test
    void aServerThatNeverAnswersTimesOut() throws Exception {
        List<Socket> accepted = new ArrayList<>();
        try (ServerSocket silent = new ServerSocket(0, 50, InetAddress.getByName("127.0.0.1"))) {
            Thread acceptor = new Thread(() -> {
                try {
                    while (!silent.isClosed()) {
                        accepted.add(silent.accept());
                    }
                } catch (IOException closed) {
                    // test over
                }
            }, "silent-redis");
            acceptor.setDaemon(true);
            acceptor.start();
            try (UnifiedJedis client = client(silent.getLocalPort())) {
                RedisSeatReservation gate = RedisSeatReservation.create(client);
                long start = System.nanoTime();
                assertThat(hold(gate)).isEqualTo(GateDecision.UNAVAILABLE);
                assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(3));
                assertThat(gate.unavailableCount()).isEqualTo(1);
            }
        } finally {
            for (Socket s : accepted) {
                s.close();
            }
        }
    }
}
