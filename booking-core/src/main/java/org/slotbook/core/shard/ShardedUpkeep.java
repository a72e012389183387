package org.slotbook.core.shard;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slotbook.core.BookingEngine;
import org.slotbook.core.InvalidInputException;
import org.slotbook.core.ReconciliationJob;
import org.slotbook.core.internal.Checks;

/**
 * The upkeep of a sharded deployment: one {@link ReconciliationJob} per shard of a
 * {@link TenantRoutedStore}, each over the tenants of its own shard ({@link TenantRoutedStore#tenantsOn})
 * and, once started, on a thread of its own. A shard that is down (or slow) fails or delays only its
 * own job: the others sweep expired holds and reconcile the gate as planned, and the failed shard is
 * caught up by its next run once it is back.
 *
 * <pre>{@code
 * ShardedUpkeep upkeep = ShardedUpkeep.builder(engine, routedStore).interval(Duration.ofSeconds(30)).build();
 * upkeep.start();
 * ...
 * upkeep.close();
 * }</pre>
 */
public final class ShardedUpkeep implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ShardedUpkeep.class);

    private final Map<String, ReconciliationJob> jobs;

    private ShardedUpkeep(Map<String, ReconciliationJob> jobs) {
        this.jobs = Collections.unmodifiableMap(jobs);
    }

    /**
     * Upkeep for {@code engine}, whose store is {@code store} (or wraps it).
     *
     * @param engine the booking engine whose upkeep this is
     * @param store the routed store, the engine's or the one it wraps
     * @return a builder of the upkeep
     */
    public static Builder builder(BookingEngine engine, TenantRoutedStore store) {
        return new Builder(engine, store);
    }

    /**
     * Schedules every shard's job (each at the configured fixed delay, on its own thread). Idempotent.
     *
     * @return this upkeep
     */
    public ShardedUpkeep start() {
        jobs.values().forEach(ReconciliationJob::start);
        return this;
    }

    /**
     * {@return the job of one shard (its counters: runs, failed runs, failed tenants)}
     *
     * @param shard the shard, by its name
     */
    public ReconciliationJob job(String shard) {
        ReconciliationJob job = jobs.get(Checks.notNull("shard", shard));
        if (job == null) {
            throw new InvalidInputException("shard must be one of " + jobs.keySet() + ", got '"
                    + Checks.escape(shard) + "'");
        }
        return job;
    }

    /**
     * Runs every shard's upkeep once now, shard after shard on the calling thread. A shard whose
     * tenants cannot be listed (it is down) is logged and named in {@link Result#failedShards()}, and
     * the next shard runs all the same; a shard whose job is already running in this JVM is left out.
     *
     * @return each shard's run, and the shards that failed
     */
    public Result runOnce() {
        Map<String, ReconciliationJob.Run> done = new LinkedHashMap<>();
        Map<String, RuntimeException> failed = new LinkedHashMap<>();
        for (Map.Entry<String, ReconciliationJob> entry : jobs.entrySet()) {
            try {
                Optional<ReconciliationJob.Run> run = entry.getValue().runOnce();
                run.ifPresent(r -> done.put(entry.getKey(), r));
            } catch (RuntimeException e) {
                failed.put(entry.getKey(), e);
                LOG.warn("Slotbook upkeep: shard {} could not be listed ({}); going on with the next shard",
                        entry.getKey(), e.toString());
            }
        }
        return new Result(Collections.unmodifiableMap(done), Collections.unmodifiableMap(failed));
    }

    /** Stops every shard's job (see {@link ReconciliationJob#close()}). */
    @Override
    public void close() {
        List<RuntimeException> errors = new ArrayList<>();
        for (ReconciliationJob job : jobs.values()) {
            try {
                job.close();
            } catch (RuntimeException e) {
                errors.add(e);
            }
        }
        if (!errors.isEmpty()) {
            RuntimeException first = errors.get(0);
            errors.subList(1, errors.size()).forEach(first::addSuppressed);
            throw first;
        }
    }

    /**
     * One run over all shards: the run of each shard that could be listed (tenants whose own upkeep
     * failed are counted in it), and the failure of each shard that could not.
     */
    public record Result(Map<String, ReconciliationJob.Run> shards, Map<String, RuntimeException> failedShards) {
        /**
         * Holds expired on all shards.
         *
         * @return holds expired on all shards
         */
        public int expired() {
            return shards.values().stream().mapToInt(ReconciliationJob.Run::expired).sum();
        }
    }

    /** Builds a {@link ShardedUpkeep}; the settings apply to every shard's job. */
    public static final class Builder {
        private final BookingEngine engine;
        private final TenantRoutedStore store;
        private Duration interval = Duration.ofSeconds(30);
        private int sweepBatch = 500;

        private Builder(BookingEngine engine, TenantRoutedStore store) {
            this.engine = Checks.notNull("engine", engine);
            this.store = Checks.notNull("store", store);
        }

        /**
         * Delay between the end of one run of a shard and the start of its next; default 30 s.
         *
         * @param interval the delay between runs of a shard
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

        /** {@return the upkeep, not yet started} */
        public ShardedUpkeep build() {
            Map<String, ReconciliationJob> jobs = new LinkedHashMap<>();
            for (String shard : store.shardNames()) {
                jobs.put(shard, ReconciliationJob.builder(engine, store.tenantsOn(shard))
                        .interval(interval).sweepBatch(sweepBatch).build());
            }
            return new ShardedUpkeep(jobs);
        }
    }
}
