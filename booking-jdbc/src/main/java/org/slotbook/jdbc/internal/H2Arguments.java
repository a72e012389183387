package org.slotbook.jdbc.internal;

import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.slotbook.core.BookingId;
import org.slotbook.core.BookingRules;
import org.slotbook.core.BookingStatus;
import org.slotbook.core.CancellationPolicy;
import org.slotbook.core.CoachId;
import org.slotbook.core.CreditPolicy;
import org.slotbook.core.HoldRequest;
import org.slotbook.core.RequestId;
import org.slotbook.core.RoomId;
import org.slotbook.core.SeriesId;
import org.slotbook.core.SeriesMode;
import org.slotbook.core.Slot;
import org.slotbook.core.SlotId;
import org.slotbook.core.SlotStatus;
import org.slotbook.core.StudentId;
import org.slotbook.core.TenantId;
import org.slotbook.core.TimeRange;
import org.slotbook.core.rules.StoredSlot;
import org.slotbook.core.spi.HoldCommand;
import org.slotbook.core.spi.Terms;

/**
 * The SQL arguments of the H2 routines, checked as the contract says (SQLState 22023 naming the
 * parameter and its value) and turned into the rules' inputs: a hold command, the terms, a slot and its
 * week; the record encodings of schedule_series and hold_all.
 */
final class H2Arguments {
    private static final String INVALID_ARGUMENT = "22023";
    private static final List<String> POLICIES = List.of("FREE", "REFUSE", "LATE");

    private H2Arguments() {
    }

    static HoldCommand command(String bookingId, String requestId, String slotId, String student, String status,
                                       OffsetDateTime now, Long holdMicros, Long longestMicros, Boolean gateHeld,
                                       Boolean waitlist, Integer maxUpcoming, Integer maxWeek,
                                       Long waitlistCutoffMicros, String creditPolicy) throws SQLException {
        required("p_booking", bookingId);
        required("p_request", requestId);
        required("p_slot", slotId);
        required("p_student", student);
        if (!"HELD".equals(status) && !"CONFIRMED".equals(status)) {
            throw invalid("p_status must be 'HELD' or 'CONFIRMED', got " + status);
        }
        Terms terms = terms(null, holdMicros, longestMicros, maxUpcoming, maxWeek, waitlistCutoffMicros, creditPolicy,
                null, null, null);
        return new HoldCommand(BookingId.of(bookingId), new HoldRequest(RequestId.of(requestId), SlotId.of(slotId),
                StudentId.of(student), Boolean.TRUE.equals(waitlist)), BookingStatus.valueOf(status), clock(now),
                terms.holdTtl(), terms.longestSession(), Boolean.TRUE.equals(gateHeld), terms.rules());
    }

    /** The rules and promotion terms of a call; null durations of check-in are 0. */
    static Terms terms(@Nullable CancellationPolicy cancellation, Long holdMicros, Long longestMicros,
                               Integer maxUpcoming, Integer maxWeek, Long waitlistCutoffMicros, String creditPolicy,
                               @Nullable Long opensBeforeMicros, @Nullable Long closesAfterMicros,
                               @Nullable Boolean marksNoShows) throws SQLException {
        Duration hold = micros("p_hold_micros", holdMicros);
        Duration longest = micros("p_longest_micros", longestMicros);
        int upcoming = notNegative("p_max_upcoming", maxUpcoming);
        int week = notNegative("p_max_week", maxWeek);
        if (waitlistCutoffMicros == null || waitlistCutoffMicros < 0) {
            throw invalid("p_waitlist_cutoff_micros must not be negative, got " + waitlistCutoffMicros);
        }
        if (creditPolicy != null && !"AT_BOOKING".equals(creditPolicy) && !"AT_CHECK_IN".equals(creditPolicy)) {
            throw invalid("p_credit_policy must be 'AT_BOOKING', 'AT_CHECK_IN' or NULL, got " + creditPolicy);
        }
        // NULL: nothing drawn when a seat is taken, a payer still required (as at check-in)
        CreditPolicy credits = "AT_BOOKING".equals(creditPolicy) ? CreditPolicy.AT_BOOKING : CreditPolicy.AT_CHECK_IN;
        return new Terms(new BookingRules(cancellation == null ? CancellationPolicy.free() : cancellation, upcoming,
                week, ZoneOffset.UTC, Duration.of(waitlistCutoffMicros, ChronoUnit.MICROS),
                Duration.of(opensBeforeMicros == null ? 0 : opensBeforeMicros, ChronoUnit.MICROS),
                Duration.of(closesAfterMicros == null ? 0 : closesAfterMicros, ChronoUnit.MICROS),
                Boolean.TRUE.equals(marksNoShows), credits), hold, longest);
    }

