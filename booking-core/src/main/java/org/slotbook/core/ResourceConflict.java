package org.slotbook.core;

import java.util.Optional;
import org.slotbook.core.internal.Checks;

/**
 * A resource that is already occupied: which one, by which slot (and, for a student, which
 * booking), over which time range.
 */
public record ResourceConflict(ResourceRef resource, SlotId slotId, Optional<BookingId> bookingId, TimeRange time) {
    public ResourceConflict {
        Checks.notNull("resource", resource);
        Checks.notNull("slotId", slotId);
        Checks.notNull("bookingId", bookingId);
        Checks.notNull("time", time);
    }

    public ResourceKind kind() {
        return resource.kind();
    }
}
