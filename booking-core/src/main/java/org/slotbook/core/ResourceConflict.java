package org.slotbook.core;

import java.util.Optional;
import org.slotbook.core.internal.Checks;

/**
 * A resource that is already occupied: which one, by which slot (and, for a student, which
 * booking), over which time range.
 */
public record ResourceConflict(ResourceRef resource, SlotId slotId, Optional<BookingId> bookingId, TimeRange time) {
    /**
     * Checks the components: everything present.
     *
     * @param resource the coach or room (kind COACH or ROOM)
     * @param slotId the slot, by its id within the tenant
     * @param bookingId the booking, by its id within the tenant
     * @param time when the session runs
     */
    public ResourceConflict {
        Checks.notNull("resource", resource);
        Checks.notNull("slotId", slotId);
        Checks.notNull("bookingId", bookingId);
        Checks.notNull("time", time);
    }

    /** {@return whether the coach, the room or the student is taken} */
    public ResourceKind kind() {
        return resource.kind();
    }
}
