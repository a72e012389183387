package org.slotbook.core.internal.engine;

import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slotbook.core.EngineObserver;
import org.slotbook.core.ReconcileReport;
import org.slotbook.core.TenantId;
import org.slotbook.core.spi.GateOutcome;

/** The engine's observer, guarded: an observer that throws is logged and otherwise ignored. */
public final class Observed {
    private static final Logger LOG = LoggerFactory.getLogger(EngineLog.CATEGORY);

    private final EngineObserver observer;

    public Observed(EngineObserver observer) {
        this.observer = observer == null ? EngineObserver.NONE : observer;
    }

    /** Runs one operation and reports its outcome and duration. */
    public <R> R operation(String name, Supplier<R> call) {
        if (observer == EngineObserver.NONE) {
            return call.get();
        }
        long start = System.nanoTime();
        String outcome = "error";
        try {
            R result = call.get();
            outcome = result == null || result instanceof Number || result instanceof ReconcileReport
                    ? "ok" : result.getClass().getSimpleName();
            return result;
        } catch (IllegalArgumentException e) {
            outcome = "invalid";
            throw e;
        } finally {
            long nanos = System.nanoTime() - start;
            String finalOutcome = outcome;
            quietly(() -> observer.operationFinished(name, finalOutcome, nanos));
        }
    }

    void gateDecision(GateOutcome outcome) {
        quietly(() -> observer.gateDecision(outcome));
    }

    void gateUnavailable(String call) {
        quietly(() -> observer.gateUnavailable(call));
    }

    public void reconciled(TenantId tenantId, ReconcileReport report) {
        quietly(() -> observer.reconciled(tenantId, report));
    }

    public void swept(TenantId tenantId, int expired) {
        quietly(() -> observer.swept(tenantId, expired));
    }

    private void quietly(Runnable call) {
        if (observer == EngineObserver.NONE) {
            return;
        }
        try {
            call.run();
        } catch (RuntimeException e) {
            LOG.warn("EngineObserver threw; the operation's answer stands", e);
        }
    }
}
