package org.slotbook.core.internal.engine;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slotbook.core.EngineMetrics;
import org.slotbook.core.HoldRequest;
import org.slotbook.core.TenantId;
import org.slotbook.core.spi.GateDecision;
import org.slotbook.core.spi.GateOutcome;
import org.slotbook.core.spi.SeatReservation;

/**
 * Every call the engine makes to the gate goes through here: a gate failure never fails an
 * operation (the database alone decides until the gate is back), is counted once, and logged at most
 * once per {@link #LOG_INTERVAL}.
 */
public final class GateGuard {
    private static final Logger LOG = LoggerFactory.getLogger(EngineLog.CATEGORY);
    static final Duration LOG_INTERVAL = Duration.ofSeconds(10);

    private final SeatReservation gate;
    private final boolean present;
    final LongAdder full = new LongAdder();
    final LongAdder heldLedgerRefused = new LongAdder();
    final LongAdder unavailable = new LongAdder();
    final LongAdder orphansReleased = new LongAdder();
    final LongAdder rebuilds = new LongAdder();
    private final AtomicLong lastLog = new AtomicLong(Long.MIN_VALUE);
    private final Observed observed;

    public GateGuard(@Nullable SeatReservation gate, Observed observed) {
        this.gate = gate == null ? SeatReservation.none() : gate;
        this.present = this.gate != SeatReservation.none();
        this.observed = observed;
    }

    public boolean present() {
        return present;
    }

    public SeatReservation gate() {
        return gate;
    }

    /** The gate's answer, or UNAVAILABLE (counted and logged) when it failed or there is none. */
    GateDecision tryHold(TenantId tenantId, HoldRequest request, Duration ttl) {
        if (!present) {
            return GateDecision.UNAVAILABLE;
        }
        GateDecision decision;
        try {
            decision = gate.tryHold(tenantId, request.slotId(), request.studentId(), request.requestId(), ttl);
        } catch (RuntimeException e) {
            failed("tryHold", e);
            return GateDecision.UNAVAILABLE;
        }
        if (decision == null || decision.outcome() == GateOutcome.UNAVAILABLE) {
            failed("tryHold", null);
            return GateDecision.UNAVAILABLE;
        }
        observed.gateDecision(decision.outcome());
        return decision;
    }

    /** Runs a gate call whose failure must not fail the operation: the ledger already decided. */
    public void call(String what, Runnable call) {
        if (!present) {
            return;
        }
        try {
            call.run();
        } catch (RuntimeException e) {
            failed(what, e);
        }
    }

    /** A gate call whose answer the engine reports; {@code fallback} when the gate failed. */
    public <T> T call(String what, Supplier<T> call, T fallback) {
        if (!present) {
            return fallback;
        }
        try {
            return call.get();
        } catch (RuntimeException e) {
            failed(what, e);
            return fallback;
        }
    }

    void failed(String what, @Nullable RuntimeException e) {
        unavailable.increment();
        if (what.equals("tryHold")) {
            observed.gateDecision(GateOutcome.UNAVAILABLE);
        }
        observed.gateUnavailable(what);
        log(what, e);
    }

    /** Logs a gate failure, at most once per interval, without counting it. */
    void log(String what, @Nullable RuntimeException e) {
        long nowNanos = System.nanoTime();
        long last = lastLog.get();
        if (last != Long.MIN_VALUE && nowNanos - last < LOG_INTERVAL.toNanos()) {
            return;
        }
        if (lastLog.compareAndSet(last, nowNanos)) {
            LOG.warn("Seat gate unavailable during {} ({} calls went on without it so far); the database alone "
                    + "decides until it is back{}", what, unavailable.sum(), e == null ? "" : ": " + e, e);
        }
    }

    public EngineMetrics metrics() {
        return new EngineMetrics(full.sum(), heldLedgerRefused.sum(), unavailable.sum(), orphansReleased.sum(),
                rebuilds.sum());
    }
}
