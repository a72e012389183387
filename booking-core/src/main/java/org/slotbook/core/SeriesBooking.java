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
    /**
     * Checks the components: everything present.
     *
     * @param seriesId the weekly series
     * @param mode whether every part must succeed, or each that can
     * @param lines one line per occurrence, in time order
     */
    public SeriesBooking {
        Checks.notNull("seriesId", seriesId);
        Checks.notNull("mode", mode);
        lines = List.copyOf(Checks.notNull("lines", lines));
    }

    /** {@return how many occurrences the student holds a seat of} */
    public int booked() {
        return (int) lines.stream().filter(l -> l.status() == Line.Status.BOOKED).count();
    }

    /** {@return true when there was at least one occurrence and every one is booked} */
    public boolean complete() {
        return !lines.isEmpty() && booked() == lines.size();
    }

    /** One occurrence's outcome. */
    public record Line(SlotId slotId, Status status, @Nullable Booking booking, @Nullable HoldResult refusal) {
        /** Whether the occurrence was booked. */
        public enum Status {
            /** The student holds a seat of the occurrence. */
            BOOKED,
            /** The occurrence refused the student; the refusal says why. */
            REFUSED,
            /** The occurrence could have been booked, but another one was refused and all or nothing was asked. */
            ROLLED_BACK
        }

        /**
         * Checks the components: everything present.
         *
         * @param slotId the slot, by its id within the tenant
         * @param status whether the occurrence was booked
         * @param booking the booking the occurrence got (BOOKED only)
         * @param refusal why the occurrence refused the student (REFUSED only)
         */
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
