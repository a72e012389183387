package org.slotbook.spring;

import java.time.Duration;
import java.util.List;
import javax.sql.DataSource;
import java.util.function.Function;
import org.slotbook.core.BookingEngine;
import org.slotbook.core.BookingRules;
import org.slotbook.core.BookingListener;
import org.slotbook.core.EngineObserver;
import org.slotbook.core.HoldPolicy;
import org.slotbook.core.ReconcileReport;
import org.slotbook.core.ReconciliationJob;
import org.slotbook.core.TenantId;
import org.slotbook.core.outbox.OutboxSettings;
import org.slotbook.core.shard.ShardedUpkeep;
import org.slotbook.core.shard.TenantRoutedStore;
import org.slotbook.core.spi.BookingStore;
import org.slotbook.core.spi.SeatReservation;
import org.slotbook.jdbc.JdbcDialect;
import org.slotbook.jdbc.JdbcSchema;
import org.slotbook.jdbc.JdbcStore;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.sql.init.dependency.DependsOnDatabaseInitialization;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.core.env.Environment;
import org.springframework.core.io.ResourceLoader;
import org.springframework.jdbc.datasource.TransactionAwareDataSourceProxy;
import org.springframework.util.ClassUtils;

/**
 * Slotbook on the application's DataSource: the store ({@link JdbcStore}, refusing calls inside a
 * host transaction, see {@link HostTransactionGuard}), the Redis gate when one is configured, the
 * engine, and the scheduled upkeep over every tenant of the store. Every bean backs off when the
 * application defines its own.
 */
@AutoConfiguration(afterName = {
        // Spring Boot 3.5
        "org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration",
        "org.springframework.boot.autoconfigure.flyway.FlywayAutoConfiguration",
        "org.springframework.boot.autoconfigure.data.redis.RedisAutoConfiguration",
        // Spring Boot 4
        "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
        "org.springframework.boot.flyway.autoconfigure.FlywayAutoConfiguration",
        "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration"})
@ConditionalOnClass({BookingEngine.class, JdbcStore.class, TransactionAwareDataSourceProxy.class})
@ConditionalOnBean(DataSource.class)
@ConditionalOnProperty(prefix = "slotbook", name = "enabled", matchIfMissing = true)
@EnableConfigurationProperties(SlotbookProperties.class)
@Import(SlotbookRedisConfiguration.class)
public class SlotbookAutoConfiguration {

    /**
     * The JDBC store on the application's DataSource (a {@link TransactionAwareDataSourceProxy} is
     * unwrapped: the store commits each decision on a connection of its own). Created after the
     * database is initialized (Spring Boot's Flyway, Liquibase, SQL scripts); then runs Slotbook's
     * migration unless {@code slotbook.flyway.enabled=false} or Spring Boot's Flyway runs it (its
     * location in {@code spring.flyway.locations}), and checks the schema.
     *
     * @param dataSource the host's database
     * @param properties the slotbook.* properties
     * @param environment the application's environment (Spring Boot's Flyway settings)
     * @param resources the application's resource loader
     * @param customizers changes to the store's builder, in order
     * @return the store, guarded against host transactions
     */
    @Bean
    @ConditionalOnMissingBean(BookingStore.class)
    @DependsOnDatabaseInitialization
    public HostTransactionGuard slotbookStore(DataSource dataSource, SlotbookProperties properties,
                                              Environment environment, ResourceLoader resources,
                                              ObjectProvider<SlotbookStoreCustomizer> customizers) {
        DataSource target = unwrap(dataSource);
        SlotbookProperties.Jdbc jdbc = properties.jdbc();
        JdbcDialect dialect = JdbcSchema.detect(target);
        boolean flyway = ClassUtils.isPresent("org.flywaydb.core.Flyway", resources.getClassLoader());
        if (properties.flyway().enabled() && !(flyway && bootFlywayRunsSlotbook(environment))) {
            if (!flyway) {
                throw new SlotbookStartupException("slotbook.flyway.enabled is true (the default) but Flyway is not"
                        + " on the class path, so Slotbook's migration cannot run.", "Add org.flywaydb:flyway-core"
                        + " (with flyway-database-postgresql or flyway-mysql), or set slotbook.flyway.enabled=false"
                        + " and create the schema another way (JdbcSchema.create, your migration tool).");
            }
            SlotbookMigrations.migrate(target, dialect, jdbc.tablePrefix());
        }
        if (jdbc.validateSchema()) {
            SlotbookSchema.validate(target, dialect, jdbc.tablePrefix());
        }
        if (jdbc.holdLanes() < 0 || jdbc.holdLanes() > JdbcStore.MAX_HOLD_LANES) {
            throw new IllegalArgumentException("slotbook.jdbc.hold-lanes must be between 0 and "
                    + JdbcStore.MAX_HOLD_LANES + ", got " + jdbc.holdLanes());
        }
        JdbcStore.Builder builder = JdbcStore.builder(target).dialect(dialect).tablePrefix(jdbc.tablePrefix())
                .maxRetries(jdbc.maxRetries()).holdLanes(jdbc.holdLanes());
        customizers.orderedStream().forEach(c -> c.customize(builder));
        return new HostTransactionGuard(builder.build());
    }

