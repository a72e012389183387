package org.slotbook.examples.bench;

/**
 * The flags of every main that opens {@link Backends}, read into one place: {@code --jdbc URL} (the
 * ledger database; H2 in memory without it), {@code --redis URL} (the gate; an embedded Redis without
 * it) and {@code --no-redis} (no gate).
 */
public final class ServerFlags {
    private String jdbc;
    private String redis;
    private boolean noRedis;

    /**
     * Reads the flag at {@code args[i]} and its value, and answers the index of the last argument it
     * used. A flag that is none of these is refused as unknown.
     */
    public int read(String[] args, int i) {
        String flag = args[i];
        switch (flag) {
            case "--jdbc" -> jdbc = Flags.value(args, ++i, flag);
            case "--redis" -> redis = Flags.value(args, ++i, flag);
            case "--no-redis" -> noRedis = true;
            default -> throw new IllegalArgumentException("unknown flag '" + flag + "'");
        }
        if (noRedis && redis != null) {
            throw new IllegalArgumentException("--redis and --no-redis exclude each other");
        }
        return i;
    }

    /** The JDBC URL of the ledger database, or null for H2 in memory. */
    public String jdbc() {
        return jdbc;
    }

    /** The Redis URL of the gate, or null for an embedded Redis (or none, with {@link #noRedis()}). */
    public String redis() {
        return redis;
    }

    public boolean noRedis() {
        return noRedis;
    }
}
