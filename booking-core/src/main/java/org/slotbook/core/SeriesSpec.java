package org.slotbook.core;

import java.time.DayOfWeek;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalTime;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.slotbook.core.internal.Checks;

/**
 * A weekly series of sessions of one coach in one room: on {@code days}, at the wall-clock
 * {@code startTime} in {@code zone}, for {@code length}, on every such day from {@code firstDay} to
 * {@code lastDay} (inclusive). Wall-clock times hold across daylight-saving changes: an 18:00 class is
 * at 18:00 local time before and after. A start time that falls in a gap of the zone (a clock moved
 * forward) is moved later by the gap's length.
 *
 * <p>Each occurrence is a {@link SlotSpec} with the slot id {@code <seriesId>/<yyyy-MM-dd>} and the
 * series' capacity, cost, class type, buffer and cancellation policy; {@code opensBeforeStart} and
 * {@code closesBeforeStart} (null: none) give each occurrence its booking window relative to its start.
 *
 * <pre>{@code
 * SeriesSpec evenings = SeriesSpec.weekly(SeriesId.of("yoga-eve"), coach, room, 12)
 *     .on(DayOfWeek.TUESDAY, DayOfWeek.THURSDAY)
 *     .at(LocalTime.of(18, 0), Duration.ofHours(1), ZoneId.of("Asia/Shanghai"))
 *     .from(LocalDate.of(2027, 3, 2)).forWeeks(10);
 * }</pre>
 */
