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

    public Slot(TenantId tenantId, SlotId slotId, CoachId coachId, RoomId roomId, TimeRange time, int capacity,
                SlotStatus status, @Nullable Instant opensAt, @Nullable Instant closesAt, Duration buffer,
                @Nullable CancellationPolicy cancellation, boolean bufferStudents) {
        this(tenantId, slotId, coachId, roomId, time, capacity, status, opensAt, closesAt, buffer, cancellation,
                bufferStudents, null, 0, null);
    }

    public Slot(TenantId tenantId, SlotId slotId, CoachId coachId, RoomId roomId, TimeRange time, int capacity,
                SlotStatus status) {
        this(tenantId, slotId, coachId, roomId, time, capacity, status, null, null, Duration.ZERO, null, false, null, 0,
                null);
    }

    public Slot(TenantId tenantId, SlotId slotId, CoachId coachId, RoomId roomId, TimeRange time, int capacity,
                SlotStatus status, @Nullable Instant opensAt, @Nullable Instant closesAt, Duration buffer,
                @Nullable CancellationPolicy cancellation) {
        this(tenantId, slotId, coachId, roomId, time, capacity, status, opensAt, closesAt, buffer, cancellation, false,
                null, 0, null);
    }

    public static Slot open(TenantId tenantId, SlotSpec spec) {
        return new Slot(tenantId, spec.slotId(), spec.coachId(), spec.roomId(), spec.time(), spec.capacity(),
                SlotStatus.OPEN, spec.opensAt(), spec.closesAt(), spec.buffer(), spec.cancellation(),
                spec.bufferStudents(), spec.classType(), spec.cost(), null);
    }

    /** True when this slot was scheduled from exactly this spec. */
    public boolean matches(SlotSpec spec) {
        return slotId.equals(spec.slotId()) && coachId.equals(spec.coachId()) && roomId.equals(spec.roomId())
                && time.equals(spec.time()) && capacity == spec.capacity()
                && java.util.Objects.equals(opensAt, spec.opensAt())
                && java.util.Objects.equals(closesAt, spec.closesAt()) && buffer.equals(spec.buffer())
                && java.util.Objects.equals(cancellation, spec.cancellation())
                && bufferStudents == spec.bufferStudents()
                && java.util.Objects.equals(classType, spec.classType()) && cost == spec.cost();
    }

    public Slot withStatus(SlotStatus newStatus) {
        return new Slot(tenantId, slotId, coachId, roomId, time, capacity, newStatus, opensAt, closesAt, buffer,
                cancellation, bufferStudents, classType, cost, seriesId);
    }

    /** This slot as an occurrence of {@code series}. */
    public Slot inSeries(SeriesId series) {
        return new Slot(tenantId, slotId, coachId, roomId, time, capacity, status, opensAt, closesAt, buffer,
                cancellation, bufferStudents, classType, cost, series);
    }

    /** The time a booked student is taken: the session, and its buffer when {@code bufferStudents}. */
    public TimeRange studentTime() {
        return bufferStudents ? paddedTime() : time;
    }

    /** The time the coach and the room are taken: the session and its buffer after it. */
    public TimeRange paddedTime() {
        return buffer.isZero() ? time : TimeRange.of(time.start(), time.end().plus(buffer));
    }
}
