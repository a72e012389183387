package org.slotbook.core;

import java.time.Instant;
import org.slotbook.core.internal.Checks;

/**
 * One student's seat in one slot. {@code heldUntil} is the confirm deadline of a HELD booking: the
 * hold is live while {@code now < heldUntil}.
 */
public record Booking(TenantId tenantId, BookingId bookingId, RequestId requestId, SlotId slotId,
                      StudentId studentId, int seat, BookingStatus status, Instant heldUntil, Instant createdAt,
                      Instant updatedAt) {
    public Booking {
        Checks.notNull("tenantId", tenantId);
        Checks.notNull("bookingId", bookingId);
        Checks.notNull("requestId", requestId);
        Checks.notNull("slotId", slotId);
        Checks.notNull("studentId", studentId);
        Checks.positive("seat", seat);
        Checks.notNull("status", status);
        heldUntil = Checks.micros("heldUntil", heldUntil);
        createdAt = Checks.micros("createdAt", createdAt);
        updatedAt = Checks.micros("updatedAt", updatedAt);
    }

    /** True when this booking holds its seat at {@code now}: CONFIRMED, or HELD with a live hold. */
    public boolean isLive(Instant now) {
        return status == BookingStatus.CONFIRMED || (status == BookingStatus.HELD && now.isBefore(heldUntil));
    }

    public Booking with(BookingStatus newStatus, Instant at) {
        return new Booking(tenantId, bookingId, requestId, slotId, studentId, seat, newStatus, heldUntil, createdAt,
                at);
    }
}
