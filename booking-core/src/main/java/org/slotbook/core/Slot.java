package org.slotbook.core;

import org.slotbook.core.internal.Checks;

/** A scheduled session as stored by the ledger. */
public record Slot(TenantId tenantId, SlotId slotId, CoachId coachId, RoomId roomId, TimeRange time, int capacity,
                   SlotStatus status) {
    public Slot {
        Checks.notNull("tenantId", tenantId);
        Checks.notNull("slotId", slotId);
        Checks.notNull("coachId", coachId);
        Checks.notNull("roomId", roomId);
        Checks.notNull("time", time);
        Checks.between("capacity", capacity, 1, SlotSpec.MAX_CAPACITY);
        Checks.notNull("status", status);
    }

    public static Slot open(TenantId tenantId, SlotSpec spec) {
        return new Slot(tenantId, spec.slotId(), spec.coachId(), spec.roomId(), spec.time(), spec.capacity(),
                SlotStatus.OPEN);
    }

    /** True when this slot was scheduled from exactly this spec. */
    public boolean matches(SlotSpec spec) {
        return slotId.equals(spec.slotId()) && coachId.equals(spec.coachId()) && roomId.equals(spec.roomId())
                && time.equals(spec.time()) && capacity == spec.capacity();
    }

    public Slot withStatus(SlotStatus newStatus) {
        return new Slot(tenantId, slotId, coachId, roomId, time, capacity, newStatus);
    }
}
