package org.slotbook.core;

import java.time.Duration;
import java.time.Instant;
import org.jspecify.annotations.Nullable;
import org.slotbook.core.internal.Checks;

/**
 * When a student may cancel for free. Until {@code cutoff} before the session starts a cancel is
 * free; from then on it is late, and {@link LateCancel} says what happens to it: refused
 * ({@link TooLateToCancel}), or accepted and marked late ({@link Cancelled#late()}) so that the host
 * can charge for it. Either way an accepted cancel gives the seat back at once. A staff cancel
 * ({@link BookingEngine#cancelByStaff}) is never refused, but is marked late by the same rule.
 *
 * <p>The policy applies to confirmed bookings only. A hold that was never confirmed never became a
 * booking: cancelling it is never late nor refused, and it is never charged or forfeited (its credits
 * are refunded, as when it expires).
 *
 * <p>Set per tenant in {@link BookingRules}, and per slot with {@link SlotSpec#withCancellation}.
 *
 * @param cutoff     how long before the start free cancellation ends; null: never (always free)
 * @param afterCutoff what a cancel after the cutoff does
 */
public record CancellationPolicy(@Nullable Duration cutoff, LateCancel afterCutoff) {
    /** What a cancel after the cutoff does. */
    public enum LateCancel {
        /** The cancel is refused: {@link TooLateToCancel}, nothing changes. */
        REFUSE,
        /** The cancel goes through and is marked late. */
        ACCEPT_LATE
    }

    private static final CancellationPolicy FREE = new CancellationPolicy(null, LateCancel.ACCEPT_LATE);

    /**
     * Checks the components: a kind and, except for FREE, a cutoff of whole seconds up to 366 days.
     *
     * @param cutoff how long before the start free cancellation ends; null: never (always free)
     * @param afterCutoff what a cancel after the cutoff does
     */
    public CancellationPolicy {
        if (cutoff != null) {
            Checks.notNegative("cutoff", cutoff);
            if (cutoff.compareTo(Duration.ofDays(366)) > 0) {
                throw new InvalidInputException("cutoff must be at most 366 days, got " + cutoff);
            }
            if (cutoff.getNano() != 0) {
                throw new InvalidInputException("cutoff must be whole seconds, got " + cutoff);
            }
        }
        Checks.notNull("afterCutoff", afterCutoff);
    }

    /** {@return cancel any time, free} */
    public static CancellationPolicy free() {
        return FREE;
    }

    /**
     * {@return free until {@code cutoff} before the start; later cancels are refused}
     *
     * @param cutoff how long before the start the free cancellation ends
     */
    public static CancellationPolicy refuseWithin(Duration cutoff) {
        return new CancellationPolicy(Checks.notNull("cutoff", cutoff), LateCancel.REFUSE);
    }

    /**
     * {@return free until {@code cutoff} before the start; later cancels go through, marked late}
     *
     * @param cutoff how long before the start the free cancellation ends
     */
    public static CancellationPolicy lateWithin(Duration cutoff) {
        return new CancellationPolicy(Checks.notNull("cutoff", cutoff), LateCancel.ACCEPT_LATE);
    }

    /**
     * {@return the instant free cancellation ends for a session starting at {@code start}, or null (never)}
     *
     * @param start the start of the session
     */
    public @Nullable Instant cutoffFor(Instant start) {
        return cutoff == null ? null : start.minus(cutoff);
    }
}
