package org.slotbook.core;

import org.slotbook.core.spi.GateOutcome;

/**
 * Told what the engine did, for metrics: every method has a no-op default, so an observer overrides
 * only what it records. Set with {@link BookingEngine.Builder#observer(EngineObserver)}.
 *
 * <p>Called on the caller's thread, after the fact, and must be quick and must not block. An
 * observer that throws changes nothing: the exception is logged and the operation's answer stands.
 */
public interface EngineObserver {
    /** Observes nothing. */
    EngineObserver NONE = new EngineObserver() {
    };

    /**
     * One engine operation finished.
     *
     * @param operation {@code schedule}, {@code hold}, {@code book}, {@code confirm}, {@code cancel},
     *                  {@code cancelSlot}, {@code availability}, {@code sweepExpired}, {@code reconcile}
     *                  or {@code reconcileAll}
     * @param outcome   the simple name of the result type ({@code Held}, {@code Full}, {@code Confirmed},
     *                  ...), {@code ok} for an operation whose answer is a count or a report,
     *                  {@code invalid} when it threw {@link IllegalArgumentException}, {@code error} when
     *                  it threw anything else (the store is down, say)
     * @param nanos     how long it took
     */
    default void operationFinished(String operation, String outcome, long nanos) {
    }

    /**
     * The gate answered a hold attempt ({@link GateOutcome#UNAVAILABLE} also when it failed or timed out).
     *
     * @param outcome the gate's answer
     */
    default void gateDecision(GateOutcome outcome) {
    }

    /**
     * A gate call failed ({@code call}: {@code tryHold}, {@code release}, {@code reconcile}, ...); the database
     * went on alone.
     *
     * @param call the name of the gate call that failed
     */
    default void gateUnavailable(String call) {
    }

    /**
     * A reconciliation of one tenant's slots (or of one slot) finished; its repairs are in the report.
     *
     * @param tenantId the tenant of the event
     * @param report what the reconciliation found and repaired
     */
    default void reconciled(TenantId tenantId, ReconcileReport report) {
    }

    /**
     * A sweep of one tenant expired {@code expired} holds that ran out.
     *
     * @param tenantId the tenant of the event
     * @param expired how many holds the sweep expired
     */
    default void swept(TenantId tenantId, int expired) {
    }
}
