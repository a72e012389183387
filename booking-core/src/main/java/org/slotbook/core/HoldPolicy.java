package org.slotbook.core;

import java.time.Duration;
import org.slotbook.core.internal.Checks;

/**
 * The single source of hold timing.
 *
 * <ul>
 *   <li>{@code holdTtl}: how long a held seat waits for its confirm; the ledger's {@code heldUntil}
 *       is {@code now + holdTtl}. Default 10 minutes, at most {@link #MAX_HOLD_TTL} (31 days).</li>
 *   <li>{@code cacheGrace}: how much longer the gate (Redis) keeps the hold, so a confirm that the
 *       database accepts is never undercut by the cache. Default 30 seconds, at most
 *       {@link #MAX_GRACE} (1 day).</li>
 *   <li>{@code inFlightGrace}: reconciliation never removes a gate hold younger than this, since
 *       its database transaction may still be running. It must exceed the longest hold
 *       transaction, counted from the moment the gate took the seat: the wait for a pooled
 *       connection (HikariCP's {@code connectionTimeout}, 30 seconds by default), then the routine's
 *       runs, up to {@code 1 + maxRetries} of them (9 by default) after deadlocks and lock wait
 *       timeouts, each of which may wait for row locks, plus the back-off between them (at most
 *       200 ms each). Default 2 minutes: a 30-second pool wait and several seconds of retries leave
 *       ample margin. Raise it when your pool waits longer or your database's lock wait timeout is
 *       long (MariaDB's {@code innodb_lock_wait_timeout} defaults to 50 seconds per run); a grace
 *       shorter than a hold that is still running lets reconciliation drop that hold's gate seat
 *       and the gate then sells it twice until the next reconcile. At most {@link #MAX_GRACE}.</li>
 * </ul>
 * Durations beyond these maxima are refused: they are mistakes (a TTL of years), and adding them
 * to an instant would overflow.
 */
public record HoldPolicy(Duration holdTtl, Duration cacheGrace, Duration inFlightGrace) {
    /** The longest {@code holdTtl} accepted. */
    public static final Duration MAX_HOLD_TTL = Duration.ofDays(31);
    /** The longest {@code cacheGrace} and {@code inFlightGrace} accepted. */
    public static final Duration MAX_GRACE = Duration.ofDays(1);

    /**
     * Checks the components: the hold TTL positive, the graces not negative.
     *
     * @param holdTtl how long a hold lasts before it expires
     * @param cacheGrace how much longer than the hold the gate keeps it
     * @param inFlightGrace how old a holder the ledger does not know must be before it is removed, so a hold in
     *                      flight survives
     */
    public HoldPolicy {
        Checks.positive("holdTtl", holdTtl);
        Checks.notNegative("cacheGrace", cacheGrace);
        Checks.positive("inFlightGrace", inFlightGrace);
        atMost("holdTtl", holdTtl, MAX_HOLD_TTL, "31 days");
        atMost("cacheGrace", cacheGrace, MAX_GRACE, "1 day");
        atMost("inFlightGrace", inFlightGrace, MAX_GRACE, "1 day");
        if (holdTtl.toMillis() < 1) {
            throw new InvalidInputException("holdTtl must be at least 1 ms, got " + holdTtl);
        }
    }

    private static void atMost(String field, Duration value, Duration max, String maxText) {
        if (value.compareTo(max) > 0) {
            throw new InvalidInputException(field, field + " must be at most " + maxText + " (" + max + "), got " + value);
        }
    }

    /** {@return the default policy: 10-minute holds, 30 s of cache grace} */
    public static HoldPolicy ofDefaults() {
        return new HoldPolicy(Duration.ofMinutes(10), Duration.ofSeconds(30), Duration.ofMinutes(2));
    }

    /**
     * {@return the default policy with holds of {@code minutes}}
     *
     * @param minutes how long a hold lasts, in minutes
     */
    public static HoldPolicy ofMinutes(long minutes) {
        if (minutes <= 0) {
            throw new InvalidInputException("holdTtl minutes must be positive, got " + minutes);
        }
        if (minutes > MAX_HOLD_TTL.toMinutes()) {
            throw new InvalidInputException("holdTtl must be at most 31 days (" + MAX_HOLD_TTL.toMinutes()
                    + " minutes), got " + minutes + " minutes");
        }
        return ofDefaults().withHoldTtl(Duration.ofMinutes(minutes));
    }

    /**
     * {@return this policy with another hold TTL}
     *
     * @param ttl how long a hold lasts before it expires
     */
    public HoldPolicy withHoldTtl(Duration ttl) {
        return new HoldPolicy(ttl, cacheGrace, inFlightGrace);
    }

    /**
     * {@return this policy with another cache grace}
     *
     * @param grace how much longer than the hold the gate keeps it
     */
    public HoldPolicy withCacheGrace(Duration grace) {
        return new HoldPolicy(holdTtl, grace, inFlightGrace);
    }

    /**
     * {@return this policy with another in-flight grace}
     *
     * @param grace how old a gate holder the ledger does not know must be before a reconcile removes it
     */
    public HoldPolicy withInFlightGrace(Duration grace) {
        return new HoldPolicy(holdTtl, cacheGrace, grace);
    }

    /** {@return how long the gate keeps a hold: the confirm window plus the cache grace} */
    public Duration gateTtl() {
        return holdTtl.plus(cacheGrace);
    }
}
