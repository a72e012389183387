package org.slotbook.examples.bench;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntFunction;
import java.util.function.LongConsumer;

/**
 * The one load driver of the examples' benchmarks and demos: starts its client threads, releases them
 * together on one latch, times every request each thread runs, and counts what they answered into a
 * {@link Measured}. A request that throws is counted as an error (the first one kept) and the thread
 * goes on with its next request.
 *
 * <pre>{@code
 * Measured m = LoadDriver.threads(32).requests(10_000, (thread, i) -> engine.hold(...) instanceof Held);
 * }</pre>
 * Worker threads are named {@code bench-worker-<n>}, which is how the {@link Profiler} finds them.
 */
public final class LoadDriver {
    /** One request of a fixed number: true when it counts as a hit (took a seat). */
    public interface Request {
        boolean run(int thread, int index) throws Exception;
    }

    /** A thread's next request in a timed run: true when it counts as a hit. */
    public interface Step {
        boolean run() throws Exception;
    }

    /** Makes each thread's {@link Step} (and whatever state it keeps), on that thread, before the release. */
    public interface StepFactory {
        Step forThread(int thread);
    }

    /** A worker's next step, or null when it is done. */
    private interface Steps {
        Step next();
    }

    private final int threads;
    private Duration warmup = Duration.ZERO;
    private Duration progressEvery;
    private LongConsumer progress;

    private LoadDriver(int threads) {
        if (threads < 1) {
            throw new IllegalArgumentException("threads must be at least 1, got " + threads);
        }
        this.threads = threads;
    }

    /** A driver of {@code threads} client threads. */
    public static LoadDriver threads(int threads) {
        return new LoadDriver(threads);
    }

    /** {@link #forDuration} only: the threads run this long first, uncounted (except errors), before the measured part. */
    public LoadDriver warmup(Duration warmup) {
        if (warmup == null || warmup.isNegative()) {
            throw new IllegalArgumentException("warmup must be zero or positive, got " + warmup);
        }
        this.warmup = warmup;
        return this;
    }

    /** Every {@code every} while the run lasts, tells {@code answered} how many requests were answered or failed. */
    public LoadDriver progress(Duration every, LongConsumer answered) {
        if (every == null || every.isNegative() || every.isZero()) {
            throw new IllegalArgumentException("every must be positive, got " + every);
        }
        this.progressEvery = every;
        this.progress = Objects.requireNonNull(answered, "answered");
        return this;
    }

    /** Runs requests {@code 0 .. requests-1}, each once, spread over the threads as they come free. */
    public Measured requests(int requests, Request request) throws InterruptedException {
        return requests(0, requests, request);
    }

    /** Runs requests {@code from .. to-1}, each once, spread over the threads as they come free. */
    public Measured requests(int from, int to, Request request) throws InterruptedException {
        if (from < 0 || to < from) {
            throw new IllegalArgumentException("requests must run from 0 <= from <= to, got " + from + " to " + to);
        }
        AtomicInteger next = new AtomicInteger(from);
        return run(thread -> () -> {
            int i = next.getAndIncrement();
            return i < to ? () -> request.run(thread, i) : null;
        }, 0, countFrom -> { });
    }

    /** Runs each thread's steps one after the other for the warm-up and then {@code duration}. */
    public Measured forDuration(Duration duration, StepFactory steps) throws InterruptedException {
        long[] deadline = new long[1];
        return run(thread -> {
            Step step = steps.forThread(thread);
            return () -> System.nanoTime() - deadline[0] < 0 ? step : null;
        }, warmup.toNanos(), countFrom -> deadline[0] = countFrom + duration.toNanos());
    }

    /** Starts each thread's steps in the background; they run until {@link Running#stop()}. */
    public Running start(StepFactory steps) {
        AtomicBoolean stopped = new AtomicBoolean();
        FutureTask<Measured> task = new FutureTask<>(() -> run(thread -> {
            Step step = steps.forThread(thread);
            return () -> stopped.get() ? null : step;
        }, 0, countFrom -> { }));
        Thread runner = new Thread(task, "bench-driver");
        runner.setDaemon(true);
        runner.start();
        return new Running(stopped, task);
    }

    /** Threads started by {@link #start}. */
    public static final class Running {
        private final AtomicBoolean stopped;
        private final FutureTask<Measured> task;

        private Running(AtomicBoolean stopped, FutureTask<Measured> task) {
            this.stopped = stopped;
            this.task = task;
        }

        /** Lets every thread finish its current step, waits for them, and answers what they counted. */
        public Measured stop() throws InterruptedException {
            stopped.set(true);
            try {
                return task.get();
            } catch (ExecutionException e) {
                throw new IllegalStateException("the load driver failed: " + e.getCause(), e.getCause());
            }
        }
    }

    /**
     * Starts the workers, releases them together, and times every step each one runs until its
     * {@link Steps} says it is done; steps that start within {@code warmupNanos} of the release are
     * not counted. {@code atRelease} learns, just before the release, when counting starts.
     */
    private Measured run(IntFunction<Steps> workers, long warmupNanos, LongConsumer atRelease)
            throws InterruptedException {
        Measured m = new Measured();
        long[] countFrom = new long[1];
        CountDownLatch go = new CountDownLatch(1);
        CountDownLatch done = new CountDownLatch(threads);
        for (int t = 0; t < threads; t++) {
            int thread = t;
            Thread worker = new Thread(() -> {
                try {
                    Steps steps = workers.apply(thread);
                    go.await();
                    for (Step step = steps.next(); step != null; step = steps.next()) {
                        long t0 = System.nanoTime();
                        try {
                            boolean hit = step.run();
                            if (t0 - countFrom[0] >= 0) {
                                m.answered(System.nanoTime() - t0, hit);
                            }
                        } catch (Exception | Error e) {
                            m.failed(e);
                        }
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } catch (RuntimeException | Error e) {
                    m.failed(e);
                } finally {
                    done.countDown();
                }
            }, "bench-worker-" + t);
            worker.setDaemon(true);
            worker.start();
        }
        countFrom[0] = System.nanoTime() + warmupNanos;
        atRelease.accept(countFrom[0]);
        go.countDown();
        if (progress == null) {
            done.await();
        } else {
            while (!done.await(progressEvery.toNanos(), TimeUnit.NANOSECONDS)) {
                progress.accept(m.decisions() + m.errors());
            }
        }
        m.took(System.nanoTime() - countFrom[0]);
        return m;
    }
}
