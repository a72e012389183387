package org.slotbook.spring;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.slotbook.core.BookingEngine;
import org.slotbook.core.CoachId;
import org.slotbook.core.Held;
import org.slotbook.core.HoldRequest;
import org.slotbook.core.ReconciliationJob;
import org.slotbook.core.RequestId;
import org.slotbook.core.RoomId;
import org.slotbook.core.SlotId;
import org.slotbook.core.SlotSpec;
import org.slotbook.core.StudentId;
import org.slotbook.core.TenantId;
import org.slotbook.core.TimeRange;
import org.slotbook.core.Waitlisted;
import org.slotbook.core.memory.InMemoryStore;
import org.slotbook.core.shard.ShardMapping;
import org.slotbook.core.shard.ShardedUpkeep;
import org.slotbook.core.shard.TenantRoutedStore;
import org.slotbook.core.spi.BookingStore;
import org.slotbook.jdbc.JdbcDialect;
import org.slotbook.jdbc.JdbcSchema;
import org.slotbook.jdbc.JdbcStore;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The upkeep over a host's {@link TenantRoutedStore}: shard by shard ({@link ShardedUpkeep}), so with one
 * shard down the other still sweeps its expired holds and promotes its waiters. The live shard is the
 * PostgreSQL server the tests are pointed at (tables of a fresh prefix); the dead one a pool on a
 * loopback port where nothing listens.
 */
class SlotbookShardedUpkeepTest {
    private static final String PREFIX = "sbu" + UUID.randomUUID().toString().replace("-", "").substring(0, 8) + "_";
    private static final TenantId TENANT = TenantId.of("sharded-" + UUID.randomUUID());

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class, SlotbookAutoConfiguration.class))
            .withPropertyValues("spring.datasource.url=jdbc:h2:mem:su-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1",
                    "slotbook.upkeep.interval=1h", "slotbook.hold-ttl=1s");

    private static HikariDataSource livePool;
    private static HikariDataSource deadPool;

    /** The host's routed store: the tenant on the live shard, the other tenants on the dead one. */
    @Configuration(proxyBeanMethods = false)
    static class Shards {
        @Bean
        TenantRoutedStore routedStore() {
            return TenantRoutedStore.builder()
                    .shard("live", JdbcStore.builder(livePool).tablePrefix(PREFIX).build())
                    .shard("dead", JdbcStore.builder(deadPool).dialect(JdbcDialect.POSTGRESQL).tablePrefix(PREFIX)
                            .build())
                    .mapping(ShardMapping.table(Map.of(TENANT, "live"), t -> "dead"))
                    .build();
        }
    }

    /** A pool on a loopback port where nothing listens, giving up on a connection after 300 ms. */
    private static HikariDataSource deadPool() throws IOException {
        int port;
        try (ServerSocket free = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = free.getLocalPort(); // closed again: nothing listens there
        }
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl("jdbc:postgresql://127.0.0.1:" + port + "/test?user=postgres&connectTimeout=1");
        config.setConnectionTimeout(300);
        config.setInitializationFailTimeout(-1);
        config.setMinimumIdle(0);
        return new HikariDataSource(config);
    }

    @Test
    void overARoutedStoreTheUpkeepRunsShardByShardAndPromotesTheLiveShardsWaiterWithTheOtherDown()
            throws IOException {
        Assumptions.assumeTrue(System.getenv("SLOTBOOK_TEST_POSTGRES_URL") != null
                        || "true".equals(System.getenv("SLOTBOOK_TEST_REQUIRE_SERVICES")),
                "needs SLOTBOOK_TEST_POSTGRES_URL");
        HikariConfig liveConfig = new HikariConfig();
        liveConfig.setJdbcUrl(System.getenv("SLOTBOOK_TEST_POSTGRES_URL"));
        liveConfig.setMaximumPoolSize(4);
        livePool = new HikariDataSource(liveConfig);
        deadPool = deadPool();
        JdbcSchema.create(livePool, PREFIX);
        try (HikariDataSource live = livePool; HikariDataSource dead = deadPool) {
            try {
                runner.withUserConfiguration(Shards.class).run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context).hasSingleBean(ShardedUpkeep.class).doesNotHaveBean(ReconciliationJob.class);
                    assertThat(context.getBean(BookingStore.class)).isInstanceOf(TenantRoutedStore.class);
                    BookingEngine engine = context.getBean(BookingEngine.class);
                    SlotId slot = SlotId.of("yoga");
                    Instant start = Instant.now().plus(Duration.ofDays(2)).truncatedTo(ChronoUnit.HOURS);
                    engine.schedule(TENANT, new SlotSpec(slot, CoachId.of("c"), RoomId.of("r"),
                            TimeRange.of(start, Duration.ofHours(1)), 1));
                    assertThat(engine.hold(TENANT, HoldRequest.of(RequestId.random(), slot, StudentId.of("first"))))
                            .isInstanceOf(Held.class);
                    assertThat(engine.hold(TENANT, HoldRequest.of(RequestId.random(), slot, StudentId.of("waiter"))
                            .orWaitlist())).isInstanceOf(Waitlisted.class);
                    Thread.sleep(1_500); // the first hold runs out (hold-ttl 1s, by the database's clock)

                    ShardedUpkeep.Result run = context.getBean(ShardedUpkeep.class).runOnce();

                    assertThat(run.failedShards()).as("the dead shard could not be listed").containsOnlyKeys("dead");
                    assertThat(run.shards()).containsOnlyKeys("live");
                    JdbcTemplate sql = new JdbcTemplate(live);
                    assertThat(sql.queryForList("SELECT student_id || ':' || status FROM " + PREFIX + "booking"
                            + " WHERE tenant_id = ? ORDER BY student_id", String.class, TENANT.value()))
                            .as("the expired hold swept, the waiter promoted to a hold")
                            .isEqualTo(List.of("first:EXPIRED", "waiter:HELD"));
                });
            } finally {
                JdbcSchema.drop(live, PREFIX);
            }
        }
    }

    /** A routed store the context only knows as a BookingStore: start-up fails and names the fix. */
    @Configuration(proxyBeanMethods = false)
    static class RoutedAsPlainStore {
        @Bean
        BookingStore routedStore() {
            return TenantRoutedStore.builder().shard("a", InMemoryStore.create()).shard("b", InMemoryStore.create())
                    .build();
        }
    }

    @Test
    void aRoutedStoreDeclaredAsBookingStoreFailsStartUpNamingTheFix() {
        runner.withUserConfiguration(RoutedAsPlainStore.class).run(context -> assertThat(context).getFailure()
                .rootCause().hasMessageContaining("declare its @Bean method's type as TenantRoutedStore"));
    }
}
