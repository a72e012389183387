package org.slotbook.examples.bench;

import java.util.function.Function;

/** Command-line flag values for the example mains, with messages that name the flag and the value. */
public final class Flags {
    private Flags() {
    }

    /** The value after {@code flag} at {@code args[i]}. */
    public static String value(String[] args, int i, String flag) {
        if (i >= args.length || args[i].startsWith("--")) {
            throw new IllegalArgumentException(flag + " needs a value");
        }
        return args[i];
    }

    /** The whole number after {@code flag} at {@code args[i]}, within {@code min..max}. */
    public static int number(String[] args, int i, String flag, int min, int max) {
        String text = value(args, i, flag);
        int n;
        try {
            n = Integer.parseInt(text);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(flag + " must be a number, got '" + text + "'");
        }
        if (n < min || n > max) {
            throw new IllegalArgumentException(flag + " must be between " + min + " and " + max + ", got " + n);
        }
        return n;
    }

    /**
     * What {@code parse} makes of a main's {@code args}; when it refuses them, prints
     * {@code "<program>: <reason>"} and {@code usage} to standard error and exits with status 2.
     */
    public static <T> T parseOrExit(String program, String usage, Function<String[], T> parse, String[] args) {
        try {
            return parse.apply(args);
        } catch (IllegalArgumentException e) {
            System.err.println(program + ": " + e.getMessage());
            System.err.println(usage);
            System.exit(2);
            throw new IllegalStateException("exited", e);
        }
    }
}
