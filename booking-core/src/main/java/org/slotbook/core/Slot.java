package org.slotbook.core;

import java.time.Duration;
import java.time.Instant;
import org.slotbook.core.internal.Checks;

/** A scheduled session as stored by the ledger, with the rules of its {@link SlotSpec}. */
public record Slot(TenantId tenantId, SlotId slotId, CoachId coachId, RoomId roomId, TimeRange time, int capacity,
                   SlotStatus status, Instant opensAt, Instant closesAt, Duration buffer,
                   CancellationPolicy cancellation, boolean bufferStudents) {
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
    }

    public Slot(TenantId tenantId, SlotId slotId, CoachId coachId, RoomId roomId, TimeRange time, int capacity,
                SlotStatus status) {
        this(tenantId, slotId, coachId, roomId, time, capacity, status, null, null, Duration.ZERO, null, false);
    }

    public Slot(TenantId tenantId, SlotId slotId, CoachId coachId, RoomId roomId, TimeRange time, int capacity,
                SlotStatus status, Instant opensAt, Instant closesAt, Duration buffer, CancellationPolicy cancellation) {
        this(tenantId, slotId, coachId, roomId, time, capacity, status, opensAt, closesAt, buffer, cancellation, false);
    }

    public static Slot open(TenantId tenantId, SlotSpec spec) {
        return new Slot(tenantId, spec.slotId(), spec.coachId(), spec.roomId(), spec.time(), spec.capacity(),
                SlotStatus.OPEN, spec.opensAt(), spec.closesAt(), spec.buffer(), spec.cancellation(),
                spec.bufferStudents());
    }

    /** True when this slot was scheduled from exactly this spec. */
    public boolean matches(SlotSpec spec) {
        return slotId.equals(spec.slotId()) && coachId.equals(spec.coachId()) && roomId.equals(spec.roomId())
                && time.equals(spec.time()) && capacity == spec.capacity()
                && java.util.Objects.equals(opensAt, spec.opensAt())
                && java.util.Objects.equals(closesAt, spec.closesAt()) && buffer.equals(spec.buffer())
                && java.util.Objects.equals(cancellation, spec.cancellation())
                && bufferStudents == spec.bufferStudents();
    }

    public Slot withStatus(SlotStatus newStatus) {
        return new Slot(tenantId, slotId, coachId, roomId, time, capacity, newStatus, opensAt, closesAt, buffer,
                cancellation, bufferStudents);
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