    /** A slot as schedule and schedule_series store it; a missing week counts in an empty one. */
    static StoredSlot slot(TenantId tenant, String slotId, String coach, String room, OffsetDateTime start,
                                   OffsetDateTime end, Integer capacity, OffsetDateTime opensAt, OffsetDateTime closesAt,
                                   Integer bufferSeconds, String cancelPolicy, Integer cancelCutoffSeconds,
                                   OffsetDateTime weekStart, OffsetDateTime weekEnd, Boolean bufferStudents,
                                   String classType, Integer cost, String seriesId) throws SQLException {
        required("p_slot", slotId);
        required("p_coach", coach);
        required("p_room", room);
        required("p_capacity", capacity);
        Instant from = instant(required("p_start", start));
        Instant to = instant(required("p_end", end));
        int buffer = bufferSeconds == null ? 0 : bufferSeconds;
        if (buffer < 0) {
            throw invalid("p_buffer_seconds must not be negative, got " + bufferSeconds);
        }
        int price = cost == null ? 0 : cost;
        if (price < 0) {
            throw invalid("p_cost must not be negative, got " + cost);
        }
        CancellationPolicy policy = cancelPolicy == null ? null : cancellation("p_cancel_policy", cancelPolicy,
                cancelCutoffSeconds == null ? null : Duration.ofSeconds(cancelCutoffSeconds));
        Slot slot = new Slot(tenant, SlotId.of(slotId), CoachId.of(coach), RoomId.of(room), TimeRange.of(from, to),
                capacity, SlotStatus.OPEN, instant(opensAt), instant(closesAt), Duration.ofSeconds(buffer), policy,
                Boolean.TRUE.equals(bufferStudents), classType, price, seriesId == null ? null : SeriesId.of(seriesId));
        return weekStart == null || weekEnd == null ? new StoredSlot(slot, from, from)
                : new StoredSlot(slot, instant(weekStart), instant(weekEnd));
    }

    /** FREE, REFUSE or LATE with a cutoff; NULL: free. */
    static CancellationPolicy cancellation(String parameter, String policy, @Nullable Duration cutoff)
            throws SQLException {
        if (policy != null && !POLICIES.contains(policy)) {
            throw invalid(parameter + " must be 'FREE', 'REFUSE', 'LATE' or NULL, got " + policy);
        }
        if (policy == null || "FREE".equals(policy)) {
            return CancellationPolicy.free();
        }
        Duration within = cutoff == null ? Duration.ZERO : cutoff;
        return "REFUSE".equals(policy) ? CancellationPolicy.refuseWithin(within) : CancellationPolicy.lateWithin(within);
    }

    static SeriesMode mode(String mode) throws SQLException {
        if (!"ALL_OR_NOTHING".equals(mode) && !"BEST_EFFORT".equals(mode)) {
            throw invalid("p_mode must be ALL_OR_NOTHING or BEST_EFFORT, got " + mode);
        }
        return SeriesMode.valueOf(mode);
    }

    /** Records separated by U+001E, fields by U+001F, each of {@code fields} fields. */
    static List<String[]> records(String text, int fields) throws SQLException {
        List<String[]> out = new ArrayList<>();
        if (text == null || text.isEmpty()) {
            return out;
        }
        for (String record : text.split("\u001e", -1)) {
            String[] f = record.split("\u001f", -1);
            if (f.length != fields) {
                throw invalid("a record must have " + fields + " fields, got " + f.length + ": " + record);
            }
            out.add(f);
        }
        return out;
    }

    static String emptyToNull(String field) {
        return field == null || field.isEmpty() ? null : field;
    }

    static Integer integer(String field) throws SQLException {
        Long value = longOrNull(field);
        return value == null ? null : Math.toIntExact(value);
    }

    static Long longOrNull(String field) throws SQLException {
        try {
            return field == null || field.isEmpty() ? null : Long.valueOf(field);
        } catch (NumberFormatException e) {
            throw invalid("not an integer: '" + field + "'");
        }
    }

    /** An instant given as microseconds since the epoch; '' is NULL. */
    static OffsetDateTime epochMicros(String field) throws SQLException {
        Long micros = longOrNull(field);
        return micros == null ? null : at(Instant.EPOCH.plus(micros, ChronoUnit.MICROS));
    }

    static OffsetDateTime at(@Nullable Instant instant) {
        return H2Sql.at(instant);
    }

    static @Nullable Instant instant(@Nullable OffsetDateTime time) {
        return time == null ? null : time.toInstant().truncatedTo(ChronoUnit.MICROS);
    }

    /** p_now, or the JVM's clock (H2 is embedded), read once; at microsecond precision. */
    static Instant clock(@Nullable OffsetDateTime now) {
        return now != null ? instant(now) : Instant.now().truncatedTo(ChronoUnit.MICROS);
    }

    static <T> T required(String parameter, T value) throws SQLException {
        if (value == null) {
            throw invalid(parameter + " must not be NULL");
        }
        return value;
    }

    static Duration micros(String parameter, Long value) throws SQLException {
        if (value == null || value <= 0) {
            throw invalid(parameter + " must be positive, got " + value);
        }
        return Duration.of(value, ChronoUnit.MICROS);
    }

    static int notNegative(String parameter, Integer value) throws SQLException {
        if (value == null || value < 0) {
            throw invalid(parameter + " must not be negative, got " + value);
        }
        return value;
    }

    static SQLException invalid(String message) {
        return new SQLException(message, INVALID_ARGUMENT);
    }
}
