package org.slotbook.core.tck.faults;

import java.util.ArrayList;
import java.util.List;

/**
 * Invariant violations found by one scenario. Checks record what they find instead of failing at the
 * first one, so the summary line can count them; {@link #assertNone} fails the test afterwards.
 */
public final class Violations {
    private final List<String> found = new ArrayList<>();

    public synchronized void check(boolean holds, String format, Object... args) {
        if (!holds) {
            found.add(String.format(format, args));
        }
    }

    public synchronized void add(String format, Object... args) {
        found.add(String.format(format, args));
    }

    public synchronized int count() {
        return found.size();
    }

    public synchronized void assertNone(String scenario) {
        if (!found.isEmpty()) {
            StringBuilder message = new StringBuilder(scenario).append(": ").append(found.size())
                    .append(" invariant violation(s):");
            found.stream().limit(20).forEach(v -> message.append("\n  - ").append(v));
            if (found.size() > 20) {
                message.append("\n  ... and ").append(found.size() - 20).append(" more");
            }
            throw new AssertionError(message.toString());
        }
    }
}
