package org.slotbook.spring;

import io.micrometer.core.instrument.MeterRegistry;
import org.slotbook.core.BookingEngine;
import org.slotbook.core.spi.BookingStore;
import org.slotbook.core.spi.SeatReservation;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.health.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** Slotbook's Micrometer meters and its health contributor ({@code slotbook}), when Actuator is present. */
@AutoConfiguration(after = SlotbookAutoConfiguration.class,
        afterName = {"org.springframework.boot.actuate.autoconfigure.metrics.CompositeMeterRegistryAutoConfiguration",
                "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration"},
        beforeName = {"org.springframework.boot.actuate.autoconfigure.health.HealthContributorAutoConfiguration",
                "org.springframework.boot.health.autoconfigure.contributor.HealthContributorAutoConfiguration"})
public class SlotbookObservabilityAutoConfiguration {

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(MeterRegistry.class)
    @ConditionalOnBean(MeterRegistry.class)
    @EnableConfigurationProperties(SlotbookProperties.class)
    static class Metrics {
        @Bean
        @ConditionalOnMissingBean
        MicrometerEngineObserver slotbookMetrics(MeterRegistry registry, SlotbookProperties properties) {
            return new MicrometerEngineObserver(registry, properties.metrics().histogram());
        }

        @Bean
        @ConditionalOnMissingBean
        SlotbookOutboxMeters slotbookOutboxMeters(ObjectProvider<BookingEngine> engine) {
            return new SlotbookOutboxMeters(engine);
        }
    }

    /** Spring Boot 3's health API. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.boot.actuate.health.AbstractHealthIndicator")
    @ConditionalOnBean(BookingStore.class)
    @ConditionalOnEnabledHealthIndicator("slotbook")
    static class HealthCheck {
        @Bean
        @ConditionalOnMissingBean(name = "slotbookHealthIndicator")
        SlotbookHealthIndicator slotbookHealthIndicator(BookingStore store, ObjectProvider<SeatReservation> gate) {
            return new SlotbookHealthIndicator(store, gate.getIfUnique());
        }
    }

    /** Spring Boot 4's health API ({@code org.springframework.boot.health}). */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.boot.health.contributor.AbstractHealthIndicator")
    @ConditionalOnBean(BookingStore.class)
    @org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator("slotbook")
    static class Boot4HealthCheck {
        @Bean
        @ConditionalOnMissingBean(name = "slotbookHealthIndicator")
        SlotbookBoot4HealthIndicator slotbookHealthIndicator(BookingStore store, ObjectProvider<SeatReservation> gate) {
            return new SlotbookBoot4HealthIndicator(store, gate.getIfUnique());
        }
    }
}
