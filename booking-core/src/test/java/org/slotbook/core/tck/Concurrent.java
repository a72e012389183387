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
            if (!ready.await(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new AssertionError("threads did not start within " + TIMEOUT);
            }
            go.countDown();
            long deadline = System.nanoTime() + TIMEOUT.toNanos();
            List<T> results = new ArrayList<>(threads);
            for (Future<T> f : futures) {
                try {
                    results.add(f.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS));
                } catch (ExecutionException e) {
                    throw new AssertionError("a concurrent task failed: " + e.getCause(), e.getCause());
                } catch (TimeoutException e) {
                    throw new AssertionError("concurrent tasks did not finish within " + TIMEOUT, e);
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
}
