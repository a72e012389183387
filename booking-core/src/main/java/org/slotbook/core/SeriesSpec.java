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

    /** Starts a weekly series: name its days, time and span next. */
    public static Days weekly(SeriesId seriesId, CoachId coachId, RoomId roomId, int capacity) {
        return new Days(seriesId, coachId, roomId, capacity);
    }

    /** The occurrences, in time order. */
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

    public SeriesSpec withCost(int credits) {
        return new SeriesSpec(seriesId, coachId, roomId, capacity, days, startTime, length, zone, firstDay, lastDay,
                opensBeforeStart, closesBeforeStart, buffer, cancellation, classType, credits);
    }

    public SeriesSpec withClassType(@Nullable String type) {
        return new SeriesSpec(seriesId, coachId, roomId, capacity, days, startTime, length, zone, firstDay, lastDay,
                opensBeforeStart, closesBeforeStart, buffer, cancellation, type, cost);
    }

    /** Turnover time of the coach and the room after each session (see {@link SlotSpec#withBuffer(Duration)}). */
    public SeriesSpec withBuffer(Duration turnover) {
        return new SeriesSpec(seriesId, coachId, roomId, capacity, days, startTime, length, zone, firstDay, lastDay,
                opensBeforeStart, closesBeforeStart, Checks.notNull("buffer", turnover), cancellation, classType,
                cost);
    }

    /** Booking of each occurrence opens {@code opensBefore} its start and closes {@code closesBefore} it (null: none). */
    public SeriesSpec withBookingWindow(@Nullable Duration opensBefore, @Nullable Duration closesBefore) {
        return new SeriesSpec(seriesId, coachId, roomId, capacity, days, startTime, length, zone, firstDay, lastDay,
                opensBefore, closesBefore, buffer, cancellation, classType, cost);
    }

    public SeriesSpec withCancellation(@Nullable CancellationPolicy policy) {
        return new SeriesSpec(seriesId, coachId, roomId, capacity, days, startTime, length, zone, firstDay, lastDay,
                opensBeforeStart, closesBeforeStart, buffer, policy, classType, cost);
    }

    /** The first step of {@link #weekly}: the days of the week. */
    public record Days(SeriesId seriesId, CoachId coachId, RoomId roomId, int capacity) {
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
        public Span at(LocalTime startTime, Duration length, ZoneId zone) {
            return new Span(this, Checks.notNull("startTime", startTime), Checks.positive("length", length),
                    Checks.notNull("zone", zone));
        }
    }

    /** The third step: the first day. */
    public record Span(Time time, LocalTime startTime, Duration length, ZoneId zone) {
        public Until from(LocalDate firstDay) {
            return new Until(this, Checks.notNull("firstDay", firstDay));
        }
    }

    /** The last step: for how many weeks, or until which day. */
    public record Until(Span span, LocalDate firstDay) {
        /** {@code weeks} weeks (1..52) from the first day. */
        public SeriesSpec forWeeks(int weeks) {
            Checks.between("weeks", weeks, 1, 52);
            return until(firstDay.plusWeeks(weeks).minusDays(1));
        }

        /** Until {@code lastDay}, inclusive. */
        public SeriesSpec until(LocalDate lastDay) {
            Days d = span.time().series();
            return new SeriesSpec(d.seriesId(), d.coachId(), d.roomId(), d.capacity(), span.time().days(),
                    span.startTime(), span.length(), span.zone(), firstDay, Checks.notNull("lastDay", lastDay), null,
                    null, Duration.ZERO, null, null, 0);
        }
    }
}
