package org.slotbook.spring;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Registers Slotbook's Jackson module with Spring Boot's JSON mapper: {@link SlotbookJacksonModule}
 * where Jackson 2 is present (Spring Boot 3), {@link SlotbookJackson3Module} where Jackson 3 is
 * (Spring Boot 4), each only there; off with {@code slotbook.jackson.enabled=false}.
 */
@AutoConfiguration(beforeName = {"org.springframework.boot.autoconfigure.jackson.JacksonAutoConfiguration",
        "org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration",
        "org.springframework.boot.jackson2.autoconfigure.Jackson2AutoConfiguration"})
@ConditionalOnClass(name = "org.slotbook.core.BookingEngine")
@ConditionalOnProperty(prefix = "slotbook.jackson", name = "enabled", matchIfMissing = true)
public class SlotbookJacksonAutoConfiguration {

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "com.fasterxml.jackson.databind.ObjectMapper")
    static class Jackson2 {
        @Bean
        @ConditionalOnMissingBean
        SlotbookJacksonModule slotbookJacksonModule() {
            return new SlotbookJacksonModule();
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "tools.jackson.databind.json.JsonMapper")
    static class Jackson3 {
        @Bean
        @ConditionalOnMissingBean
        SlotbookJackson3Module slotbookJackson3Module() {
            return new SlotbookJackson3Module();
        }
    }
}
