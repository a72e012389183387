package org.slotbook.core;

import java.util.List;
import org.jspecify.annotations.Nullable;
import org.slotbook.core.internal.Checks;

/**
 * Outcome of {@link BookingEngine#bookSeries}: a line per occurrence that had not started, in time
 * order. BOOKED: the student holds a seat ({@code booking}; a retry answers the same bookings).
 * REFUSED: {@code refusal} says why ({@link Full}, {@link Conflict}, {@link InsufficientCredits}, ...).
 * ROLLED_BACK: it could have been booked, but the booking was all-or-nothing and another occurrence
 * was refused; nothing of the series was written.
 */
public record SeriesBooking(SeriesId seriesId, SeriesMode mode, List<Line> lines) {
    public SeriesBooking {
        Checks.notNull("seriesId", seriesId);
        Checks.notNull("mode", mode);
        lines = List.copyOf(Checks.notNull("lines", lines));
    }

    /** How many occurrences the student holds a seat of. */
    public int booked() {
        return (int) lines.stream().filter(l -> l.status() == Line.Status.BOOKED).count();
    }

    /** True when there was at least one occurrence and every one is booked. */
    public boolean complete() {
        return !lines.isEmpty() && booked() == lines.size();
    }

    /** One occurrence's outcome. */
    public record Line(SlotId slotId, Status status, @Nullable Booking booking, @Nullable HoldResult refusal) {
        public enum Status { BOOKED, REFUSED, ROLLED_BACK }

        public Line {
            Checks.notNull("slotId", slotId);
            Checks.notNull("status", status);
            if ((status == Status.BOOKED) != (booking != null)) {
                throw new InvalidInputException("booking does not fit status " + status);
            }
            if ((status == Status.REFUSED) != (refusal != null)) {
                throw new InvalidInputException("refusal " + refusal + " does not fit status " + status);
            }
        }
    }
}
