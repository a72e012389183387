package org.slotbook.core;

import java.time.Duration;
import java.time.ZoneId;
import org.slotbook.core.internal.Checks;

/**
 * The booking rules of a tenant, decided by the store in the same atomic step as the seat claim:
 *
 * <ul>
 *   <li>{@code cancellation}: free cancellation until a cutoff before the start (a slot may override
 *       it, {@link SlotSpec#withCancellation});</li>
 *   <li>{@code maxUpcoming}: at most this many live bookings (HELD or CONFIRMED) of one student in
 *       sessions that have not ended (0: no limit);</li>
 *   <li>{@code maxPerWeek}: at most this many live bookings of one student in sessions starting in one
 *       calendar week (Monday 00:00 to Monday 00:00 in {@code zone}; 0: no limit). The week of a slot is
 *       fixed when it is scheduled, in the zone the rules name then;</li>
 *   <li>{@code waitlistCutoff}: a waiter is promoted to a freed seat only until this long before the
 *       start; later, a freed seat is sold to whoever asks.</li>
 * </ul>
 *
 * Rules are configuration: the engine passes them with every call ({@link BookingEngine.Builder#rules}).
 */
public record BookingRules(CancellationPolicy cancellation, int maxUpcoming, int maxPerWeek, ZoneId zone,
                           Duration waitlistCutoff) {
    private static final BookingRules DEFAULTS = new BookingRules(CancellationPolicy.free(), 0, 0,
            ZoneId.of("UTC"), Duration.ZERO);

    public BookingRules {
        Checks.notNull("cancellation", cancellation);
        Checks.between("maxUpcoming", maxUpcoming, 0, 100_000);
        Checks.between("maxPerWeek", maxPerWeek, 0, 100_000);
        Checks.notNull("zone", zone);
        Checks.notNegative("waitlistCutoff", waitlistCutoff);
        if (waitlistCutoff.compareTo(Duration.ofDays(366)) > 0) {
            throw new IllegalArgumentException("waitlistCutoff must be at most 366 days, got " + waitlistCutoff);
        }
    }

    /** Free cancellation, no limits, weeks in UTC, waiters promoted until the start. */
    public static BookingRules defaults() {
        return DEFAULTS;
    }

    public BookingRules withCancellation(CancellationPolicy policy) {
        return new BookingRules(policy, maxUpcoming, maxPerWeek, zone, waitlistCutoff);
    }

    public BookingRules withMaxUpcoming(int max) {
        return new BookingRules(cancellation, max, maxPerWeek, zone, waitlistCutoff);
    }

    public BookingRules withMaxPerWeek(int max, ZoneId weekZone) {
        return new BookingRules(cancellation, maxUpcoming, max, weekZone, waitlistCutoff);
    }

    public BookingRules withWaitlistCutoff(Duration cutoff) {
        return new BookingRules(cancellation, maxUpcoming, maxPerWeek, zone, cutoff);
    }
}
