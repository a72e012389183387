package org.slotbook.core.rules;

import org.jspecify.annotations.Nullable;
import org.slotbook.core.BookingId;
import org.slotbook.core.ResourceRef;
import org.slotbook.core.SlotId;
import org.slotbook.core.TimeRange;
import org.slotbook.core.internal.Checks;

/**
 * A resource taken over a time: a coach or room over a slot's padded session ({@code bookingId}
 * null), or a student over a booking's session.
 *
 * @param resource  the coach, room or student
 * @param time      when it is taken
 * @param slotId    the slot that takes it
 * @param bookingId the booking that takes a student, null for a coach or room
 */
public record Occupancy(ResourceRef resource, TimeRange time, SlotId slotId, @Nullable BookingId bookingId) {
    /**
     * Checks that the resource, time and slot are present.
     *
     * @param resource  the coach, room or student
     * @param time      when it is taken
     * @param slotId    the slot that takes it
     * @param bookingId the booking that takes a student, null for a coach or room
     */
    public Occupancy {
        Checks.notNull("resource", resource);
        Checks.notNull("time", time);
        Checks.notNull("slotId", slotId);
    }
}
