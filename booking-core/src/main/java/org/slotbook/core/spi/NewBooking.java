package org.slotbook.core.spi;

import java.time.Instant;
import org.slotbook.core.BookingId;
import org.slotbook.core.BookingStatus;
import org.slotbook.core.InvalidInputException;
import org.slotbook.core.RequestId;
import org.slotbook.core.SlotId;
import org.slotbook.core.StudentId;
import org.slotbook.core.internal.Checks;

/**
 * What {@link SeatLedger#claimSeat} writes: a booking without its seat number yet. Status is HELD
 * (a hold waiting for its confirm until {@code heldUntil}) or CONFIRMED (hold and confirm in one step).
 */
public record NewBooking(BookingId bookingId, RequestId requestId, SlotId slotId, StudentId studentId,
                         BookingStatus status, Instant heldUntil) {
    /**
     * Checks the components: everything present, the hold deadline after the creation time.
     *
     * @param bookingId the booking, by its id within the tenant
     * @param requestId the client's request id, which makes a repeat answer as the first call
     * @param slotId the slot, by its id within the tenant
     * @param studentId the student the booking or entry belongs to
     * @param status HELD for a hold, CONFIRMED for a booking in one step
     * @param heldUntil the confirm deadline of a HELD booking
     */
    public NewBooking {
        Checks.notNull("bookingId", bookingId);
        Checks.notNull("requestId", requestId);
        Checks.notNull("slotId", slotId);
        Checks.notNull("studentId", studentId);
        Checks.notNull("status", status);
        if (!status.isActive()) {
            throw new InvalidInputException("status must be HELD or CONFIRMED, got " + status);
        }
        heldUntil = Checks.micros("heldUntil", heldUntil);
    }
}
