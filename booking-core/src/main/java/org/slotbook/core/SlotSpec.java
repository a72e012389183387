package org.slotbook.core;

import java.time.Duration;
import java.time.Instant;
import org.jspecify.annotations.Nullable;
import org.slotbook.core.internal.Checks;

/**
 * What to schedule: a session of one coach in one room over a time range, with a number of seats.
 * Capacity is 1..100000; the engine additionally refuses sessions longer than its configured
 * maximum duration (24 hours by default).
 *
 * <p>Optional rules of the slot, each decided by the store in the step that claims a seat:
 * <ul>
 *   <li>{@code opensAt}: booking opens at this instant (a hold before it answers {@link NotOpenYet});
 *       null: open as soon as scheduled;</li>
 *   <li>{@code closesAt}: booking stops at this instant ({@link BookingClosed}); null: at the end;</li>
 *   <li>{@code buffer}: turnover time of the coach and the room after the session (for example a room
 *       that takes 15 minutes to clean); another session of the same coach or room may start only
 *       after {@code end + buffer}. Students are checked against the session itself. Zero: back to
 *       back is fine. With {@code bufferStudents}, a student's booking takes the padded time as well
 *       (another session of the student may start only after {@code end + buffer});</li>
 *   <li>{@code cancellation}: this slot's cancellation policy; null: the tenant's
 *       ({@link BookingRules#cancellation()});</li>
 *   <li>{@code cost}: credits a booking draws from the student's {@link LessonPackage} (0: none), and
 *       {@code classType}: the type a package must cover to pay for it (null: any package).</li>
 * </ul>
 */
public record SlotSpec(SlotId slotId, CoachId coachId, RoomId roomId, TimeRange time, int capacity,
                       @Nullable Instant opensAt, @Nullable Instant closesAt, Duration buffer,
                       @Nullable CancellationPolicy cancellation, boolean bufferStudents, @Nullable String classType,
                       int cost) {
    public static final int MAX_CAPACITY = 100_000;
    /** The longest buffer a slot may have. */
    public static final Duration MAX_BUFFER = Duration.ofHours(24);
    /** The highest cost of a slot in credits. */
    public static final int MAX_COST = 1_000;

    public SlotSpec {
        Checks.notNull("slotId", slotId);
        Checks.notNull("coachId", coachId);
        Checks.notNull("roomId", roomId);
        Checks.notNull("time", time);
        Checks.between("capacity", capacity, 1, MAX_CAPACITY);
        opensAt = opensAt == null ? null : Checks.micros("opensAt", opensAt);
        closesAt = closesAt == null ? null : Checks.micros("closesAt", closesAt);
        if (opensAt != null && !opensAt.isBefore(time.end())) {
            throw new InvalidInputException("opensAt " + opensAt + " must be before the end " + time.end());
        }
        if (closesAt != null && closesAt.isAfter(time.end())) {
            throw new InvalidInputException("closesAt " + closesAt + " must not be after the end " + time.end());
        }
        if (opensAt != null && closesAt != null && !opensAt.isBefore(closesAt)) {
            throw new InvalidInputException("opensAt " + opensAt + " must be before closesAt " + closesAt);
        }
        buffer = buffer == null ? Duration.ZERO : Checks.notNegative("buffer", buffer);
        if (buffer.compareTo(MAX_BUFFER) > 0) {
            throw new InvalidInputException("buffer must be at most " + MAX_BUFFER + ", got " + buffer);
        }
        if (buffer.getNano() != 0) {
            throw new InvalidInputException("buffer must be whole seconds, got " + buffer);
        }
        if (classType != null) {
            Checks.classType("classType", classType);
        }
        Checks.between("cost", cost, 0, MAX_COST);
    }

    public SlotSpec(SlotId slotId, CoachId coachId, RoomId roomId, TimeRange time, int capacity,
                    @Nullable Instant opensAt, @Nullable Instant closesAt, Duration buffer,
                    @Nullable CancellationPolicy cancellation, boolean bufferStudents) {
        this(slotId, coachId, roomId, time, capacity, opensAt, closesAt, buffer, cancellation, bufferStudents, null, 0);
    }

    public SlotSpec(SlotId slotId, CoachId coachId, RoomId roomId, TimeRange time, int capacity) {
        this(slotId, coachId, roomId, time, capacity, null, null, Duration.ZERO, null, false);
    }

    public SlotSpec(SlotId slotId, CoachId coachId, RoomId roomId, TimeRange time, int capacity,
                    @Nullable Instant opensAt, @Nullable Instant closesAt, Duration buffer,
                    @Nullable CancellationPolicy cancellation) {
        this(slotId, coachId, roomId, time, capacity, opensAt, closesAt, buffer, cancellation, false);
    }

    /** This spec with booking open from {@code opensAt} (null: at once) until {@code closesAt} (null: the end). */
    public SlotSpec withBookingWindow(@Nullable Instant opensAt, @Nullable Instant closesAt) {
        return new SlotSpec(slotId, coachId, roomId, time, capacity, opensAt, closesAt, buffer, cancellation,
                bufferStudents, classType, cost);
    }

    /** This spec with booking opening at {@code opensAt}. */
    public SlotSpec opensAt(@Nullable Instant at) {
        return withBookingWindow(at, closesAt);
    }

    /** This spec with booking stopping {@code before} the start. */
    public SlotSpec closesBeforeStart(Duration before) {
        Checks.notNegative("before", before);
        return withBookingWindow(opensAt, time.start().minus(before));
    }

    /** This spec with {@code buffer} of turnover time for the coach and the room after the session. */
    public SlotSpec withBuffer(Duration turnover) {
        return new SlotSpec(slotId, coachId, roomId, time, capacity, opensAt, closesAt,
                Checks.notNull("buffer", turnover), cancellation, bufferStudents, classType, cost);
    }

    /**
     * This spec with {@code buffer} after the session for the coach and the room, and, when
     * {@code studentsToo}, for each booked student as well (a student's next session may start only
     * after the turnover too, for example time to shower and change).
     */
    public SlotSpec withBuffer(Duration turnover, boolean studentsToo) {
        return new SlotSpec(slotId, coachId, roomId, time, capacity, opensAt, closesAt,
                Checks.notNull("buffer", turnover), cancellation, studentsToo, classType, cost);
    }

    /** This spec with a cancellation policy of its own (null: the tenant's). */
    public SlotSpec withCancellation(@Nullable CancellationPolicy policy) {
        return new SlotSpec(slotId, coachId, roomId, time, capacity, opensAt, closesAt, buffer, policy,
                bufferStudents, classType, cost);
    }

    /**
     * This spec costing {@code credits} (0..1000) from the student's {@link LessonPackage} per booking;
     * 0: no package needed.
     */
    public SlotSpec withCost(int credits) {
        return new SlotSpec(slotId, coachId, roomId, time, capacity, opensAt, closesAt, buffer, cancellation,
                bufferStudents, classType, credits);
    }

    /** This spec of class type {@code type} (null: none): only packages covering the type pay for it. */
    public SlotSpec withClassType(@Nullable String type) {
        return new SlotSpec(slotId, coachId, roomId, time, capacity, opensAt, closesAt, buffer, cancellation,
                bufferStudents, type, cost);
    }
}
