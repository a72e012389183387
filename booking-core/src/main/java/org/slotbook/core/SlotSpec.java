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
    /** The most seats a slot may have. */
    public static final int MAX_CAPACITY = 100_000;
    /** The longest buffer a slot may have. */
    public static final Duration MAX_BUFFER = Duration.ofHours(24);
    /** The highest cost of a slot in credits. */
    public static final int MAX_COST = 1_000;

    /**
     * Checks the components: ids and time present, the capacity and the cost in range, instants in whole
     * microseconds.
     *
     * @param slotId the slot, by its id within the tenant
     * @param coachId the coach who teaches the session
     * @param roomId the room the session is in
     * @param time when the session runs
     * @param capacity the number of seats of the slot
     * @param opensAt when booking opens (null: open now)
     * @param closesAt when booking closes (null: at the end)
     * @param buffer turnover time after the session for the coach and the room
     * @param cancellation the slot's own cancellation policy (null: the tenant's)
     * @param bufferStudents true: each booked student's time is padded by the buffer too
     * @param classType the class type (null: none)
     * @param cost credits one booking costs (0: free)
     */
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

    /**
     * A spec without class type or cost.
     *
     * @param slotId the slot, by its id within the tenant
     * @param coachId the coach who teaches the session
     * @param roomId the room the session is in
     * @param time when the session runs
     * @param capacity the number of seats of the slot
     * @param opensAt when booking opens (null: open now)
     * @param closesAt when booking closes (null: at the end)
     * @param buffer turnover time after the session for the coach and the room
     * @param cancellation the slot's own cancellation policy (null: the tenant's)
     * @param bufferStudents true: each booked student's time is padded by the buffer too
     */
    public SlotSpec(SlotId slotId, CoachId coachId, RoomId roomId, TimeRange time, int capacity,
                    @Nullable Instant opensAt, @Nullable Instant closesAt, Duration buffer,
                    @Nullable CancellationPolicy cancellation, boolean bufferStudents) {
        this(slotId, coachId, roomId, time, capacity, opensAt, closesAt, buffer, cancellation, bufferStudents, null, 0);
    }

    /**
     * A spec open for booking now until the end, without buffer or own cancellation policy.
     *
     * @param slotId the slot, by its id within the tenant
     * @param coachId the coach who teaches the session
     * @param roomId the room the session is in
     * @param time when the session runs
     * @param capacity the number of seats of the slot
     */
    public SlotSpec(SlotId slotId, CoachId coachId, RoomId roomId, TimeRange time, int capacity) {
        this(slotId, coachId, roomId, time, capacity, null, null, Duration.ZERO, null, false);
    }

    /**
     * A spec with a class type and a cost.
     *
     * @param slotId the slot, by its id within the tenant
     * @param coachId the coach who teaches the session
     * @param roomId the room the session is in
     * @param time when the session runs
     * @param capacity the number of seats of the slot
     * @param opensAt when booking opens (null: open now)
     * @param closesAt when booking closes (null: at the end)
     * @param buffer turnover time after the session for the coach and the room
     * @param cancellation the slot's own cancellation policy (null: the tenant's)
     */
    public SlotSpec(SlotId slotId, CoachId coachId, RoomId roomId, TimeRange time, int capacity,
                    @Nullable Instant opensAt, @Nullable Instant closesAt, Duration buffer,
                    @Nullable CancellationPolicy cancellation) {
        this(slotId, coachId, roomId, time, capacity, opensAt, closesAt, buffer, cancellation, false);
    }

    /**
     * {@return this spec with booking open from {@code opensAt} (null: at once) until {@code closesAt} (null:
     * the end)}
     *
     * @param opensAt when booking opens (null: open now)
     * @param closesAt when booking closes (null: at the end)
     */
    public SlotSpec withBookingWindow(@Nullable Instant opensAt, @Nullable Instant closesAt) {
        return new SlotSpec(slotId, coachId, roomId, time, capacity, opensAt, closesAt, buffer, cancellation,
                bufferStudents, classType, cost);
    }

    /**
     * {@return this spec with booking opening at {@code opensAt}}
     *
     * @param at when booking opens (null: at once)
     */
    public SlotSpec opensAt(@Nullable Instant at) {
        return withBookingWindow(at, closesAt);
    }

    /**
     * {@return this spec with booking stopping {@code before} the start}
     *
     * @param before how long before the start
     */
    public SlotSpec closesBeforeStart(Duration before) {
        Checks.notNegative("before", before);
        return withBookingWindow(opensAt, time.start().minus(before));
    }

    /**
     * {@return this spec with {@code buffer} of turnover time for the coach and the room after the session}
     *
     * @param turnover time after the session before the coach and the room are free again
     */
    public SlotSpec withBuffer(Duration turnover) {
        return new SlotSpec(slotId, coachId, roomId, time, capacity, opensAt, closesAt,
                Checks.notNull("buffer", turnover), cancellation, bufferStudents, classType, cost);
    }

    /**
     * {@return this spec with {@code buffer} after the session for the coach and the room, and, when
     * {@code studentsToo}, for each booked student as well (a student's next session may start only
     * after the turnover too, for example time to shower and change)}
     *
     * @param turnover time after the session before the coach and the room are free again
     * @param studentsToo true: each booked student's time is padded too
     */
    public SlotSpec withBuffer(Duration turnover, boolean studentsToo) {
        return new SlotSpec(slotId, coachId, roomId, time, capacity, opensAt, closesAt,
                Checks.notNull("buffer", turnover), cancellation, studentsToo, classType, cost);
    }

    /**
     * {@return this spec with a cancellation policy of its own (null: the tenant's)}
     *
     * @param policy the slot's own policy (null: the tenant's)
     */
    public SlotSpec withCancellation(@Nullable CancellationPolicy policy) {
        return new SlotSpec(slotId, coachId, roomId, time, capacity, opensAt, closesAt, buffer, policy,
                bufferStudents, classType, cost);
    }

    /**
     * {@return this spec costing {@code credits} (0..1000) from the student's {@link LessonPackage} per booking;
     * 0: no package needed}
     *
     * @param credits credits one booking costs (0..1000; 0: free)
     */
    public SlotSpec withCost(int credits) {
        return new SlotSpec(slotId, coachId, roomId, time, capacity, opensAt, closesAt, buffer, cancellation,
                bufferStudents, classType, credits);
    }

    /**
     * {@return this spec of class type {@code type} (null: none): only packages covering the type pay for it}
     *
     * @param type the class type (null: none)
     */
    public SlotSpec withClassType(@Nullable String type) {
        return new SlotSpec(slotId, coachId, roomId, time, capacity, opensAt, closesAt, buffer, cancellation,
                bufferStudents, type, cost);
    }
}
