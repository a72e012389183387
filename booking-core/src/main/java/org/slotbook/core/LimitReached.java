package org.slotbook.core;

/**
 * The student already has {@code max} live bookings counted by {@code limit}
 * ({@link BookingRules#maxUpcoming()} or {@link BookingRules#maxPerWeek()}); nothing was written.
 */
public record LimitReached(Limit limit, int max) implements HoldResult {
    /** Which limit. */
    public enum Limit {
        /** Too many upcoming bookings ({@link BookingRules#maxUpcoming()}). */
        UPCOMING,
        /** Too many bookings in one calendar week ({@link BookingRules#maxPerWeek()}). */
        WEEKLY
    }
}
