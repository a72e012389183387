package org.slotbook.spring;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.NoSuchBeanDefinitionException;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.condition.ConditionEvaluationReport;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * When start-up fails for want of a Slotbook bean ({@code BookingEngine}, {@code BookingStore}, ...),
 * says why the starter did not provide it: the conditions of its auto-configuration that did not
 * match (no DataSource bean, {@code slotbook.enabled=false}, a class missing), read from Spring Boot's
 * condition report, and what to change. Never a bare "required a bean of type ... that could not be found".
 */
public class SlotbookMissingBeanFailureAnalyzer extends AbstractFailureAnalyzer<NoSuchBeanDefinitionException> {
    private static final String AUTO_CONFIGURATION = SlotbookAutoConfiguration.class.getName();

    private final @Nullable ConfigurableListableBeanFactory beanFactory;

    /**
     * An analyzer that reads the condition report of the failed application context.
     *
     * @param beanFactory the failed context's bean factory, which Spring Boot passes in
     */
    public SlotbookMissingBeanFailureAnalyzer(BeanFactory beanFactory) {
        this.beanFactory = beanFactory instanceof ConfigurableListableBeanFactory listable ? listable : null;
    }

    @Override
    protected @Nullable FailureAnalysis analyze(Throwable rootFailure, NoSuchBeanDefinitionException cause) {
        Class<?> type = cause.getBeanType();
        if (type == null || !type.getName().startsWith("org.slotbook.")) {
            return null;
        }
        List<String> reasons = new ArrayList<>();
        if (beanFactory != null) {
            ConditionEvaluationReport report = ConditionEvaluationReport.get(beanFactory);
            for (Map.Entry<String, ConditionEvaluationReport.ConditionAndOutcomes> entry
                    : report.getConditionAndOutcomesBySource().entrySet()) {
                if (entry.getKey().startsWith(AUTO_CONFIGURATION)) {
                    entry.getValue().forEach(c -> {
                        if (!c.getOutcome().isMatch()) {
                            reasons.add(entry.getKey().substring(AUTO_CONFIGURATION.length()).replace("#", "")
                                    + (entry.getKey().equals(AUTO_CONFIGURATION) ? "" : ": ")
                                    + c.getOutcome().getMessage());
                        }
                    });
                }
            }
            if (!report.getExclusions().stream().filter(e -> e.startsWith("org.slotbook.")).toList().isEmpty()) {
                reasons.add("it is excluded: " + report.getExclusions());
            }
        }
        String description = "A bean of type " + type.getName() + " is required, and Slotbook's auto-configuration"
                + " did not provide it" + (reasons.isEmpty() ? "." : ": " + String.join("; ", reasons) + ".");
        String action = "Slotbook's starter builds its store and engine on the application's DataSource: give the"
                + " application one (spring.datasource.url with a JDBC driver on the class path), leave"
                + " slotbook.enabled unset or true, or define a " + type.getSimpleName() + " bean of your own.";
        return new FailureAnalysis(description, action, cause);
    }
}
