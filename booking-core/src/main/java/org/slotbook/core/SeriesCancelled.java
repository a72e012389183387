package org.slotbook.core;

import java.util.List;
import org.slotbook.core.internal.Checks;

/**
 * Outcome of {@link BookingEngine#cancelSeries}: the occurrences this call cancelled (those still open
 * that start at or after the date; none on a repeat), and how many bookings they released.
 */
public record SeriesCancelled(SeriesId seriesId, List<Slot> slots, int bookings) {
    /**
     * Checks the components: everything present.
     *
     * @param seriesId the weekly series
     * @param slots the occurrences called off
     * @param bookings how many bookings were cancelled with them
     */
    public SeriesCancelled {
        Checks.notNull("seriesId", seriesId);
        slots = List.copyOf(Checks.notNull("slots", slots));
        if (bookings < 0) {
            throw new InvalidInputException("bookings must be at least 0, got " + bookings);
        }
    }
}
