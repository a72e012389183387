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
 *       start; later, a freed seat is sold to whoever asks;</li>
 *   <li>{@code checkInOpensBefore}, {@code checkInClosesAfterEnd}: a CONFIRMED booking can be checked in
 *       from this long before the start until this long after the end (default 30 minutes before, until
 *       the end);</li>
 *   <li>{@code marksNoShows}: the sweep marks CONFIRMED bookings that were not checked in when the
 *       check-in window closed as {@link Attendance#NO_SHOW} (default off);</li>
 *   <li>{@code credits}: when a slot's {@link Slot#cost() cost} is drawn from the student's
 *       {@link LessonPackage} ({@link CreditPolicy}, default at booking).</li>
 * </ul>
 *
 * Rules are configuration: the engine passes them with every call ({@link BookingEngine.Builder#rules}).
 */
public record BookingRules(CancellationPolicy cancellation, int maxUpcoming, int maxPerWeek, ZoneId zone,
                           Duration waitlistCutoff, Duration checkInOpensBefore, Duration checkInClosesAfterEnd,
                           boolean marksNoShows, CreditPolicy credits) {
    private static final Duration CHECK_IN_OPENS = Duration.ofMinutes(30);
    private static final BookingRules DEFAULTS = new BookingRules(CancellationPolicy.free(), 0, 0,
            ZoneId.of("UTC"), Duration.ZERO, CHECK_IN_OPENS, Duration.ZERO, false, CreditPolicy.AT_BOOKING);

    /**
     * Checks the components: the limits from 0 to 100,000, the cutoff at most 366 days, whole seconds.
     *
     * @param cancellation the policy of every slot that has none of its own
     * @param maxUpcoming the most upcoming live bookings a student may have (0: no limit)
     * @param maxPerWeek the most bookings a student may have in one calendar week (0: no limit)
     * @param zone the zone whose calendar weeks count toward the weekly limit
     * @param waitlistCutoff how long before the start waiters stop being promoted
     * @param checkInOpensBefore how long before the start check-in opens
     * @param checkInClosesAfterEnd how long after the end check-in stays open
     * @param marksNoShows true: the sweep marks a confirmed booking not checked in as a no-show
     * @param credits when a slot's cost is drawn: at booking or at check-in
     */
    public BookingRules {
        Checks.notNull("cancellation", cancellation);
        Checks.between("maxUpcoming", maxUpcoming, 0, 100_000);
        Checks.between("maxPerWeek", maxPerWeek, 0, 100_000);
        Checks.notNull("zone", zone);
        Checks.notNegative("waitlistCutoff", waitlistCutoff);
        if (waitlistCutoff.compareTo(Duration.ofDays(366)) > 0) {
            throw new InvalidInputException("waitlistCutoff must be at most 366 days, got " + waitlistCutoff);
        }
        seconds("checkInOpensBefore", checkInOpensBefore);
        seconds("checkInClosesAfterEnd", checkInClosesAfterEnd);
        Checks.notNull("credits", credits);
    }

    /**
     * The rules with check-in 30 minutes before the start until the end, no no-shows, credits at booking.
     *
     * @param cancellation the policy of every slot that has none of its own
     * @param maxUpcoming the most upcoming live bookings a student may have (0: no limit)
     * @param maxPerWeek the most bookings a student may have in one calendar week (0: no limit)
     * @param zone the zone whose calendar weeks count toward the weekly limit
     * @param waitlistCutoff how long before the start waiters stop being promoted
     */
    public BookingRules(CancellationPolicy cancellation, int maxUpcoming, int maxPerWeek, ZoneId zone,
                        Duration waitlistCutoff) {
        this(cancellation, maxUpcoming, maxPerWeek, zone, waitlistCutoff, CHECK_IN_OPENS, Duration.ZERO, false,
                CreditPolicy.AT_BOOKING);
    }

    private static void seconds(String field, Duration value) {
        Checks.notNegative(field, value);
        if (value.compareTo(Duration.ofDays(7)) > 0 || value.getNano() != 0) {
            throw new InvalidInputException(field, field + " must be whole seconds of at most 7 days, got " + value);
        }
    }

    /** {@return free cancellation, no limits, weeks in UTC, waiters promoted until the start} */
    public static BookingRules defaults() {
        return DEFAULTS;
    }

    /**
     * {@return these rules with another cancellation policy}
     *
     * @param policy the cancellation policy of every slot that has none of its own
     */
    public BookingRules withCancellation(CancellationPolicy policy) {
        return new BookingRules(policy, maxUpcoming, maxPerWeek, zone, waitlistCutoff, checkInOpensBefore,
                checkInClosesAfterEnd, marksNoShows, credits);
    }

    /**
     * {@return these rules with another limit of upcoming bookings}
     *
     * @param max the most upcoming live bookings a student may have (0: no limit)
     */
    public BookingRules withMaxUpcoming(int max) {
        return new BookingRules(cancellation, max, maxPerWeek, zone, waitlistCutoff, checkInOpensBefore,
                checkInClosesAfterEnd, marksNoShows, credits);
    }

    /**
     * {@return these rules with another weekly limit}
     *
     * @param max the most bookings a student may have in one calendar week (0: no limit)
     * @param weekZone the zone whose calendar weeks count
     */
    public BookingRules withMaxPerWeek(int max, ZoneId weekZone) {
        return new BookingRules(cancellation, maxUpcoming, max, weekZone, waitlistCutoff, checkInOpensBefore,
                checkInClosesAfterEnd, marksNoShows, credits);
    }

    /**
     * {@return these rules with another waitlist cutoff}
     *
     * @param cutoff how long before the start waiters stop being promoted
     */
    public BookingRules withWaitlistCutoff(Duration cutoff) {
        return new BookingRules(cancellation, maxUpcoming, maxPerWeek, zone, cutoff, checkInOpensBefore,
                checkInClosesAfterEnd, marksNoShows, credits);
    }

    /**
     * Attendance: check-in from {@code opensBeforeStart} before the start until {@code closesAfterEnd}
     * after the end (whole seconds, at most 7 days each), and the sweep marks a CONFIRMED booking that was
     * not checked in by then as a {@link Attendance#NO_SHOW}.
     *
     * @param opensBeforeStart how long before the start check-in opens
     * @param closesAfterEnd how long after the end check-in closes
     * @return these rules with that attendance window
     */
    public BookingRules withAttendance(Duration opensBeforeStart, Duration closesAfterEnd) {
        return new BookingRules(cancellation, maxUpcoming, maxPerWeek, zone, waitlistCutoff, opensBeforeStart,
                closesAfterEnd, true, credits);
    }

    /**
     * When a slot's cost is drawn from the student's package.
     *
     * @param policy when the credits are drawn: at booking or at check-in
     * @return these rules with that credit policy
     */
    public BookingRules withCreditsDrawn(CreditPolicy policy) {
        return new BookingRules(cancellation, maxUpcoming, maxPerWeek, zone, waitlistCutoff, checkInOpensBefore,
                checkInClosesAfterEnd, marksNoShows, policy);
    }
}
