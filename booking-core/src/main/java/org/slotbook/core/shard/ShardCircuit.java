package org.slotbook.core.shard;

import java.time.Duration;
import org.jspecify.annotations.Nullable;
import org.slotbook.core.StoreUnreachableException;

/**
 * The fail-fast state of one shard of a {@link TenantRoutedStore}, a circuit breaker with one trial:
 *
 * <ul>
 *   <li><b>closed</b>: calls go to the shard. A call that fails with {@link StoreUnreachableException}
 *       (it got no connection within its pool's timeout) opens the circuit.</li>
 *   <li><b>open</b>: calls fail at once with a {@link StoreUnreachableException} (retryable, nothing
 *       sent) until the back-off has passed; then one call goes to the shard as the trial while the
 *       others still fail at once.</li>
 *   <li>the trial: an answer of the shard (any result) closes the circuit; another
 *       {@link StoreUnreachableException} opens it again with twice the back-off (up to 16 times the
 *       configured one); any other failure proves nothing, and the next call is the trial.</li>
 * </ul>
 *
 * Any call that gets an answer closes the circuit, so a shard that is back is used again at once. A
 * trial that has not come back after the longest back-off is given up, so a hung trial cannot keep
 * the shard closed for good.
 */
final class ShardCircuit {
    private static final int MAX_BACKOFF_FACTOR = 16;

    private final String shard;
    private final long baseBackoffNanos;
    private volatile boolean open;
    /** Guarded by this. */
    private long backoffNanos;
    private long retryAt;
    private boolean trialRunning;
    private long trialStarted;
    private @Nullable StoreUnreachableException last;

    ShardCircuit(String shard, Duration backoff) {
        this.shard = shard;
        this.baseBackoffNanos = backoff.toNanos();
        this.backoffNanos = baseBackoffNanos;
    }

    /**
     * Lets a call through: false for an ordinary call, true for the trial of an open circuit.
     *
     * @throws StoreUnreachableException when the circuit is open and the call is not the trial
     */
    boolean enter() {
        if (!open) {
            return false;
        }
        synchronized (this) {
            if (!open) {
                return false;
            }
            long now = System.nanoTime();
            boolean trialLost = trialRunning && now - trialStarted > baseBackoffNanos * MAX_BACKOFF_FACTOR;
            if ((!trialRunning || trialLost) && now - retryAt >= 0) {
                trialRunning = true;
                trialStarted = now;
                return true;
            }
            long waitMs = Math.max(0, (retryAt - now) / 1_000_000);
            throw new StoreUnreachableException("shard '" + shard + "' is unreachable: its calls got no database"
                    + " connection" + (trialRunning ? "; a trial call is under way" : "; next trial in " + waitMs
                    + " ms") + " (last failure: " + last.getMessage() + ")", last);
        }
    }

    /** The call got an answer from the shard (a result, or an answer-bearing failure of an ordinary call). */
    void answered(boolean trial) {
        if (!open && !trial) {
            return;
        }
        synchronized (this) {
            open = false;
            trialRunning = false;
            backoffNanos = baseBackoffNanos;
            last = null;
        }
    }

    /** The call failed with {@code failure}. */
    void failed(boolean trial, RuntimeException failure) {
        if (failure instanceof StoreUnreachableException unreachable) {
            synchronized (this) {
                if (trial) {
                    backoffNanos = Math.min(backoffNanos * 2, baseBackoffNanos * MAX_BACKOFF_FACTOR);
                    trialRunning = false;
                } else if (open) {
                    return; // an ordinary call that started before the circuit opened: the trial decides
                }
                last = unreachable;
                retryAt = System.nanoTime() + backoffNanos;
                open = true;
            }
        } else if (trial) {
            synchronized (this) {
                trialRunning = false; // proves nothing: the next call is the trial
            }
        }
    }

    boolean isOpen() {
        return open;
    }
}
