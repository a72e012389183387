package org.slotbook.spring;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;

/** Registers {@link SlotbookJacksonModule} with Spring Boot's ObjectMapper; off with {@code slotbook.jackson.enabled=false}. */
@AutoConfiguration(beforeName = "org.springframework.boot.autoconfigure.jackson.JacksonAutoConfiguration")
@ConditionalOnClass(name = {"com.fasterxml.jackson.databind.ObjectMapper", "org.slotbook.core.BookingEngine"})
@ConditionalOnProperty(prefix = "slotbook.jackson", name = "enabled", matchIfMissing = true)
public class SlotbookJacksonAutoConfiguration {
    /** {@return the Jackson module for Slotbook's results and ids} */
    @Bean
    @ConditionalOnMissingBean
    public SlotbookJacksonModule slotbookJacksonModule() {
        return new SlotbookJacksonModule();
    }
}
