package org.slotbook.redis.faults;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/**
 * Runs {@code count} client operations from a fixed number of threads released together. An
 * operation that throws is counted by exception type (the scenario decides which types are
 * allowed); {@code afterEach} sees the running number of finished operations, which is where a
 * scenario injects its faults.
 */
final class Workload {
    private Workload() {
    }

    @FunctionalInterface
    interface Operation {
        void run(int index) throws Exception;
    }

    @FunctionalInterface
    interface Progress {
        void finished(int done) throws Exception;
    }

    /** What a run saw. */
    record Result(int operations, Map<String, Long> thrown, List<Throwable> samples) {
        long thrownTotal() {
            return thrown.values().stream().mapToLong(Long::longValue).sum();
        }

        long thrownOtherThan(Class<?> allowed) {
            return thrown.entrySet().stream().filter(e -> !e.getKey().equals(allowed.getName()))
                    .mapToLong(Map.Entry::getValue).sum();
        }
    }

    static Result run(int threads, int count, Operation operation) {
        return run(threads, count, operation, done -> { });
    }

    static Result run(int threads, int count, Operation operation, Progress afterEach) {
        AtomicInteger next = new AtomicInteger();
        AtomicInteger done = new AtomicInteger();
        Map<String, LongAdder> thrown = new ConcurrentHashMap<>();
        List<Throwable> samples = java.util.Collections.synchronizedList(new ArrayList<>());
        CountDownLatch go = new CountDownLatch(1);
        AtomicInteger names = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(threads, r -> {
            Thread t = new Thread(r, "fault-client-" + names.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        try {
            List<Future<?>> futures = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                futures.add(pool.submit(() -> {
                    go.await();
                    for (int i = next.getAndIncrement(); i < count; i = next.getAndIncrement()) {
                        try {
                            operation.run(i);
                        } catch (Throwable e) {
                            thrown.computeIfAbsent(e.getClass().getName(), k -> new LongAdder()).increment();
                            if (samples.size() < 5) {
                                samples.add(e);
                            }
                        }
                        afterEach.finished(done.incrementAndGet());
                    }
                    return null;
                }));
            }
            go.countDown();
            for (Future<?> f : futures) {
                f.get(120, TimeUnit.SECONDS);
            }
        } catch (Exception e) {
            throw new AssertionError("workload did not complete: " + e, e);
        } finally {
            pool.shutdownNow();
        }
        Map<String, Long> counts = new java.util.TreeMap<>();
        thrown.forEach((k, v) -> counts.put(k, v.sum()));
        return new Result(done.get(), counts, List.copyOf(samples));
    }
}