    /** Spring Boot's own Flyway is on and lists Slotbook's location: it has run the migration already. */
    static boolean bootFlywayRunsSlotbook(Environment environment) {
        if (!environment.getProperty("spring.flyway.enabled", Boolean.class, true)) {
            return false;
        }
        return Binder.get(environment).bind("spring.flyway.locations", Bindable.listOf(String.class))
                .orElse(List.of()).stream().anyMatch(l -> l.contains(SlotbookSchema.MIGRATIONS));
    }

    static DataSource unwrap(DataSource dataSource) {
        DataSource current = dataSource;
        while (current instanceof TransactionAwareDataSourceProxy proxy && proxy.getTargetDataSource() != null) {
            current = proxy.getTargetDataSource();
        }
        return current;
    }

    /**
     * The engine on the store, with the gate, observers and listeners the application defines, and the
     * slotbook.* rules and hold policy.
     *
     * @param store the store of record
     * @param properties the slotbook.* properties
     * @param gate the application's seat gate, if it defines one (none: DB-only)
     * @param observers the observers the application defines
     * @param listener the application's listeners, told about every event
     * @param rules the application's rules bean, if any, else the slotbook.* rules
     * @param rulesByTenant the application's rules per tenant, if it defines them
     * @param customizers changes to the engine's builder, in order
     * @param publisher publishes each booking event as a Spring event when slotbook.outbox.spring-events is set
     * @return the engine
     */
    @Bean
    @ConditionalOnMissingBean
    @DependsOnDatabaseInitialization
    public BookingEngine slotbookEngine(BookingStore store, SlotbookProperties properties,
                                        ObjectProvider<SeatReservation> gate,
                                        ObjectProvider<EngineObserver> observers,
                                        ObjectProvider<BookingListener> listener,
                                        ObjectProvider<BookingRules> rules,
                                        ObjectProvider<Function<TenantId, BookingRules>> rulesByTenant,
                                        ObjectProvider<SlotbookEngineCustomizer> customizers,
                                        ApplicationEventPublisher publisher) {
        BookingEngine.Builder builder = BookingEngine.builder()
                .store(store)
                .holdPolicy(HoldPolicy.ofDefaults().withHoldTtl(properties.holdTtl()))
                .maxSessionDuration(properties.maxSessionDuration())
                .rules(properties.rules().toBookingRules());
        rules.ifUnique(builder::rules);
        rulesByTenant.ifUnique(builder::rules);
        gate.ifUnique(builder::reservation);
        listener.ifUnique(builder::listener);
        SlotbookProperties.Outbox outbox = properties.outbox();
        builder.outbox(OutboxSettings.defaults().withRetries(outbox.maxAttempts(), outbox.firstBackoff(),
                Duration.ofMinutes(5)).withRetention(outbox.retention()));
        if (outbox.springEvents()) {
            builder.listener(new SpringEventsListener(listener.getIfUnique(() -> BookingListener.NONE), publisher));
        }
        List<EngineObserver> all = observers.orderedStream().toList();
        if (!all.isEmpty()) {
            builder.observer(all.size() == 1 ? all.get(0) : new Observers(all));
        }
        customizers.orderedStream().forEach(c -> c.customize(builder));
        return builder.build();
    }

