package org.slotbook.spring;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.slotbook.core.EngineObserver;
import org.slotbook.core.ReconcileReport;
import org.slotbook.core.TenantId;
import org.slotbook.core.spi.GateOutcome;

/**
 * The engine's observer as Micrometer meters:
 * <ul>
 *   <li>{@code slotbook.engine.calls} (timer; tags {@code operation}, {@code outcome})</li>
 *   <li>{@code slotbook.gate.decisions} (counter; tag {@code answer}: held, full, duplicate, missing, closed, unavailable)</li>
 *   <li>{@code slotbook.gate.outages} (counter; tag {@code call}: the gate call that failed)</li>
 *   <li>{@code slotbook.reconcile.repairs} (counter; tag {@code kind}: holders_added, holders_removed, capacity_fixed)</li>
 *   <li>{@code slotbook.sweep.expired} (counter: holds the sweep expired)</li>
 * </ul>
 * Tenants are never a tag: their number is unbounded. The timer publishes a latency histogram (the
 * buckets Prometheus' {@code histogram_quantile} reads) unless told not to.
 */
public final class MicrometerEngineObserver implements EngineObserver {
    private final MeterRegistry registry;
    private final Map<String, Timer> timers = new ConcurrentHashMap<>();
    private final Map<String, Counter> counters = new ConcurrentHashMap<>();
    private final Counter holdersAdded;
    private final Counter holdersRemoved;
    private final Counter capacityFixed;
    private final Counter swept;
    private final boolean histogram;

    /**
     * Meters on {@code registry}, the timer with its latency histogram.
     *
     * @param registry the application's meter registry
     */
    public MicrometerEngineObserver(MeterRegistry registry) {
        this(registry, true);
    }

    /**
     * Meters on {@code registry}, the timer with or without its latency histogram.
     *
     * @param registry the application's meter registry
     * @param histogram whether the timer publishes its latency histogram
     */
    public MicrometerEngineObserver(MeterRegistry registry, boolean histogram) {
        this.registry = registry;
        this.histogram = histogram;
        this.holdersAdded = repairs("holders_added");
        this.holdersRemoved = repairs("holders_removed");
        this.capacityFixed = repairs("capacity_fixed");
        this.swept = Counter.builder("slotbook.sweep.expired").description("Holds that ran out, expired by the sweep")
                .register(registry);
        for (GateOutcome outcome : GateOutcome.values()) {
            gateDecision(outcome, 0);
        }
    }

    private Counter repairs(String kind) {
        return Counter.builder("slotbook.reconcile.repairs").tag("kind", kind)
                .description("Gate state repaired by reconciliation with the database").register(registry);
    }

    @Override
    public void operationFinished(String operation, String outcome, long nanos) {
        timers.computeIfAbsent(operation + '\u0000' + outcome, k -> Timer.builder("slotbook.engine.calls")
                        .tag("operation", operation).tag("outcome", outcome)
                        .publishPercentileHistogram(histogram)
                        .description("Slotbook engine operations by outcome").register(registry))
                .record(nanos, TimeUnit.NANOSECONDS);
    }

    @Override
    public void gateDecision(GateOutcome outcome) {
        gateDecision(outcome, 1);
    }

    private void gateDecision(GateOutcome outcome, int amount) {
        String answer = outcome.name().toLowerCase(java.util.Locale.ROOT);
        counters.computeIfAbsent("gate\u0000" + answer, k -> Counter.builder("slotbook.gate.decisions")
                .tag("answer", answer).description("Answers of the Redis seat gate to hold attempts")
                .register(registry)).increment(amount);
    }

    @Override
    public void gateUnavailable(String call) {
        counters.computeIfAbsent("outage\u0000" + call, k -> Counter.builder("slotbook.gate.outages")
                .tag("call", call).description("Gate calls that failed; the database went on alone")
                .register(registry)).increment();
    }

    @Override
    public void reconciled(TenantId tenantId, ReconcileReport report) {
        holdersAdded.increment(report.holdersAdded());
        holdersRemoved.increment(report.holdersRemoved());
        capacityFixed.increment(report.capacityFixed());
    }

    @Override
    public void swept(TenantId tenantId, int expired) {
        swept.increment(expired);
    }
}
