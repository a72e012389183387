package org.slotbook.core;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slotbook.core.internal.Checks;

/**
 * Runs the upkeep every deployment needs at a fixed delay: {@link BookingEngine#sweepExpired} (holds
 * that ran out give their seats back in the ledger) and {@link BookingEngine#reconcileAll} (the gate
 * converges to the ledger), then the outbox's retention ({@link org.slotbook.core.outbox.Outbox#purge}:
 * delivered events older than the retention are deleted), for every tenant the host names, or for every
 * tenant the store holds.
 *
 * <p>Each tenant's upkeep stands alone: when its sweep or reconcile throws (its shard is down, say),
 * the failure is logged and counted ({@link Run#failedTenants()}, {@link #failedTenants()}) and the
 * run goes on with the next tenant. A run fails as a whole only when the tenants cannot be listed;
 * it is logged, counted in {@link #failedRuns()}, and the next run happens as planned. Never two runs
 * at once in one JVM; {@link #close()} stops it cleanly. Both steps are safe on several application
 * nodes at once. Hosts with a scheduler of their own call {@link #runOnce()} (or the two engine
 * methods) instead of {@link #start()}.
 *
 * <pre>{@code
 * // every tenant of the store, paged through BookingEngine.tenants
 * ReconciliationJob job = ReconciliationJob.builder(engine)
 *     .interval(Duration.ofSeconds(30))
 *     .build();
 * // or the tenants the host names
 * ReconciliationJob job = ReconciliationJob.builder(engine, () -> tenantDirectory.activeTenants()).build();
 * job.start();
 * ...
 * job.close();
 * }</pre>
 */
