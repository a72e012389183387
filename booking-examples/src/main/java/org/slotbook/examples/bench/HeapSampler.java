package org.slotbook.examples.bench;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** Used heap right after a full GC, sampled every {@code every} while the mix runs. */
final class HeapSampler {
    private final Duration every;
    private final List<Double> samples = new ArrayList<>();
    private Thread thread;
    private volatile boolean running;

    HeapSampler(Duration every) {
        this.every = every;
    }

    void start() {
        running = true;
        sample();
        thread = new Thread(() -> {
            while (running) {
                try {
                    Thread.sleep(every.toMillis());
                } catch (InterruptedException e) {
                    return;
                }
                if (running) {
                    sample();
                }
            }
        }, "bench-heap-sampler");
        thread.setDaemon(true);
        thread.start();
    }

    void stop() throws InterruptedException {
        running = false;
        thread.interrupt();
        thread.join();
        sample();
    }

    private void sample() {
        System.gc();
        double used = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed() / (1024.0 * 1024.0);
        synchronized (samples) {
            samples.add(used);
        }
    }

    List<Double> samples() {
        synchronized (samples) {
            return List.copyOf(samples);
        }
    }
}
