package org.slotbook.examples.bench;

/**
 * The capacity line of one database: holds on a slot of {@value CapacityLine#SMALL_SEATS} seats and
 * on a large slot, interleaved on the same threads. Each hold is followed by a cancel (not timed) that
 * frees its seat, so every hold on the small slot finds one too. The rate of a size is its holds
 * divided by the time the threads spent in them; {@link #ratio()} is the cost of a hold at the large
 * size over its cost at the small one.
 */
public record Capacity(String backend, int largeSeats, Result small, Result large) {
    public double ratio() {
        return small.decisionsPerSecond() / large.decisionsPerSecond();
    }
}
