package org.slotbook.spring.web;

import org.slotbook.spring.SlotbookProperties;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * {@link SlotbookProblemDetails} in a servlet web application; off with {@code slotbook.web.enabled=false},
 * and left out when the application defines a bean of that type itself.
 */
@AutoConfiguration
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnClass(name = {"org.springframework.http.ProblemDetail", "org.slotbook.core.BookingEngine"})
@ConditionalOnProperty(prefix = "slotbook.web", name = "enabled", matchIfMissing = true)
@EnableConfigurationProperties(SlotbookProperties.class)
public class SlotbookWebAutoConfiguration {
    /**
     * The problem details advice, unless the application defines its own.
     *
     * @param properties the slotbook.* properties ({@code slotbook.web.retry-after})
     * @return the advice
     */
    @Bean
    @ConditionalOnMissingBean
    public SlotbookProblemDetails slotbookProblemDetails(SlotbookProperties properties) {
        return new SlotbookProblemDetails(properties.web().retryAfter());
    }
}
