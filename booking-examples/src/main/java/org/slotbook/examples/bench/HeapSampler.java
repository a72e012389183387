package org.slotbook.examples.bench;

import com.sun.management.GarbageCollectionNotificationInfo;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import javax.management.ListenerNotFoundException;
import javax.management.Notification;
import javax.management.NotificationEmitter;
import javax.management.NotificationListener;
import javax.management.openmbean.CompositeData;

/**
 * Used heap after GC while the mix runs: right after a full GC at the start and at the end (outside the
 * measurement), and in between, every {@code every}, the heap left by the latest collection the JVM made
 * on its own (forcing one there would stop every client thread inside the measured time).
 */
final class HeapSampler {
    private final Duration every;
    private final List<Double> samples = new ArrayList<>();
    private final NotificationListener onGc = this::collected;
    private final Set<String> heapPools = ManagementFactory.getMemoryPoolMXBeans().stream()
            .filter(p -> p.getType() == MemoryType.HEAP).map(MemoryPoolMXBean::getName).collect(Collectors.toSet());
    private volatile double lastAfterGc = Double.NaN;
    private Thread thread;
    private volatile boolean running;

    HeapSampler(Duration every) {
        this.every = every;
    }

    void start() {
        running = true;
        add(fullGc());
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            if (gc instanceof NotificationEmitter emitter) {
                emitter.addNotificationListener(onGc, null, null);
            }
        }
        thread = new Thread(() -> {
            while (running) {
                try {
                    Thread.sleep(every.toMillis());
                } catch (InterruptedException e) {
                    return;
                }
                if (running && !Double.isNaN(lastAfterGc)) {
                    add(lastAfterGc);
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
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            if (gc instanceof NotificationEmitter emitter) {
                try {
                    emitter.removeNotificationListener(onGc);
                } catch (ListenerNotFoundException e) {
                    // not added
                }
            }
        }
        add(fullGc());
    }

    private void collected(Notification n, Object handback) {
        if (!GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION.equals(n.getType())) {
            return;
        }
        GarbageCollectionNotificationInfo info = GarbageCollectionNotificationInfo.from((CompositeData) n.getUserData());
        long used = 0;
        for (Map.Entry<String, MemoryUsage> pool : info.getGcInfo().getMemoryUsageAfterGc().entrySet()) {
            if (heapPools.contains(pool.getKey())) {
                used += pool.getValue().getUsed();
            }
        }
        lastAfterGc = used / (1024.0 * 1024.0);
    }

    private static double fullGc() {
        System.gc();
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed() / (1024.0 * 1024.0);
    }

    private void add(double megabytes) {
        synchronized (samples) {
            samples.add(megabytes);
        }
    }

    List<Double> samples() {
        synchronized (samples) {
            return List.copyOf(samples);
        }
    }
}