    /**
     * Sweeps expired holds and reconciles the gate, for every tenant of the store, every
     * {@code slotbook.upkeep.interval}. Not over a {@link TenantRoutedStore} bean: see
     * {@link #slotbookShardedUpkeep}.
     *
     * @param engine the booking engine whose upkeep this is
     * @param store the engine's store
     * @param properties the slotbook.* properties
     * @return the job, started by Spring and stopped with the context
     */
    @Bean(initMethod = "start", destroyMethod = "close")
    @ConditionalOnMissingBean({ReconciliationJob.class, ShardedUpkeep.class, TenantRoutedStore.class})
    @ConditionalOnProperty(prefix = "slotbook.upkeep", name = "enabled", matchIfMissing = true)
    public ReconciliationJob slotbookUpkeep(BookingEngine engine, BookingStore store, SlotbookProperties properties) {
        if (store instanceof TenantRoutedStore) {
            // one job over all shards would stop at the first shard that is down
            throw new IllegalStateException("the BookingStore bean is a TenantRoutedStore declared as BookingStore:"
                    + " declare its @Bean method's type as TenantRoutedStore, so that the upkeep runs shard by shard"
                    + " (ShardedUpkeep)");
        }
        return ReconciliationJob.builder(engine)
                .interval(properties.upkeep().interval())
                .sweepBatch(properties.upkeep().sweepBatch())
                .build();
    }

    /**
     * The upkeep over a {@link TenantRoutedStore} bean: one job per shard, each listing only its own
     * shard's tenants on a thread of its own ({@link ShardedUpkeep}), so a shard that is down never stops
     * the sweep, the promotions and the reconciliation of the others.
     *
     * @param engine the booking engine whose upkeep this is
     * @param store the routed store
     * @param properties the slotbook.* properties
     * @return the upkeep, started by Spring and stopped with the context
     */
    @Bean(initMethod = "start", destroyMethod = "close")
    @ConditionalOnBean(TenantRoutedStore.class)
    @ConditionalOnMissingBean({ReconciliationJob.class, ShardedUpkeep.class})
    @ConditionalOnProperty(prefix = "slotbook.upkeep", name = "enabled", matchIfMissing = true)
    public ShardedUpkeep slotbookShardedUpkeep(BookingEngine engine, TenantRoutedStore store,
                                               SlotbookProperties properties) {
        return ShardedUpkeep.builder(engine, store)
                .interval(properties.upkeep().interval())
                .sweepBatch(properties.upkeep().sweepBatch())
                .build();
    }

    /**
     * The outbox relay on this node: every {@code slotbook.outbox.interval} it records what this node's
     * listener heard right after its commits and delivers every event nobody delivered, on a daemon thread of
     * its own (see {@link org.slotbook.core.outbox.Outbox}).
     *
     * @param engine the booking engine whose events it delivers
     * @param properties the slotbook.* properties
     * @return the relay, started by Spring and stopped with the context
     */
    @Bean(initMethod = "start", destroyMethod = "close")
    @ConditionalOnMissingBean
    @ConditionalOnProperty(prefix = "slotbook.outbox", name = "enabled", matchIfMissing = true)
    public SlotbookOutboxRelay slotbookOutboxRelay(BookingEngine engine, SlotbookProperties properties) {
        return new SlotbookOutboxRelay(engine.outbox(), properties.outbox().interval());
    }

    /** Several observers, each told in turn. */
    private record Observers(List<EngineObserver> all) implements EngineObserver {
        @Override
        public void operationFinished(String operation, String outcome, long nanos) {
            all.forEach(o -> o.operationFinished(operation, outcome, nanos));
        }

        @Override
        public void gateDecision(org.slotbook.core.spi.GateOutcome outcome) {
            all.forEach(o -> o.gateDecision(outcome));
        }

        @Override
        public void gateUnavailable(String call) {
            all.forEach(o -> o.gateUnavailable(call));
        }

        @Override
        public void reconciled(TenantId tenantId, ReconcileReport report) {
            all.forEach(o -> o.reconciled(tenantId, report));
        }

        @Override
        public void swept(TenantId tenantId, int expired) {
            all.forEach(o -> o.swept(tenantId, expired));
        }
    }
}
