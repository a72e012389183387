package org.slotbook.core;

import java.time.Duration;
import org.slotbook.core.internal.Checks;

/**
 * The single source of hold timing.
 *
 * <ul>
 *   <li>{@code holdTtl}: how long a held seat waits for its confirm; the ledger's {@code heldUntil}
 *       is {@code now + holdTtl}. Default 10 minutes.</li>
 *   <li>{@code cacheGrace}: how much longer the gate (Redis) keeps the hold, so a confirm that the
 *       database accepts is never undercut by the cache. Default 30 seconds.</li>
 *   <li>{@code inFlightGrace}: reconciliation never removes a gate hold younger than this, since
 *       its database transaction may still be running. It must exceed the longest hold
 *       transaction. Default 1 minute.</li>
 * </ul>
 */
public record HoldPolicy(Duration holdTtl, Duration cacheGrace, Duration inFlightGrace) {
    public HoldPolicy {
        Checks.positive("holdTtl", holdTtl);
        Checks.notNegative("cacheGrace", cacheGrace);
        Checks.positive("inFlightGrace", inFlightGrace);
        if (holdTtl.toMillis() < 1) {
            throw new IllegalArgumentException("holdTtl must be at least 1 ms, got " + holdTtl);
        }
    }

    public static HoldPolicy ofDefaults() {
        return new HoldPolicy(Duration.ofMinutes(10), Duration.ofSeconds(30), Duration.ofMinutes(1));
    }

    public static HoldPolicy ofMinutes(long minutes) {
        if (minutes <= 0) {
            throw new IllegalArgumentException("holdTtl minutes must be positive, got " + minutes);
        }
        return ofDefaults().withHoldTtl(Duration.ofMinutes(minutes));
    }

    public HoldPolicy withHoldTtl(Duration ttl) {
        return new HoldPolicy(ttl, cacheGrace, inFlightGrace);
    }

    public HoldPolicy withCacheGrace(Duration grace) {
        return new HoldPolicy(holdTtl, grace, inFlightGrace);
    }

    public HoldPolicy withInFlightGrace(Duration grace) {
        return new HoldPolicy(holdTtl, cacheGrace, grace);
    }

    /** How long the gate keeps a hold: the confirm window plus the cache grace. */
    public Duration gateTtl() {
        return holdTtl.plus(cacheGrace);
    }
}
