package org.slotbook.jdbc.internal;

import org.slotbook.core.InvalidInputException;
import java.util.regex.Pattern;

/** Table names under one prefix. The prefix is validated, since it is spliced into SQL text. */
public record Tables(String prefix) {
    public static final String DEFAULT_PREFIX = "slotbook_";
    private static final Pattern VALID = Pattern.compile("[a-z_][a-z0-9_]{0,23}|");

    public Tables {
        prefix = checkPrefix(prefix);
    }

    public static String checkPrefix(String prefix) {
        if (prefix == null) {
            throw new InvalidInputException("tablePrefix must not be null");
        }
        if (!VALID.matcher(prefix).matches()) {
            throw new InvalidInputException("tablePrefix must be empty or up to 24 characters of a-z, 0-9 and _,"
                    + " not starting with a digit, got '" + prefix + "'");
        }
        return prefix;
    }

    public String slot() {
        return prefix + "slot";
    }

    public String seat() {
        return prefix + "slot_seat";
    }

    public String booking() {
        return prefix + "booking";
    }

    public String occupancy() {
        return prefix + "occupancy";
    }

    public String waiter() {
        return prefix + "waiter";
    }

    public String lessonPackage() {
        return prefix + "lesson_package";
    }

    public String creditEntry() {
        return prefix + "credit_entry";
    }

    public String lock() {
        return prefix + "resource_lock";
    }
}
