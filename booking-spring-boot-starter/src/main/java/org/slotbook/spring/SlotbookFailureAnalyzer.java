package org.slotbook.spring;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Prints a {@link SlotbookStartupException} as Spring Boot prints every failed start-up: what is wrong, and the action. */
public class SlotbookFailureAnalyzer extends AbstractFailureAnalyzer<SlotbookStartupException> {
    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, SlotbookStartupException cause) {
        return new FailureAnalysis("Slotbook could not start: " + cause.description(), cause.action(), cause);
    }
}
