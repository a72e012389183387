package org.slotbook.examples;

/** Command-line flag values for the example mains, with messages that name the flag and the value. */
final class Flags {
    private Flags() {
    }

    /** The value after {@code flag} at {@code args[i]}. */
    static String value(String[] args, int i, String flag) {
        if (i >= args.length || args[i].startsWith("--")) {
            throw new IllegalArgumentException(flag + " needs a value");
        }
        return args[i];
    }

    /** The whole number after {@code flag} at {@code args[i]}, within {@code min..max}. */
    static int number(String[] args, int i, String flag, int min, int max) {
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
}
