package org.slotbook.spring;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.UUID;
import javax.sql.DataSource;
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
import org.slotbook.core.memory.InMemoryStore;
import org.slotbook.core.spi.BookingStore;
import org.slotbook.core.spi.SeatReservation;
import org.slotbook.jdbc.JdbcSchema;
import org.slotbook.redis.RedisSeatReservation;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.jackson.JacksonAutoConfiguration;
import org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.boot.actuate.health.Health;
import org.springframework.boot.actuate.health.Status;

/** The auto-configuration's beans, conditions and start-up checks, on H2 in memory. */
class SlotbookAutoConfigurationTest {
    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
                    JacksonAutoConfiguration.class, SlotbookAutoConfiguration.class,
                    SlotbookObservabilityAutoConfiguration.class, SlotbookJacksonAutoConfiguration.class))
            .withPropertyValues("spring.datasource.url=jdbc:h2:mem:ac-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1",
                    "slotbook.upkeep.interval=1h");

    @Test
    void providesStoreEngineAndUpkeepOnTheApplicationsDataSource() {
        runner.withPropertyValues("slotbook.flyway.enabled=true").run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context).hasSingleBean(BookingEngine.class).hasSingleBean(ReconciliationJob.class)
                    .hasSingleBean(BookingStore.class).doesNotHaveBean(SeatReservation.class);
            assertThat(context.getBean(BookingStore.class)).isInstanceOf(HostTransactionGuard.class);
            BookingEngine engine = context.getBean(BookingEngine.class);
            TenantId tenant = TenantId.of("ac");
            Instant start = Instant.now().plus(Duration.ofDays(2)).truncatedTo(ChronoUnit.HOURS);
            engine.schedule(tenant, new SlotSpec(SlotId.of("s"), CoachId.of("c"), RoomId.of("r"),
                    TimeRange.of(start, Duration.ofHours(1)), 3));
            assertThat(engine.hold(tenant, HoldRequest.of(RequestId.random(), SlotId.of("s"), StudentId.of("a"))))
                    .isInstanceOf(Held.class);
            // the booking is in the application's database, in the migrated tables
            JdbcTemplate sql = new JdbcTemplate(context.getBean(DataSource.class));
            assertThat(sql.queryForObject("SELECT COUNT(*) FROM slotbook_booking WHERE tenant_id = 'ac'",
                    Integer.class)).isEqualTo(1);
            assertThat(sql.queryForObject("SELECT COUNT(*) FROM \"slotbook_schema_history\" WHERE \"success\""
                    + " AND \"script\" = 'R__slotbook.sql'", Integer.class)).isEqualTo(1);
        });
    }

    @Test
    void bookingRulesComeFromPropertiesAndAreDecidedByTheStore() {
        runner.withPropertyValues("slotbook.flyway.enabled=true", "slotbook.rules.cancel-cutoff=12h",
                "slotbook.rules.late-cancel=refuse", "slotbook.rules.max-upcoming=1").run(context -> {
            assertThat(context).hasNotFailed();
            BookingEngine engine = context.getBean(BookingEngine.class);
            TenantId tenant = TenantId.of("rules-" + UUID.randomUUID());
            Instant start = Instant.now().plus(Duration.ofHours(6)).truncatedTo(ChronoUnit.SECONDS);
            for (String slot : new String[] {"a", "b"}) {
                engine.schedule(tenant, new SlotSpec(SlotId.of(slot), CoachId.of("c" + slot), RoomId.of("r" + slot),
                        TimeRange.of(start.plus(Duration.ofHours(slot.equals("a") ? 0 : 2)), Duration.ofHours(1)), 3));
            }
            org.slotbook.core.Booking a = ((Held) engine.book(tenant, HoldRequest.of(RequestId.random(),
                    SlotId.of("a"), StudentId.of("s")))).booking();
            assertThat(engine.book(tenant, HoldRequest.of(RequestId.random(), SlotId.of("b"), StudentId.of("s"))))
                    .isEqualTo(new org.slotbook.core.LimitReached(org.slotbook.core.LimitReached.Limit.UPCOMING, 1));
            assertThat(engine.cancel(tenant, a.bookingId(), a.studentId()))
                    .as("six hours before, within the 12 h cutoff").isInstanceOf(org.slotbook.core.TooLateToCancel.class);
        });
        runner.withPropertyValues("slotbook.flyway.enabled=true", "slotbook.rules.cancel-cutoff=1h",
                "slotbook.rules.late-cancel=sometimes").run(context -> {
            assertThat(context).hasFailed();
            assertThat(allMessages(context.getStartupFailure())).contains("slotbook.rules.late-cancel", "sometimes");
        });
    }

    @Test
    void attendanceAndCreditRulesComeFromProperties() {
        SlotbookProperties.Rules props = new Binder(new MapConfigurationPropertySource(java.util.Map.of(
                "slotbook.rules.check-in-opens-before", "45m", "slotbook.rules.check-in-closes-after-end", "10m",
                "slotbook.rules.mark-no-shows", "true", "slotbook.rules.credits-drawn", "at-check-in")))
                .bindOrCreate("slotbook.rules", SlotbookProperties.Rules.class);
        org.slotbook.core.BookingRules rules = props.toBookingRules();
        assertThat(rules.checkInOpensBefore()).isEqualTo(Duration.ofMinutes(45));
        assertThat(rules.checkInClosesAfterEnd()).isEqualTo(Duration.ofMinutes(10));
        assertThat(rules.marksNoShows()).isTrue();
        assertThat(rules.credits()).isEqualTo(org.slotbook.core.CreditPolicy.AT_CHECK_IN);
        // the defaults, as binding applies them when no property is set
        assertThat(new Binder(new MapConfigurationPropertySource())
                .bindOrCreate("slotbook.rules", SlotbookProperties.Rules.class).toBookingRules())
                .isEqualTo(org.slotbook.core.BookingRules.defaults());
        runner.withPropertyValues("slotbook.flyway.enabled=true", "slotbook.rules.credits-drawn=later").run(context -> {
            assertThat(context).hasFailed();
            assertThat(allMessages(context.getStartupFailure())).contains("slotbook.rules.credits-drawn", "later");
        });
    }

    @Test
    void startUpFailsNamingWhatIsMissingFromTheSchema() {
        runner.withPropertyValues("slotbook.flyway.enabled=false").run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).rootCause()
                    .hasMessageContaining("missing table slotbook_slot")
                    .hasMessageContaining("routine slotbook_hold")
                    .hasMessageContaining("slotbook.flyway.enabled=true");
            org.springframework.boot.diagnostics.FailureAnalysis analysis =
                    new SlotbookFailureAnalyzer().analyze(context.getStartupFailure());
            assertThat(analysis.getDescription()).contains("missing table slotbook_slot");
            assertThat(analysis.getAction()).contains("spring.flyway.locations",
                    "classpath:org/slotbook/jdbc/migration/{vendor}", "spring.flyway.placeholders.slotbook_prefix=slotbook_");
        });
    }

    @Test
    void withoutFlywayOnTheClassPathTheDefaultFailsNamingTheFix() {
        runner.withClassLoader(new org.springframework.boot.test.context.FilteredClassLoader("org.flywaydb"))
                .run(context -> {
                    assertThat(context).hasFailed();
                    org.springframework.boot.diagnostics.FailureAnalysis analysis =
                            new SlotbookFailureAnalyzer().analyze(context.getStartupFailure());
                    assertThat(analysis.getDescription()).contains("Flyway is not on the class path");
                    assertThat(analysis.getAction()).contains("org.flywaydb:flyway-core", "slotbook.flyway.enabled=false");
                });
    }

    @Test
    void customizersChangeOneSettingOfEachBuilder() {
        java.util.List<String> applied = new java.util.concurrent.CopyOnWriteArrayList<>();
        runner.withBean("storeCustomizer", SlotbookStoreCustomizer.class,
                        () -> builder -> { applied.add("store"); builder.maxRetries(3); })
                .withBean("engineCustomizer", SlotbookEngineCustomizer.class,
                        () -> builder -> { applied.add("engine"); builder.holdPolicy(org.slotbook.core.HoldPolicy.ofMinutes(3)); })
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(applied).containsExactly("store", "engine");
                    BookingEngine engine = context.getBean(BookingEngine.class);
                    TenantId tenant = TenantId.of("cust");
                    Instant start = Instant.now().plus(Duration.ofDays(2)).truncatedTo(ChronoUnit.HOURS);
                    engine.schedule(tenant, new SlotSpec(SlotId.of("s"), CoachId.of("c"), RoomId.of("r"),
                            TimeRange.of(start, Duration.ofHours(1)), 3));
                    Instant before = Instant.now();
                    org.slotbook.core.Booking held = ((Held) engine.hold(tenant, HoldRequest.of(RequestId.random(),
                            SlotId.of("s"), StudentId.of("a")))).booking();
                    assertThat(held.heldUntil()).as("the customized 3 minute hold, not the 10 minute default")
                            .isBefore(before.plus(Duration.ofMinutes(5)));
                });
    }

    @Test
    void aDroppedColumnOrRoutineIsNamed() {
        runner.withPropertyValues("slotbook.jdbc.validate-schema=false").run(context -> {
            DataSource dataSource = context.getBean(DataSource.class);
            JdbcSchema.create(dataSource, "chk_");
            JdbcTemplate sql = new JdbcTemplate(dataSource);
            sql.execute("ALTER TABLE chk_booking DROP COLUMN updated_at");
            sql.execute("DROP ALIAS chk_cancel");
            assertThat(SlotbookSchema.missing(dataSource, org.slotbook.jdbc.JdbcDialect.H2, "chk_"))
                    .containsExactly("column chk_booking.updated_at", "routine chk_cancel");
        });
    }

    @Test
    void backsOffForTheApplicationsOwnBeans() {
        InMemoryStore own = InMemoryStore.create();
        runner.withPropertyValues("slotbook.upkeep.enabled=false")
                .withBean(BookingStore.class, () -> own)
                .run(context -> {
                    assertThat(context).hasNotFailed().doesNotHaveBean(ReconciliationJob.class);
                    assertThat(context.getBean(BookingStore.class)).isSameAs(own);
                });
        runner.withPropertyValues("slotbook.enabled=false")
                .run(context -> assertThat(context).doesNotHaveBean(BookingEngine.class));
    }

    @Test
    void buildsTheRedisGateFromItsUrl() {
        String url = System.getenv().getOrDefault("SLOTBOOK_TEST_REDIS_URL", "redis://127.0.0.1:6379");
        runner.withPropertyValues("slotbook.flyway.enabled=true", "slotbook.redis.url=" + url,
                "slotbook.redis.key-prefix=ac-" + UUID.randomUUID() + ":").run(context -> {
                    assertThat(context).hasNotFailed().hasSingleBean(RedisSeatReservation.class);
                    assertThat(context.getBean("slotbookJedis")).isNotNull();
                });
    }

    @Test
    void theGateTakesItsPipelineLanesFromTheProperties() {
        String url = System.getenv().getOrDefault("SLOTBOOK_TEST_REDIS_URL", "redis://127.0.0.1:6379");
        String prefix = "slotbook.redis.key-prefix=acl-" + UUID.randomUUID() + ":";
        runner.withPropertyValues("slotbook.flyway.enabled=true", "slotbook.redis.url=" + url, prefix)
                .run(context -> assertThat(context.getBean(RedisSeatReservation.class).pipelineLanes()).isEqualTo(2));
        runner.withPropertyValues("slotbook.flyway.enabled=true", "slotbook.redis.url=" + url, prefix,
                "slotbook.redis.pipeline-lanes=0")
                .run(context -> assertThat(context.getBean(RedisSeatReservation.class).pipelineLanes()).isZero());
        runner.withPropertyValues("slotbook.flyway.enabled=true", "slotbook.redis.url=" + url, prefix,
                "slotbook.redis.pipeline-lanes=65").run(context -> assertThat(context).hasFailed()
                        .getFailure().rootCause()
                        .hasMessage("slotbook.redis.pipeline-lanes must be between 0 and 64, got 65"));
    }

    @Test
    void aGateCustomizerChangesTheGateBuilderAfterTheProperties() {
        String url = System.getenv().getOrDefault("SLOTBOOK_TEST_REDIS_URL", "redis://127.0.0.1:6379");
        String customized = "acg-" + UUID.randomUUID() + ":";
        runner.withPropertyValues("slotbook.flyway.enabled=true", "slotbook.redis.url=" + url,
                        "slotbook.redis.key-prefix=acp-" + UUID.randomUUID() + ":", "slotbook.redis.pipeline-lanes=3")
                .withBean("gateCustomizer", SlotbookGateCustomizer.class,
                        () -> builder -> builder.keyPrefix(customized).pipelineLanes(0))
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    RedisSeatReservation gate = context.getBean(RedisSeatReservation.class);
                    assertThat(gate.pipelineLanes()).as("the customizer's 0, not the property's 3").isZero();
                    assertThat(gate.keyPattern()).as("the customizer's key prefix").startsWith(customized);
                });
    }

    @Test
    void holdLanesOutOfRangeFailTheContextNamingTheProperty() {
        runner.withPropertyValues("slotbook.flyway.enabled=true", "slotbook.jdbc.hold-lanes=0")
                .run(context -> assertThat(context).hasNotFailed());
        runner.withPropertyValues("slotbook.flyway.enabled=true", "slotbook.jdbc.hold-lanes=65")
                .run(context -> assertThat(context).hasFailed().getFailure().rootCause()
                        .hasMessage("slotbook.jdbc.hold-lanes must be between 0 and 64, got 65"));
    }

    @Test
    void bindsTheEngineToAMeterRegistry() {
        runner.withPropertyValues("slotbook.flyway.enabled=true")
                .withBean(MeterRegistry.class, SimpleMeterRegistry::new).run(context -> {
                    assertThat(context).hasSingleBean(MicrometerEngineObserver.class);
                    BookingEngine engine = context.getBean(BookingEngine.class);
                    engine.availability(TenantId.of("m"), SlotId.of("none"));
                    assertThat(context.getBean(MeterRegistry.class).get("slotbook.engine.calls")
                            .tag("operation", "availability").tag("outcome", "NotFound").timer().count())
                            .isEqualTo(1);
                });
    }

    @Test
    void registersTheJacksonModule() {
        runner.withPropertyValues("slotbook.flyway.enabled=true").run(context -> {
            ObjectMapper mapper = context.getBean(ObjectMapper.class);
            assertThat(mapper.writeValueAsString(TenantId.of("t1"))).isEqualTo("\"t1\"");
        });
    }

    @Test
    void healthStaysUpWithTheGateDegradedWhileRedisIsDown() {
        // nothing listens on port 1: every gate call fails at once
        runner.withPropertyValues("slotbook.flyway.enabled=true", "slotbook.redis.url=redis://127.0.0.1:1")
                .run(context -> {
                    Health health = context.getBean(SlotbookHealthIndicator.class).health();
                    assertThat(health.getStatus()).isEqualTo(Status.UP);
                    assertThat(health.getDetails().get("gate").toString()).contains("status=degraded");
                    // and booking goes on from the database alone
                    BookingEngine engine = context.getBean(BookingEngine.class);
                    TenantId tenant = TenantId.of("down");
                    Instant start = Instant.now().plus(Duration.ofDays(2)).truncatedTo(ChronoUnit.HOURS);
                    engine.schedule(tenant, new SlotSpec(SlotId.of("s"), CoachId.of("c"), RoomId.of("r"),
                            TimeRange.of(start, Duration.ofHours(1)), 1));
                    assertThat(engine.hold(tenant, HoldRequest.of(RequestId.random(), SlotId.of("s"),
                            StudentId.of("a")))).isInstanceOf(Held.class);
                    assertThat(new JdbcTemplate(context.getBean(DataSource.class)).queryForObject(
                            "SELECT COUNT(*) FROM slotbook_booking WHERE tenant_id = 'down'", Integer.class))
                            .isEqualTo(1);
                });
    }

    @Test
    void healthIsDownWhenTheLedgerCannotBeRead() {
        runner.withPropertyValues("slotbook.flyway.enabled=false", "slotbook.jdbc.validate-schema=false").run(context -> {
            Health health = context.getBean(SlotbookHealthIndicator.class).health();
            assertThat(health.getStatus()).isEqualTo(Status.DOWN);
            assertThat(health.getDetails().get("ledger").toString()).contains("status=DOWN");
        });
    }

    @Test
    void aTransactionAwareProxyIsUnwrapped() {
        DataSource plain = new org.springframework.jdbc.datasource.DriverManagerDataSource("jdbc:h2:mem:x");
        assertThat(SlotbookAutoConfiguration.unwrap(
                new org.springframework.jdbc.datasource.TransactionAwareDataSourceProxy(plain))).isSameAs(plain);
        assertThat(SlotbookAutoConfiguration.unwrap(plain)).isSameAs(plain);
    }

    @Test
    void buildsTheRedisGateFromSpringBootsRedisConnectionDetails() {
        java.net.URI redis = java.net.URI.create(
                System.getenv().getOrDefault("SLOTBOOK_TEST_REDIS_URL", "redis://127.0.0.1:6379"));
        org.springframework.boot.autoconfigure.data.redis.RedisConnectionDetails details =
                new org.springframework.boot.autoconfigure.data.redis.RedisConnectionDetails() {
                    @Override
                    public Standalone getStandalone() {
                        return Standalone.of(redis.getHost(), redis.getPort());
                    }
                };
        String keyPrefix = "acd-" + UUID.randomUUID() + ":";
        runner.withPropertyValues("slotbook.flyway.enabled=true", "slotbook.redis.key-prefix=" + keyPrefix)
                .withBean(org.springframework.boot.autoconfigure.data.redis.RedisConnectionDetails.class, () -> details)
                .run(context -> {
                    assertThat(context).hasNotFailed().hasSingleBean(RedisSeatReservation.class);
                    BookingEngine engine = context.getBean(BookingEngine.class);
                    TenantId tenant = TenantId.of("cd");
                    Instant start = Instant.now().plus(Duration.ofDays(2)).truncatedTo(ChronoUnit.HOURS);
                    engine.schedule(tenant, new SlotSpec(SlotId.of("s"), CoachId.of("c"), RoomId.of("r"),
                            TimeRange.of(start, Duration.ofHours(1)), 2));
                    engine.hold(tenant, HoldRequest.of(RequestId.random(), SlotId.of("s"), StudentId.of("a")));
                    // the hold is in Redis, under the configured prefix
                    assertThat(context.getBean(SeatReservation.class).inspect(tenant, SlotId.of("s")).orElseThrow()
                            .holders()).hasSize(1);
                    assertThat(context.getBean(RedisSeatReservation.class).keyPrefix()).isEqualTo(keyPrefix);
                });
        runner.withPropertyValues("slotbook.flyway.enabled=true", "slotbook.redis.enabled=false")
                .withBean(org.springframework.boot.autoconfigure.data.redis.RedisConnectionDetails.class, () -> details)
                .run(context -> assertThat(context).doesNotHaveBean(SeatReservation.class));
    }

    @Test
    void theBomNamesEveryPublishedModule() throws Exception {
        String root = java.nio.file.Files.readString(java.nio.file.Path.of("../pom.xml"));
        String bom = java.nio.file.Files.readString(java.nio.file.Path.of("../slotbook-bom/pom.xml"));
        // the reactor's own modules; a profile's modules (the Spring Boot test applications) are not published
        String modules = root.substring(0, root.indexOf("<profiles>"));
        java.util.regex.Matcher module = java.util.regex.Pattern.compile("<module>([^<]+)</module>").matcher(modules);
        int named = 0;
        while (module.find()) {
            String name = module.group(1);
            if (name.equals("slotbook-bom") || name.equals("booking-examples")) {
                continue;
            }
            assertThat(bom).as("slotbook-bom names " + name).contains("<artifactId>" + name + "</artifactId>");
            named++;
        }
        assertThat(named).isEqualTo(4);
    }

    private static String allMessages(Throwable failure) {
        StringBuilder all = new StringBuilder();
        for (Throwable t = failure; t != null; t = t.getCause()) {
            all.append(t.getMessage()).append('\n');
        }
        return all.toString();
    }

    @Test
    void theConfigurationMetadataIsPlainTextWithTypedValuesAndHints() throws Exception {
        com.fasterxml.jackson.databind.JsonNode metadata;
        try (java.io.InputStream in = getClass().getClassLoader()
                .getResourceAsStream("META-INF/spring-configuration-metadata.json")) {
            metadata = new ObjectMapper().readTree(in);
        }
        java.util.Map<String, String> types = new java.util.HashMap<>();
        for (com.fasterxml.jackson.databind.JsonNode property : metadata.get("properties")) {
            String description = property.path("description").asText("");
            assertThat(description).as(property.get("name").asText()).isNotBlank()
                    .doesNotContain("{@").doesNotContain("<");
            types.put(property.get("name").asText(), property.get("type").asText());
        }
        assertThat(types).containsEntry("slotbook.rules.week-zone", "java.time.ZoneId")
                .containsEntry("slotbook.rules.late-cancel", "org.slotbook.spring.SlotbookProperties$LateCancel")
                .containsEntry("slotbook.rules.credits-drawn", "org.slotbook.core.CreditPolicy")
                .containsEntry("slotbook.hold-ttl", "java.time.Duration");
        java.util.Set<String> hinted = new java.util.HashSet<>();
        metadata.get("hints").forEach(h -> hinted.add(h.get("name").asText()));
        assertThat(hinted).contains("slotbook.rules.late-cancel", "slotbook.rules.credits-drawn",
                "slotbook.rules.week-zone");
    }

    /** A host bean that needs the engine. */
    record NeedsEngine(BookingEngine engine) {
    }

    @Test
    void withoutADataSourceStartUpFailsSayingWhyTheStarterProvidedNoEngine() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(SlotbookAutoConfiguration.class))
                .withBean(NeedsEngine.class)
                .run(context -> {
                    assertThat(context).hasFailed();
                    org.springframework.boot.diagnostics.FailureAnalysis analysis =
                            new SlotbookMissingBeanFailureAnalyzer(new org.springframework.beans.factory.support
                                    .DefaultListableBeanFactory()).analyze(context.getStartupFailure());
                    assertThat(analysis).as("a failure analysis, not a silent back-off").isNotNull();
                    assertThat(analysis.getDescription()).contains("org.slotbook.core.BookingEngine",
                            "did not provide it");
                    assertThat(analysis.getAction()).contains("DataSource", "slotbook.enabled");
                });
        // a bean of another library's is not Slotbook's to explain
        assertThat(new SlotbookMissingBeanFailureAnalyzer(new org.springframework.beans.factory.support
                .DefaultListableBeanFactory()).analyze(new org.springframework.beans.factory
                .NoSuchBeanDefinitionException(String.class))).isNull();
    }
}
