package org.slotbook.examples.bench;

/** One measured line of one workload. {@code oversold} and {@code doubleBooked} are null where not counted. */
public record Result(String workload, String line, String backend, int threads, long decisions, long holds,
                     long errors, double seconds, double p50Millis, double p99Millis, double maxMillis,
                     Long oversold, Long doubleBooked, String note) {
    public double decisionsPerSecond() {
        return decisions / seconds;
    }

    public double holdsPerSecond() {
        return holds / seconds;
    }

    public boolean isSlotbook() {
        return line.startsWith("Slotbook");
    }

    public boolean isCeiling() {
        return line.startsWith("ceiling");
    }

    /** The line and its backend, as the tables show it: {@code Slotbook DB-only (PostgreSQL)}. */
    public String label() {
        return line + " (" + backend + ")";
    }
}
