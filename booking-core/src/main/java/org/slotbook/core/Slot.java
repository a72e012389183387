package org.slotbook.core;

import java.time.Duration;
import java.time.Instant;
import org.jspecify.annotations.Nullable;
import org.slotbook.core.internal.Checks;

/**
 * A scheduled session as stored by the ledger, with the rules of its {@link SlotSpec}.
 *
 * @param classType the class type a {@link LessonPackage} must cover to pay for it; null: none
 * @param cost      credits a booking draws from the student's package (0: no package needed)
 * @param seriesId  the weekly series this slot is an occurrence of; null for a one-off session
 */
public record Slot(TenantId tenantId, SlotId slotId, CoachId coachId, RoomId roomId, TimeRange time, int capacity,
                   SlotStatus status, @Nullable Instant opensAt, @Nullable Instant closesAt, Duration buffer,
                   @Nullable CancellationPolicy cancellation, boolean bufferStudents, @Nullable String classType,
                   int cost, @Nullable SeriesId seriesId) {
    /**
     * Checks the components: ids and time present, the capacity and the cost in range, instants in whole
     * microseconds.
     *
     * @param tenantId the tenant it belongs to
     * @param slotId the slot, by its id within the tenant
     * @param coachId the coach who teaches the session
     * @param roomId the room the session is in
     * @param time when the session runs
     * @param capacity the number of seats of the slot
     * @param status OPEN, or CANCELLED once called off
     * @param opensAt when booking opens (null: open now)
     * @param closesAt when booking closes (null: at the end)
     * @param buffer turnover time after the session for the coach and the room
     * @param cancellation the slot's own cancellation policy (null: the tenant's)
     * @param bufferStudents true: each booked student's time is padded by the buffer too
     * @param classType the class type a {@link LessonPackage} must cover to pay for it; null: none
     * @param cost credits a booking draws from the student's package (0: no package needed)
     * @param seriesId the weekly series this slot is an occurrence of; null for a one-off session
     */
    public Slot {
        Checks.notNull("tenantId", tenantId);
        Checks.notNull("slotId", slotId);
        Checks.notNull("coachId", coachId);
        Checks.notNull("roomId", roomId);
        Checks.notNull("time", time);
        Checks.between("capacity", capacity, 1, SlotSpec.MAX_CAPACITY);
        Checks.notNull("status", status);
        opensAt = opensAt == null ? null : Checks.micros("opensAt", opensAt);
        closesAt = closesAt == null ? null : Checks.micros("closesAt", closesAt);
        buffer = buffer == null ? Duration.ZERO : Checks.notNegative("buffer", buffer);
        if (classType != null) {
            Checks.classType("classType", classType);
        }
        Checks.between("cost", cost, 0, SlotSpec.MAX_COST);
    }

    /**
     * A slot without class type, cost or series.
     *
     * @param tenantId the tenant it belongs to
     * @param slotId the slot, by its id within the tenant
     * @param coachId the coach who teaches the session
     * @param roomId the room the session is in
     * @param time when the session runs
     * @param capacity the number of seats of the slot
     * @param status OPEN, or CANCELLED once called off
     * @param opensAt when booking opens (null: open now)
     * @param closesAt when booking closes (null: at the end)
     * @param buffer turnover time after the session for the coach and the room
     * @param cancellation the slot's own cancellation policy (null: the tenant's)
     * @param bufferStudents true: each booked student's time is padded by the buffer too
     */
    public Slot(TenantId tenantId, SlotId slotId, CoachId coachId, RoomId roomId, TimeRange time, int capacity,
                SlotStatus status, @Nullable Instant opensAt, @Nullable Instant closesAt, Duration buffer,
                @Nullable CancellationPolicy cancellation, boolean bufferStudents) {
        this(tenantId, slotId, coachId, roomId, time, capacity, status, opensAt, closesAt, buffer, cancellation,
                bufferStudents, null, 0, null);
    }

    /**
     * A slot open for booking now until the end, without buffer, own cancellation policy, class type, cost or
     * series.
     *
     * @param tenantId the tenant it belongs to
     * @param slotId the slot, by its id within the tenant
     * @param coachId the coach who teaches the session
     * @param roomId the room the session is in
     * @param time when the session runs
     * @param capacity the number of seats of the slot
     * @param status OPEN, or CANCELLED once called off
     */
    public Slot(TenantId tenantId, SlotId slotId, CoachId coachId, RoomId roomId, TimeRange time, int capacity,
                SlotStatus status) {
        this(tenantId, slotId, coachId, roomId, time, capacity, status, null, null, Duration.ZERO, null, false, null, 0,
                null);
    }

    /**
     * A slot with a class type and a cost, outside any series.
     *
     * @param tenantId the tenant it belongs to
     * @param slotId the slot, by its id within the tenant
     * @param coachId the coach who teaches the session
     * @param roomId the room the session is in
     * @param time when the session runs
     * @param capacity the number of seats of the slot
     * @param status OPEN, or CANCELLED once called off
     * @param opensAt when booking opens (null: open now)
     * @param closesAt when booking closes (null: at the end)
     * @param buffer turnover time after the session for the coach and the room
     * @param cancellation the slot's own cancellation policy (null: the tenant's)
     */
    public Slot(TenantId tenantId, SlotId slotId, CoachId coachId, RoomId roomId, TimeRange time, int capacity,
                SlotStatus status, @Nullable Instant opensAt, @Nullable Instant closesAt, Duration buffer,
                @Nullable CancellationPolicy cancellation) {
        this(tenantId, slotId, coachId, roomId, time, capacity, status, opensAt, closesAt, buffer, cancellation, false,
                null, 0, null);
    }

    /**
     * {@return a new OPEN slot of the tenant, as the spec describes it}
     *
     * @param tenantId the tenant it belongs to
     * @param spec what to schedule
     */
    public static Slot open(TenantId tenantId, SlotSpec spec) {
        return new Slot(tenantId, spec.slotId(), spec.coachId(), spec.roomId(), spec.time(), spec.capacity(),
                SlotStatus.OPEN, spec.opensAt(), spec.closesAt(), spec.buffer(), spec.cancellation(),
                spec.bufferStudents(), spec.classType(), spec.cost(), null);
    }

    /**
     * {@return true when this slot was scheduled from exactly this spec}
     *
     * @param spec the spec to compare with
     */
    public boolean matches(SlotSpec spec) {
        return slotId.equals(spec.slotId()) && coachId.equals(spec.coachId()) && roomId.equals(spec.roomId())
                && time.equals(spec.time()) && capacity == spec.capacity()
                && java.util.Objects.equals(opensAt, spec.opensAt())
                && java.util.Objects.equals(closesAt, spec.closesAt()) && buffer.equals(spec.buffer())
                && java.util.Objects.equals(cancellation, spec.cancellation())
                && bufferStudents == spec.bufferStudents()
                && java.util.Objects.equals(classType, spec.classType()) && cost == spec.cost();
    }

    /**
     * {@return this slot in {@code newStatus}}
     *
     * @param newStatus the new status
     */
    public Slot withStatus(SlotStatus newStatus) {
        return new Slot(tenantId, slotId, coachId, roomId, time, capacity, newStatus, opensAt, closesAt, buffer,
                cancellation, bufferStudents, classType, cost, seriesId);
    }

    /**
     * {@return this slot as an occurrence of {@code series}}
     *
     * @param series the series the slot is an occurrence of
     */
    public Slot inSeries(SeriesId series) {
        return new Slot(tenantId, slotId, coachId, roomId, time, capacity, status, opensAt, closesAt, buffer,
                cancellation, bufferStudents, classType, cost, series);
    }

    /** {@return the time a booked student is taken: the session, and its buffer when {@code bufferStudents}} */
    public TimeRange studentTime() {
        return bufferStudents ? paddedTime() : time;
    }

    /** {@return the time the coach and the room are taken: the session and its buffer after it} */
    public TimeRange paddedTime() {
        return buffer.isZero() ? time : TimeRange.of(time.start(), time.end().plus(buffer));
    }
}
