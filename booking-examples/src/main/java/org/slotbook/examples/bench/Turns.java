package org.slotbook.examples.bench;

/**
 * A line of one workload, prepared once and then measured in turns that alternate with the other
 * lines of that workload (see {@link Suite}), so that a slow or busy spell of the machine falls on
 * every line alike instead of on whichever line ran then.
 */
interface Turns {
    /** Runs the workload's requests {@code from} (inclusive) to {@code to} (exclusive). */
    Measured run(int from, int to) throws Exception;

    /** The line's result from what all its turns counted, with what is checked afterwards (by SQL). */
    Result finish(Measured all) throws Exception;
}
