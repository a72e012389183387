package org.slotbook.core.tck.faults;

/**
 * A server a fault scenario owns and breaks: a process it started itself (never a shared server),
 * which it kills, stops and starts again by this handle. {@link FaultSuite} brings every one of its
 * {@linkplain FaultSuite#servers() servers} back before and after each test.
 */
public interface ServerProcess {
    /** Whether the process runs. */
    boolean isAlive();

    /** Starts the process (again, after {@link #kill()} or {@link #stop()}) and waits until it answers. */
    void start();

    /** Kills the process at once: its clients see their connections drop in the middle of whatever they do. */
    void kill();

    /** Stops the process the orderly way and waits for it. */
    void stop();
}
