package org.slotbook.core;

import org.slotbook.core.internal.Checks;

/**
 * What to schedule: a session of one coach in one room over a time range, with a number of seats.
 * Capacity is 1..100000; the engine additionally refuses sessions longer than its configured
 * maximum duration (24 hours by default).
 */
public record SlotSpec(SlotId slotId, CoachId coachId, RoomId roomId, TimeRange time, int capacity) {
    public static final int MAX_CAPACITY = 100_000;

    public SlotSpec {
        Checks.notNull("slotId", slotId);
        Checks.notNull("coachId", coachId);
        Checks.notNull("roomId", roomId);
        Checks.notNull("time", time);
        Checks.between("capacity", capacity, 1, MAX_CAPACITY);
    }
}
