package org.slotbook.examples.bench;

import java.util.SplittableRandom;

/**
 * One workload of a run as a hold line sees it: its name ({@code hot}, {@code spread}), how many slots
 * of how many seats, how many hold requests on how many client threads, and the run's tag, which makes
 * its rows and keys its own.
 */
record Workload(String name, String tag, int slots, int seats, int requests, int threads) {

    /** The hot slot (one slot, every student) or the spread (slots picked at random), sized by {@code sizes}. */
    static Workload of(String name, String tag, Options sizes) {
        boolean hot = name.equals("hot");
        return new Workload(name, tag, hot ? 1 : sizes.slots(), sizes.seats(), hot ? sizes.students() : sizes.requests(),
                sizes.threads());
    }

    /** The hot slot: every student on one slot. */
    boolean hot() {
        return name.equals("hot");
    }

    /** This workload's id in the benchmark's own tables. */
    String runId() {
        return tag + "-" + name;
    }

    /** For each request, the slot it asks for: the one slot, or one picked at random from {@code seed}. */
    int[] picks(long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        int[] pick = new int[requests];
        for (int i = 0; i < requests; i++) {
            pick[i] = slots == 1 ? 0 : random.nextInt(slots);
        }
        return pick;
    }
}
