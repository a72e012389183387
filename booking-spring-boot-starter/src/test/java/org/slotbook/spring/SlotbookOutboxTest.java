package org.slotbook.spring;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
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
import org.slotbook.core.outbox.OutboxEvent;
import org.slotbook.core.spi.BookingEvent;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.jackson.JacksonAutoConfiguration;
import org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationListener;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The starter's outbox: the relay bean on every node, the settings from slotbook.outbox.*, Spring events when asked. */
class SlotbookOutboxTest {
    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
                    JacksonAutoConfiguration.class, SlotbookAutoConfiguration.class,
                    SlotbookObservabilityAutoConfiguration.class))
            .withPropertyValues("spring.datasource.url=jdbc:h2:mem:ob-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1",
                    "slotbook.upkeep.interval=1h", "slotbook.flyway.enabled=true");

    /** Records the Spring events it hears. */
    @Configuration(proxyBeanMethods = false)
    static class Heard {
        final List<SlotbookBookingEvent> events = new CopyOnWriteArrayList<>();

        @Bean
        ApplicationListener<SlotbookBookingEvent> slotbookEvents() {
            return events::add;
        }
    }

    private static Held hold(BookingEngine engine, TenantId tenant) {
        Instant start = Instant.now().plus(Duration.ofDays(2)).truncatedTo(ChronoUnit.HOURS);
        engine.schedule(tenant, new SlotSpec(SlotId.of("s"), CoachId.of("c"), RoomId.of("r"),
                TimeRange.of(start, Duration.ofHours(1)), 3));
        return (Held) engine.hold(tenant, HoldRequest.of(RequestId.random(), SlotId.of("s"), StudentId.of("a")));
    }

    @Test
    void runsTheRelayAndPublishesEachEventAsASpringEventWhenAsked() {
        runner.withUserConfiguration(Heard.class)
                .withPropertyValues("slotbook.outbox.spring-events=true", "slotbook.outbox.max-attempts=3",
                        "slotbook.outbox.retention=1d")
                .run(context -> {
                    assertThat(context).hasNotFailed().hasSingleBean(SlotbookOutboxRelay.class);
                    BookingEngine engine = context.getBean(BookingEngine.class);
                    assertThat(engine.outbox().settings().maxAttempts()).isEqualTo(3);
                    assertThat(engine.outbox().settings().retention()).isEqualTo(Duration.ofDays(1));
                    TenantId tenant = TenantId.of("ob-" + UUID.randomUUID());
                    Held held = hold(engine, tenant);

                    List<SlotbookBookingEvent> heard = context.getBean(Heard.class).events;
                    assertThat(heard).hasSize(1);
                    assertThat(heard.get(0).kind()).isEqualTo(BookingEvent.Kind.HELD);
                    assertThat(heard.get(0).booking().bookingId()).isEqualTo(held.booking().bookingId());
                    assertThat(engine.events(tenant, 0, 10)).extracting(OutboxEvent::kind)
                            .containsExactly(BookingEvent.Kind.HELD);
                });
    }

    @Test
    void noSpringEventsUnlessAskedAndNoRelayWhenDisabled() {
        runner.withUserConfiguration(Heard.class).withPropertyValues("slotbook.outbox.enabled=false").run(context -> {
            assertThat(context).hasNotFailed().doesNotHaveBean(SlotbookOutboxRelay.class);
            hold(context.getBean(BookingEngine.class), TenantId.of("ob-" + UUID.randomUUID()));
            assertThat(context.getBean(Heard.class).events).isEmpty();
        });
    }
}
