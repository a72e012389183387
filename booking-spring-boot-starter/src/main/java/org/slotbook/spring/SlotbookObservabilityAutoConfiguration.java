package org.slotbook.spring;

import io.micrometer.core.instrument.MeterRegistry;
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
        afterName = "org.springframework.boot.actuate.autoconfigure.metrics.CompositeMeterRegistryAutoConfiguration",
        beforeName = "org.springframework.boot.actuate.autoconfigure.health.HealthContributorAutoConfiguration")
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
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.boot.actuate.health.HealthIndicator")
    @ConditionalOnBean(BookingStore.class)
    @ConditionalOnEnabledHealthIndicator("slotbook")
    static class HealthCheck {
        @Bean
        @ConditionalOnMissingBean(name = "slotbookHealthIndicator")
        SlotbookHealthIndicator slotbookHealthIndicator(BookingStore store, ObjectProvider<SeatReservation> gate) {
            return new SlotbookHealthIndicator(store, gate.getIfUnique());
        }
    }
}