public record SeriesSpec(SeriesId seriesId, CoachId coachId, RoomId roomId, int capacity, Set<DayOfWeek> days,
                         LocalTime startTime, Duration length, ZoneId zone, LocalDate firstDay, LocalDate lastDay,
                         @Nullable Duration opensBeforeStart, @Nullable Duration closesBeforeStart, Duration buffer,
                         @Nullable CancellationPolicy cancellation, @Nullable String classType, int cost) {
    /** A series spans at most this many days (a year and a day). */
    public static final int MAX_DAYS = 366;

    /**
     * Checks the components: everything present, at least one occurrence, at most 52 weeks.
     *
     * @param seriesId the weekly series
     * @param coachId the coach who teaches the session
     * @param roomId the room the session is in
     * @param capacity the number of seats of the slot
     * @param days the days of the week with a session
     * @param startTime the wall-clock start of each session
     * @param length how long each session lasts
     * @param zone the zone of the wall-clock times and dates
     * @param firstDay the first day of the series
     * @param lastDay the last day of the series, inclusive
     * @param opensBeforeStart how long before the start check-in opens
     * @param closesBeforeStart how long before each start booking closes (null: at the start)
     * @param buffer turnover time after the session for the coach and the room
     * @param cancellation the series' own cancellation policy (null: the tenant's)
     * @param classType the class type (null: none)
     * @param cost credits one booking costs (0: free)
     */
    public SeriesSpec {
        Checks.notNull("seriesId", seriesId);
        Checks.notNull("coachId", coachId);
        Checks.notNull("roomId", roomId);
        Checks.between("capacity", capacity, 1, SlotSpec.MAX_CAPACITY);
        Checks.notNull("days", days);
        if (days.isEmpty()) {
            throw new InvalidInputException("days must name at least one day of the week");
        }
        days = Set.copyOf(days);
        Checks.notNull("startTime", startTime);
        Checks.positive("length", length);
        Checks.notNull("zone", zone);
        Checks.notNull("firstDay", firstDay);
        Checks.notNull("lastDay", lastDay);
        if (lastDay.isBefore(firstDay)) {
            throw new InvalidInputException("lastDay " + lastDay + " must not be before firstDay " + firstDay);
        }
        long span = ChronoUnit.DAYS.between(firstDay, lastDay) + 1;
        if (span > MAX_DAYS) {
            throw new InvalidInputException("a series spans at most " + MAX_DAYS + " days, got " + span + " (firstDay "
                    + firstDay + ", lastDay " + lastDay + ")");
        }
        if (opensBeforeStart != null) {
            Checks.notNegative("opensBeforeStart", opensBeforeStart);
        }
        if (closesBeforeStart != null) {
            Checks.notNegative("closesBeforeStart", closesBeforeStart);
        }
        buffer = buffer == null ? Duration.ZERO : buffer;
        if (classType != null) {
            Checks.classType("classType", classType);
        }
        Checks.between("cost", cost, 0, SlotSpec.MAX_COST);
    }

    /**
     * Starts a weekly series: name its days, time and span next.
     *
     * @param seriesId the weekly series
     * @param coachId the coach who teaches the session
     * @param roomId the room the session is in
     * @param capacity the number of seats of the slot
     * @return the first step of the series: its days
     */
    public static Days weekly(SeriesId seriesId, CoachId coachId, RoomId roomId, int capacity) {
        return new Days(seriesId, coachId, roomId, capacity);
    }

    /** {@return the occurrences, in time order} */
    public List<SlotSpec> occurrences() {
        List<SlotSpec> list = new ArrayList<>();
        for (LocalDate day = firstDay; !day.isAfter(lastDay); day = day.plusDays(1)) {
            if (!days.contains(day.getDayOfWeek())) {
                continue;
            }
            Instant start = ZonedDateTime.of(day, startTime, zone).toInstant();
            TimeRange time = TimeRange.of(start, start.plus(length));
            Instant opens = opensBeforeStart == null ? null : start.minus(opensBeforeStart);
            Instant closes = closesBeforeStart == null ? null : start.minus(closesBeforeStart);
            list.add(new SlotSpec(seriesId.occurrence(day), coachId, roomId, time, capacity, opens, closes, buffer,
                    cancellation, false, classType, cost));
        }
        return list;
    }

    /**
     * {@return this series with each occurrence costing {@code credits} from the student's package}
     *
     * @param credits the cost of one occurrence (0..1000; 0: free)
     */
    public SeriesSpec withCost(int credits) {
        return new SeriesSpec(seriesId, coachId, roomId, capacity, days, startTime, length, zone, firstDay, lastDay,
                opensBeforeStart, closesBeforeStart, buffer, cancellation, classType, credits);
    }

    /**
     * {@return this series of a class type (null: none)}
     *
     * @param type the class type
     */
    public SeriesSpec withClassType(@Nullable String type) {
        return new SeriesSpec(seriesId, coachId, roomId, capacity, days, startTime, length, zone, firstDay, lastDay,
                opensBeforeStart, closesBeforeStart, buffer, cancellation, type, cost);
    }

    /**
     * Turnover time of the coach and the room after each session (see {@link SlotSpec#withBuffer(Duration)}).
     *
     * @param turnover time after the session before the coach and the room are free again
     * @return this series with that buffer
     */
    public SeriesSpec withBuffer(Duration turnover) {
        return new SeriesSpec(seriesId, coachId, roomId, capacity, days, startTime, length, zone, firstDay, lastDay,
                opensBeforeStart, closesBeforeStart, Checks.notNull("buffer", turnover), cancellation, classType,
                cost);
    }

    /**
     * Booking of each occurrence opens {@code opensBefore} its start and closes {@code closesBefore} it (null:
     * none).
     *
     * @param opensBefore how long before each start booking opens (null: at once)
     * @param closesBefore how long before each start booking closes (null: at the start)
     * @return this series with that booking window
     */
    public SeriesSpec withBookingWindow(@Nullable Duration opensBefore, @Nullable Duration closesBefore) {
        return new SeriesSpec(seriesId, coachId, roomId, capacity, days, startTime, length, zone, firstDay, lastDay,
                opensBefore, closesBefore, buffer, cancellation, classType, cost);
    }

    /**
     * {@return this series with a cancellation policy of its own (null: the tenant's)}
     *
     * @param policy the cancellation policy
     */
    public SeriesSpec withCancellation(@Nullable CancellationPolicy policy) {
        return new SeriesSpec(seriesId, coachId, roomId, capacity, days, startTime, length, zone, firstDay, lastDay,
                opensBeforeStart, closesBeforeStart, buffer, policy, classType, cost);
    }

    /** The first step of {@link #weekly}: the days of the week. */
    public record Days(SeriesId seriesId, CoachId coachId, RoomId roomId, int capacity) {
        /**
         * {@return the next step, the time of day: on these days of the week}
         *
         * @param first a day of the week
         * @param more the other days
         */
        public Time on(DayOfWeek first, DayOfWeek... more) {
            EnumSet<DayOfWeek> set = EnumSet.of(Checks.notNull("days", first));
            for (DayOfWeek d : more) {
                set.add(Checks.notNull("days", d));
            }
            return new Time(this, set);
        }
    }

    /** The second step: the wall-clock start, the length, the zone. */
    public record Time(Days series, Set<DayOfWeek> days) {
        /**
         * {@return the next step, the span: each session at this time of day, this long, in this zone}
         *
         * @param startTime the wall-clock start
         * @param length how long each session lasts
         * @param zone the zone of the wall clock
         */
        public Span at(LocalTime startTime, Duration length, ZoneId zone) {
            return new Span(this, Checks.notNull("startTime", startTime), Checks.positive("length", length),
                    Checks.notNull("zone", zone));
        }
    }

    /** The third step: the first day. */
    public record Span(Time time, LocalTime startTime, Duration length, ZoneId zone) {
        /**
         * {@return the last step, the end: from this first day}
         *
         * @param firstDay the first day of the series
         */
        public Until from(LocalDate firstDay) {
            return new Until(this, Checks.notNull("firstDay", firstDay));
        }
    }

    /** The last step: for how many weeks, or until which day. */
    public record Until(Span span, LocalDate firstDay) {
        /**
         * {@code weeks} weeks (1..52) from the first day.
         *
         * @param weeks the number of weeks (1..52)
         * @return the series, ending {@code weeks} weeks after its first day
         */
        public SeriesSpec forWeeks(int weeks) {
            Checks.between("weeks", weeks, 1, 52);
            return until(firstDay.plusWeeks(weeks).minusDays(1));
        }

        /**
         * Until {@code lastDay}, inclusive.
         *
         * @param lastDay the last day of the series, inclusive
         * @return the series, ending on {@code lastDay}
         */
        public SeriesSpec until(LocalDate lastDay) {
            Days d = span.time().series();
            return new SeriesSpec(d.seriesId(), d.coachId(), d.roomId(), d.capacity(), span.time().days(),
                    span.startTime(), span.length(), span.zone(), firstDay, Checks.notNull("lastDay", lastDay), null,
                    null, Duration.ZERO, null, null, 0);
        }
    }
}
