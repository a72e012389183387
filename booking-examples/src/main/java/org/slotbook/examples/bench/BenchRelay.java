package org.slotbook.examples.bench;

import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.slotbook.core.BookingEngine;

/**
 * With the system property {@code slotbook.bench.relay=<milliseconds>}, runs the outbox relay of a benchmark's
 * engine on a daemon thread every that many milliseconds, so that a line measures the decisions together with
 * the recording of their events' delivery (without it the events are written, and nobody relays them).
 */
final class BenchRelay {
    private BenchRelay() {
    }

    static BookingEngine startIfAsked(BookingEngine engine) {
        String every = System.getProperty("slotbook.bench.relay");
        if (every != null && !every.isBlank()) {
            ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "bench-outbox-relay");
                t.setDaemon(true);
                return t;
            });
            engine.outbox().start(scheduler, Duration.ofMillis(Long.parseLong(every.trim())));
        }
        return engine;
    }
}