public final class ReconciliationJob implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ReconciliationJob.class);

    private final BookingEngine engine;
    /** Null: every tenant of the store, paged through {@link BookingEngine#tenants}. */
    private final @Nullable Supplier<? extends Collection<TenantId>> tenants;
    private final Duration interval;
    private final int sweepBatch;
    private final int tenantPage;
    private final ScheduledExecutorService executor;
    private final boolean ownsExecutor;
    private final ReentrantLock running = new ReentrantLock();
    private final AtomicLong runs = new AtomicLong();
    private final AtomicLong failedRuns = new AtomicLong();
    private final AtomicLong failedTenants = new AtomicLong();
    private volatile @Nullable ScheduledFuture<?> schedule;
    private volatile boolean closed;

    private ReconciliationJob(Builder b) {
        this.engine = b.engine;
        this.tenants = b.tenants;
        this.interval = b.interval;
        this.sweepBatch = b.sweepBatch;
        this.tenantPage = b.tenantPage;
        this.ownsExecutor = b.executor == null;
        this.executor = ownsExecutor ? Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "slotbook-reconcile");
            t.setDaemon(true);
            return t;
        }) : b.executor;
    }

    /**
     * A job over the tenants {@code tenants} names on each run.
     *
     * @param engine the booking engine whose upkeep this is
     * @param tenants supplies the tenants of each run
     * @return a builder of the job
     */
    public static Builder builder(BookingEngine engine, Supplier<? extends Collection<TenantId>> tenants) {
        return new Builder(engine, Checks.notNull("tenants", tenants));
    }

    /**
     * A job over every tenant the engine's store holds (every tenant with a slot), read page by page
     * through {@link BookingEngine#tenants} on each run: the host need not know its tenant list.
     *
     * @param engine the booking engine whose upkeep this is
     * @return a builder of the job
     */
    public static Builder builder(BookingEngine engine) {
        return new Builder(engine, null);
    }

    /**
     * Schedules the job at the configured fixed delay, starting after one interval. Idempotent.
     *
     * @return this job
     */
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
     * another run is in progress in this JVM (the call then does nothing). A tenant whose upkeep
     * throws is logged and counted, and the run goes on with the next one.
     *
     * @return the run's counts, or empty when another run was in progress
     * @throws RuntimeException when the tenants could not be listed (the tenants done so far stay done)
     */
    public Optional<Run> runOnce() {
        if (!running.tryLock()) {
            return Optional.empty();
        }
        try {
            Tally tally = new Tally();
            if (tenants != null) {
                for (TenantId tenant : tenants.get()) {
                    if (closed) {
                        break;
                    }
                    upkeep(tenant, tally);
                }
            } else {
                TenantId after = null;
                while (!closed) {
                    List<TenantId> page = engine.tenants(after, tenantPage);
                    for (TenantId tenant : page) {
                        if (closed) {
                            break;
                        }
                        upkeep(tenant, tally);
                    }
                    if (page.size() < tenantPage) {
                        break;
                    }
                    after = page.get(page.size() - 1);
                }
            }
            runs.incrementAndGet();
            return Optional.of(new Run(tally.tenants, tally.expired, tally.report, tally.failed));
        } finally {
            running.unlock();
        }
    }

    /** One tenant's sweep and reconcile; a failure is logged and counted, never thrown. */
    private void upkeep(TenantId tenant, Tally tally) {
        tally.tenants++;
        String step = "sweep";
        try {
            tally.expired += engine.sweepExpired(tenant, sweepBatch);
            step = "reconcile";
            tally.report = tally.report.plus(engine.reconcileAll(tenant));
            step = "outbox retention";
            engine.outbox().purge(tenant);
        } catch (RuntimeException e) {
            tally.failed++;
            failedTenants.incrementAndGet();
            if (tally.failed == 1) {
                LOG.warn("Slotbook upkeep: {} of tenant {} failed; going on with the next tenant", step, tenant, e);
            } else {
                LOG.warn("Slotbook upkeep: {} of tenant {} failed ({}); going on with the next tenant", step, tenant,
                        e.toString());
            }
        }
    }

    /** What one run has done so far. */
    private static final class Tally {
        int tenants;
        int failed;
        int expired;
        ReconcileReport report = ReconcileReport.EMPTY;
    }

    private void runQuietly() {
        try {
            runOnce().ifPresent(run -> {
                if (run.expired() > 0 || run.report().holdersAdded() > 0 || run.report().holdersRemoved() > 0
                        || run.failedTenants() > 0) {
                    LOG.info("Slotbook upkeep: {}", run);
                }
            });
        } catch (RuntimeException | Error e) {
            failedRuns.incrementAndGet();
            LOG.warn("Slotbook upkeep run failed; the next run is still scheduled", e);
        }
    }

    /** {@return completed runs so far} */
    public long runs() {
        return runs.get();
    }

    /** {@return runs that ended with an exception so far (the tenants could not be listed)} */
    public long failedRuns() {
        return failedRuns.get();
    }

    /** {@return tenant upkeeps (one tenant in one run) whose sweep or reconcile threw, so far} */
    public long failedTenants() {
        return failedTenants.get();
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

    /**
     * What one run did: tenants visited (failed ones included), holds expired, the gate
     * reconciliation summed up, and the tenants whose sweep or reconcile threw.
     */
    public record Run(int tenants, int expired, ReconcileReport report, int failedTenants) {
    }

    /** Builds a {@link ReconciliationJob}. */
    public static final class Builder {
        private final BookingEngine engine;
        /** Null: every tenant of the store. */
        private final @Nullable Supplier<? extends Collection<TenantId>> tenants;
        private Duration interval = Duration.ofSeconds(30);
        private int sweepBatch = 500;
        private int tenantPage = 500;
        private @Nullable ScheduledExecutorService executor;

        private Builder(BookingEngine engine, @Nullable Supplier<? extends Collection<TenantId>> tenants) {
            this.engine = Checks.notNull("engine", engine);
            this.tenants = tenants;
        }

        /**
         * Delay between the end of one run and the start of the next; default 30 s.
         *
         * @param interval the delay between runs
         * @return this builder
         */
        public Builder interval(Duration interval) {
            this.interval = Checks.positive("interval", interval);
            return this;
        }

        /**
         * Holds expired per ledger transaction; default 500.
         *
         * @param sweepBatch the most expired holds one batch of a sweep takes
         * @return this builder
         */
        public Builder sweepBatch(int sweepBatch) {
            this.sweepBatch = Checks.between("sweepBatch", sweepBatch, 1, 10_000);
            return this;
        }

        /**
         * Tenants read per page when the job runs over all tenants of the store; default 500.
         *
         * @param tenantPage tenants read per page
         * @return this builder
         */
        public Builder tenantPage(int tenantPage) {
            this.tenantPage = Checks.between("tenantPage", tenantPage, 1, 10_000);
            return this;
        }

        /**
         * A scheduler of the host's; the job then neither creates nor shuts down one.
         *
         * @param executor the host's scheduler
         * @return this builder
         */
        public Builder executor(ScheduledExecutorService executor) {
            this.executor = Checks.notNull("executor", executor);
            return this;
        }

        /** {@return the job, not yet started} */
        public ReconciliationJob build() {
            return new ReconciliationJob(this);
        }
    }
}
