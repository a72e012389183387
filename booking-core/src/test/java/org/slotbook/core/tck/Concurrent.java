package org.slotbook.core.tck;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntFunction;

/**
 * Runs tasks on many threads released at the same instant, and fails on a timeout or a task's exception.
 *
 * <ul>
 *   <li>{@link #run(int, IntFunction)}, {@link #runAll}: one task per thread.</li>
 *   <li>{@link #run(int, int, Task)}, {@link #call(int, List)}: more tasks than threads, each thread taking
 *       the next task when it is done with one, as a fixed pool would.</li>
 *   <li>{@link #call(List)}: given calls, each on its own thread.</li>
 *   <li>{@link #load}: a timed load, every thread repeating its step until the time is up.</li>
 * </ul>
 * Results come back in task order, whatever order the tasks finished in.
 */
public final class Concurrent {
    /** How long one concurrent run may take (beyond a load's own duration) before the test fails. */
    public static final Duration TIMEOUT = Duration.ofSeconds(120);

    private Concurrent() {
    }

    /** A task of {@link #run(int, int, Task)}, told its index; it may throw. */
    @FunctionalInterface
    public interface Task<T> {
        T call(int index) throws Exception;
    }

    /** A task of {@link #runAll}. */
    @FunctionalInterface
    public interface IntConsumerTask {
        void accept(int index);
    }

    /** One step of a {@link #load}: answers whether it counts and the thread goes on. */
    @FunctionalInterface
    public interface Step {
        boolean run() throws Exception;
    }

    /**
     * Runs {@code task(0) .. task(threads - 1)}, each on its own thread, all started together, and
     * returns their results in task order. The first exception a task throws fails the run.
     */
    public static <T> List<T> run(int threads, IntFunction<T> task) {
        return run(threads, threads, task::apply);
    }

    /** {@link #run} for tasks without a result. */
    public static void runAll(int threads, IntConsumerTask task) {
        run(threads, i -> {
            task.accept(i);
            return null;
        });
    }

    /** Runs every call on its own thread, all started together; returns their results in list order. */
    public static <T> List<T> call(List<? extends Callable<T>> calls) {
        return call(calls.size(), calls);
    }

    /** Runs the calls on {@code threads} threads started together; returns their results in list order. */
    public static <T> List<T> call(int threads, List<? extends Callable<T>> calls) {
        return run(threads, calls.size(), i -> calls.get(i).call());
    }

    /**
     * Runs {@code task(0) .. task(tasks - 1)} on {@code threads} threads, all started together; a thread
     * done with one task takes the next one not yet taken. Returns the results in task order. The first
     * exception a task throws fails the run.
     */
    public static <T> List<T> run(int threads, int tasks, Task<T> task) {
        if (threads < 1 || tasks < 0) {
            throw new IllegalArgumentException("threads " + threads + ", tasks " + tasks);
        }
        int workers = Math.min(threads, Math.max(tasks, 1));
        Object[] results = new Object[tasks];
        AtomicInteger next = new AtomicInteger(workers);
        onThreads(workers, TIMEOUT, worker -> {
            // thread w runs task w first: with no more tasks than threads, each task has a thread of its own
            for (int i = worker; i < tasks; i = next.getAndIncrement()) {
                try {
                    results[i] = task.call(i);
                } catch (Exception | Error e) {
                    next.set(tasks); // the others take no further task
                    throw e;
                }
            }
            return 0L;
        }, () -> { });
        @SuppressWarnings("unchecked")
        List<T> list = new ArrayList<>((List<T>) Arrays.asList(results));
        return list;
    }

    /**
     * A timed load: {@code threads} threads, started together, each running {@code step} again and again
     * until {@code duration} has passed, or until the step answers false (which stops that thread and
     * is not counted). Returns how many steps answered true, over all threads.
     */
    public static long load(int threads, Duration duration, Step step) {
        long nanos = duration.toNanos();
        long[] deadline = new long[1];
        List<Long> counts = onThreads(threads, TIMEOUT.plus(duration), worker -> {
            long done = 0;
            while (System.nanoTime() - deadline[0] < 0 && step.run()) {
                done++;
            }
            return done;
        }, () -> deadline[0] = System.nanoTime() + nanos);
        return counts.stream().mapToLong(Long::longValue).sum();
    }

    /**
     * Starts {@code threads} threads running {@code worker} (told the thread's number), waits until all
     * are ready, runs {@code atStart}, releases them together and returns each thread's answer.
     */
    private static List<Long> onThreads(int threads, Duration timeout, Task<Long> worker, Runnable atStart) {
        AtomicInteger names = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(threads, r -> {
            Thread t = new Thread(r, "slotbook-tck-" + names.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        CountDownLatch ready = new CountDownLatch(threads);
        CountDownLatch go = new CountDownLatch(1);
        try {
            List<Future<Long>> futures = new ArrayList<>(threads);
            for (int i = 0; i < threads; i++) {
                int number = i;
                futures.add(pool.submit(() -> {
                    ready.countDown();
                    go.await();
                    return worker.call(number);
                }));
            }
            if (!ready.await(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new AssertionError("threads did not start within " + timeout);
            }
            atStart.run();
            go.countDown();
            long deadline = System.nanoTime() + timeout.toNanos();
            List<Long> answers = new ArrayList<>(threads);
            for (Future<Long> f : futures) {
                try {
                    answers.add(f.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS));
                } catch (ExecutionException e) {
                    throw new AssertionError("a concurrent task failed: " + e.getCause(), e.getCause());
                } catch (TimeoutException e) {
                    throw new AssertionError("concurrent tasks did not finish within " + timeout, e);
                }
            }
            return answers;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        } finally {
            pool.shutdownNow();
        }
    }

    // ---------------------------------------------------------------- load: many operations on a few threads

    /** {@link #load(int, int, Operation, Progress)} without a progress callback. */
    public static Load load(int threads, int count, Operation operation) {
        return load(threads, count, operation, done -> { });
    }

    /**
     * Runs operations {@code 0 .. count - 1} on {@code threads} threads started together, each thread
     * taking the next index until none is left. An operation that throws (an assertion error too) is
     * counted by its class and the run goes on: the test decides which failures it allows.
     * {@code afterEach} sees how many operations have finished, which is where a test injects its
     * faults; when it throws, or the run takes longer than {@link #TIMEOUT}, the run fails.
     */
    public static Load load(int threads, int count, Operation operation, Progress afterEach) {
        AtomicInteger next = new AtomicInteger();
        AtomicInteger done = new AtomicInteger();
        java.util.Map<String, java.util.concurrent.atomic.LongAdder> thrown =
                new java.util.concurrent.ConcurrentHashMap<>();
        List<Throwable> samples = java.util.Collections.synchronizedList(new ArrayList<>());
        run(threads, threads, t -> {
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
