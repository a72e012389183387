package org.slotbook.spring;

import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.slotbook.core.outbox.Outbox;

/**
 * The outbox relay of the Spring Boot starter: {@link Outbox#start} on a daemon thread of its own, from
 * {@link #start()} until {@link #close()}.
 */
public final class SlotbookOutboxRelay implements AutoCloseable {
    private final Outbox outbox;
    private final Duration interval;
    private ScheduledExecutorService scheduler;
    private AutoCloseable schedule;

    /**
     * A relay of {@code outbox}, a pass every {@code interval}.
     *
     * @param outbox the engine's outbox
     * @param interval the delay between the end of one pass and the start of the next
     */
    public SlotbookOutboxRelay(Outbox outbox, Duration interval) {
        this.outbox = outbox;
        this.interval = interval;
    }

    /** Starts the passes. */
    public synchronized void start() {
        if (scheduler != null) {
            return;
        }
        scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "slotbook-outbox-relay");
            t.setDaemon(true);
            return t;
        });
        schedule = outbox.start(scheduler, interval);
    }

    /** {@return the outbox this relay delivers} */
    public Outbox outbox() {
        return outbox;
    }

    /** Stops the passes (a pass under way ends first). */
    @Override
    public synchronized void close() throws Exception {
        if (scheduler == null) {
            return;
        }
        schedule.close();
        scheduler.shutdown();
        scheduler = null;
    }
}
