package org.slotbook.spring;

/**
 * Slotbook cannot start as configured: its schema is missing, a dependency it needs is absent, or the
 * Spring Boot on the class path is one it does not support. Start-up fails with it, and Spring Boot's
 * failure analysis prints its description and the action that fixes it
 * ({@link SlotbookFailureAnalyzer}), never a silent back-off.
 */
public class SlotbookStartupException extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    /** What to change. */
    private final String action;

    /**
     * An exception that says what is wrong and what fixes it.
     *
     * @param description what is wrong
     * @param action what to change
     */
    public SlotbookStartupException(String description, String action) {
        super(description + " Action: " + action);
        this.action = action;
        this.description = description;
    }

    /** What is wrong. */
    private final String description;

    /** {@return what is wrong} */
    public String description() {
        return description;
    }

    /** {@return what to change} */
    public String action() {
        return action;
    }
}
