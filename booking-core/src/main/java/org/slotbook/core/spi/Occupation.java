package org.slotbook.core.spi;

import java.util.List;
import org.jspecify.annotations.Nullable;
import org.slotbook.core.BookingId;
import org.slotbook.core.InvalidInputException;
import org.slotbook.core.ResourceRef;
import org.slotbook.core.SlotId;
import org.slotbook.core.TimeRange;
import org.slotbook.core.internal.Checks;

/**
 * Resources that one slot (coach and room, {@code bookingId} null) or one booking (the student)
 * occupies over a time range.
 */
public record Occupation(List<ResourceRef> resources, TimeRange time, SlotId slotId, @Nullable BookingId bookingId) {
    /**
     * Checks the components: everything present, exactly one of booking and slot.
     *
     * @param resources the coaches, rooms or students to lock
     * @param time when the session runs
     * @param slotId the slot, by its id within the tenant
     * @param bookingId the booking, by its id within the tenant
     */
    public Occupation {
        resources = List.copyOf(Checks.notNull("resources", resources));
        if (resources.isEmpty()) {
            throw new InvalidInputException("resources must not be empty");
        }
        Checks.notNull("time", time);
        Checks.notNull("slotId", slotId);
    }
}
