package org.slotbook.core;

import java.time.Duration;
import java.util.Collection;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slotbook.core.internal.Checks;

/**
 * Runs the upkeep every deployment needs at a fixed delay: {@link BookingEngine#sweepExpired} (holds
 * that ran out give their seats back in the ledger) and {@link BookingEngine#reconcileAll} (the gate
 * converges to the ledger), for every tenant the host names.
 *
 * <p>Never two runs at once in one JVM; an exception in one run is logged and the next run happens
 * as planned; {@link #close()} stops it cleanly. Both steps are safe on several application nodes
 * at once. Hosts with a scheduler of their own call {@link #runOnce()} (or the two engine methods)
 * instead of {@link #start()}.
 *
 * <pre>{@code
 * ReconciliationJob job = ReconciliationJob.builder(engine, () -> tenantDirectory.activeTenants())
 *     .interval(Duration.ofSeconds(30))
 *     .build();
 * job.start();
 * ...
 * job.close();
 * }</pre>
 */
public final class ReconciliationJob implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ReconciliationJob.class);

    private final BookingEngine engine;
    private final Supplier<? extends Collection<TenantId>> tenants;
    private final Duration interval;
    private final int sweepBatch;
    private final ScheduledExecutorService executor;
    private final boolean ownsExecutor;
    private final ReentrantLock running = new ReentrantLock();
    private final AtomicLong runs = new AtomicLong();
    private final AtomicLong failedRuns = new AtomicLong();
    private volatile ScheduledFuture<?> schedule;
    private volatile boolean closed;

    private ReconciliationJob(Builder b) {
        this.engine = b.engine;
        this.tenants = b.tenants;
        this.interval = b.interval;
        this.sweepBatch = b.sweepBatch;
        this.ownsExecutor = b.executor == null;
        this.executor = ownsExecutor ? Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "slotbook-reconcile");
            t.setDaemon(true);
            return t;
        }) : b.executor;
    }

    public static Builder builder(BookingEngine engine, Supplier<? extends Collection<TenantId>> tenants) {
        return new Builder(engine, tenants);
    }

    /** Schedules the job at the configured fixed delay, starting after one interval. Idempotent. */
    public synchronized ReconciliationJob start() {
        if (closed) {
            throw new IllegalStateException("this ReconciliationJob is closed");
        }
        if (schedule == null) {
            long millis = interval.toMillis();
            schedule = executor.scheduleWithFixedDelay(this::runQuietly, millis, millis, TimeUnit.MILLISECONDS);
        }
        return this;
    }

    /**
     * Runs one sweep and reconcile over all tenants now, on the calling thread. Returns empty when
     * another run is in progress in this JVM (the call then does nothing).
     */
    public java.util.Optional<Run> runOnce() {
        if (!running.tryLock()) {
            return java.util.Optional.empty();
        }
        try {
            int expired = 0;
            ReconcileReport report = ReconcileReport.EMPTY;
            Collection<TenantId> all = tenants.get();
            for (TenantId tenant : all) {
                if (closed) {
                    break;
                }
                expired += engine.sweepExpired(tenant, sweepBatch);
                report = report.plus(engine.reconcileAll(tenant));
            }
            runs.incrementAndGet();
            return java.util.Optional.of(new Run(all.size(), expired, report));
        } finally {
            running.unlock();
        }
    }

    private void runQuietly() {
        try {
            runOnce().ifPresent(run -> {
                if (run.expired() > 0 || run.report().holdersAdded() > 0 || run.report().holdersRemoved() > 0) {
                    LOG.info("Slotbook upkeep: {}", run);
                }
            });
        } catch (RuntimeException | Error e) {
            failedRuns.incrementAndGet();
            LOG.warn("Slotbook upkeep run failed; the next run is still scheduled", e);
        }
    }

    /** Completed runs so far. */
    public long runs() {
        return runs.get();
    }

    /** Runs that ended with an exception so far. */
    public long failedRuns() {
        return failedRuns.get();
    }

    /**
     * Stops scheduling, waits (up to the interval, at least 5 s) for a run in progress, and shuts
     * down the executor when the job created it. A host-provided executor is left running.
     */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (schedule != null) {
            schedule.cancel(false);
        }
        long waitMillis = Math.max(5_000, interval.toMillis());
        if (ownsExecutor) {
            executor.shutdown();
            try {
                if (!executor.awaitTermination(waitMillis, TimeUnit.MILLISECONDS)) {
                    executor.shutdownNow();
                }
            } catch (InterruptedException e) {
                executor.shutdownNow();
                Thread.currentThread().interrupt();
            }
        } else {
            try {
                if (running.tryLock(waitMillis, TimeUnit.MILLISECONDS)) {
                    running.unlock();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** What one run did: tenants visited, holds expired, and the gate reconciliation summed up. */
    public record Run(int tenants, int expired, ReconcileReport report) {
    }

    /** Builds a {@link ReconciliationJob}. */
    public static final class Builder {
        private final BookingEngine engine;
        private final Supplier<? extends Collection<TenantId>> tenants;
        private Duration interval = Duration.ofSeconds(30);
        private int sweepBatch = 500;
        private ScheduledExecutorService executor;

        private Builder(BookingEngine engine, Supplier<? extends Collection<TenantId>> tenants) {
            this.engine = Checks.notNull("engine", engine);
            this.tenants = Checks.notNull("tenants", tenants);
        }

        /** Delay between the end of one run and the start of the next; default 30 s. */
        public Builder interval(Duration interval) {
            this.interval = Checks.positive("interval", interval);
            return this;
        }

        /** Holds expired per ledger transaction; default 500. */
        public Builder sweepBatch(int sweepBatch) {
            this.sweepBatch = Checks.between("sweepBatch", sweepBatch, 1, 10_000);
            return this;
        }

        /** A scheduler of the host's; the job then neither creates nor shuts down one. */
        public Builder executor(ScheduledExecutorService executor) {
            this.executor = Checks.notNull("executor", executor);
            return this;
        }

        public ReconciliationJob build() {
            return new ReconciliationJob(this);
        }
    }
}
