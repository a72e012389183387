package org.slotbook.core.tck;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntFunction;

/** Runs tasks on many threads released at the same instant, and fails on a timeout or a task's exception. */
public final class Concurrent {
    /** How long one concurrent run may take before the test fails. */
    public static final Duration TIMEOUT = Duration.ofSeconds(60);

    private Concurrent() {
    }

    /**
     * Runs {@code task(0) .. task(threads - 1)}, each on its own thread, all started together, and
     * returns their results in task order. The first exception a task throws fails the run.
     */
    public static <T> List<T> run(int threads, IntFunction<T> task) {
        return run(threads, TIMEOUT, task);
    }

    private static <T> List<T> run(int threads, Duration timeout, IntFunction<T> task) {
        AtomicInteger names = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(threads, r -> {
            Thread t = new Thread(r, "slotbook-tck-" + names.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        CountDownLatch ready = new CountDownLatch(threads);
        CountDownLatch go = new CountDownLatch(1);
        try {
            List<Future<T>> futures = new ArrayList<>(threads);
            for (int i = 0; i < threads; i++) {
                int index = i;
                futures.add(pool.submit(() -> {
                    ready.countDown();
                    go.await();
                    return task.apply(index);
                }));
            }
            if (!ready.await(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new AssertionError("threads did not start within " + timeout);
            }
            go.countDown();
            long deadline = System.nanoTime() + timeout.toNanos();
            List<T> results = new ArrayList<>(threads);
            for (Future<T> f : futures) {
                try {
                    results.add(f.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS));
                } catch (ExecutionException e) {
                    throw new AssertionError("a concurrent task failed: " + e.getCause(), e.getCause());
                } catch (TimeoutException e) {
                    throw new AssertionError("concurrent tasks did not finish within " + timeout, e);
                }
            }
            return results;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        } finally {
            pool.shutdownNow();
        }
    }

    /** {@link #run} for tasks without a result. */
    public static void runAll(int threads, IntConsumerTask task) {
        run(threads, i -> {
            task.accept(i);
            return null;
        });
    }

    /** A task of {@link #runAll}. */
    @FunctionalInterface
    public interface IntConsumerTask {
        void accept(int index);
    }

    // ---------------------------------------------------------------- load: many operations on a few threads

    /** How long one {@link #load} run may take before the test fails. */
    public static final Duration LOAD_TIMEOUT = Duration.ofSeconds(120);

    /** {@link #load(int, int, Operation, Progress)} without a progress callback. */
    public static Load load(int threads, int count, Operation operation) {
        return load(threads, count, operation, done -> { });
    }

    /**
     * Runs operations {@code 0 .. count - 1} on {@code threads} threads started together, each thread
     * taking the next index until none is left. An operation that throws (an assertion error too) is
     * counted by its class and the run goes on: the test decides which failures it allows.
     * {@code afterEach} sees how many operations have finished, which is where a test injects its
     * faults; when it throws, or the run takes longer than {@link #LOAD_TIMEOUT}, the run fails.
     */
    public static Load load(int threads, int count, Operation operation, Progress afterEach) {
        AtomicInteger next = new AtomicInteger();
        AtomicInteger done = new AtomicInteger();
        java.util.Map<String, java.util.concurrent.atomic.LongAdder> thrown =
                new java.util.concurrent.ConcurrentHashMap<>();
        List<Throwable> samples = java.util.Collections.synchronizedList(new ArrayList<>());
        run(threads, LOAD_TIMEOUT, t -> {
            for (int i = next.getAndIncrement(); i < count; i = next.getAndIncrement()) {
                try {
                    operation.run(i);
                } catch (Throwable e) {
                    thrown.computeIfAbsent(e.getClass().getName(), k -> new java.util.concurrent.atomic.LongAdder())
                            .increment();
                    if (samples.size() < 5) {
                        samples.add(e);
                    }
                }
                try {
                    afterEach.finished(done.incrementAndGet());
                } catch (Exception e) {
                    throw new IllegalStateException("the progress callback failed: " + e, e);
                }
            }
            return null;
        });
        java.util.Map<String, Long> counts = new java.util.TreeMap<>();
        thrown.forEach((k, v) -> counts.put(k, v.sum()));
        return new Load(done.get(), counts, List.copyOf(samples));
    }

    /** One operation of a {@link #load} run. */
    @FunctionalInterface
    public interface Operation {
        void run(int index) throws Exception;
    }

    /** Sees the running count of finished operations of a {@link #load} run. */
    @FunctionalInterface
    public interface Progress {
        void finished(int done) throws Exception;
    }

    /** What a {@link #load} run saw: the operations finished, and what they threw, by exception class. */
    public record Load(int operations, java.util.Map<String, Long> thrown, List<Throwable> samples) {
        public long thrownTotal() {
            return thrown.values().stream().mapToLong(Long::longValue).sum();
        }
    }
}
