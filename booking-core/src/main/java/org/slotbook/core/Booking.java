package org.slotbook.core;

import java.time.Instant;
import org.jspecify.annotations.Nullable;
import org.slotbook.core.internal.Checks;

/**
 * One student's seat in one slot. {@code heldUntil} is the confirm deadline of a HELD booking: the
 * hold is live while {@code now < heldUntil}.
 *
 * @param packageId  the package that paid {@code credits} for this booking; null when it holds none
 * @param credits    credits this booking holds of its package now (0 when none were drawn, or after a refund)
 * @param attendance whether the student came (CONFIRMED bookings; {@link Attendance#NONE} otherwise)
 */
public record Booking(TenantId tenantId, BookingId bookingId, RequestId requestId, SlotId slotId,
                      StudentId studentId, int seat, BookingStatus status, Instant heldUntil, Instant createdAt,
                      Instant updatedAt, @Nullable PackageId packageId, int credits, Attendance attendance) {
    /**
     * Checks the components: ids and instants present, the seat and the credits in range.
     *
     * @param tenantId the tenant it belongs to
     * @param bookingId the booking, by its id within the tenant
     * @param requestId the client's request id, which makes a repeat answer as the first call
     * @param slotId the slot, by its id within the tenant
     * @param studentId the student the booking or entry belongs to
     * @param seat the seat number, from 1
     * @param status HELD, CONFIRMED, CANCELLED or EXPIRED
     * @param heldUntil the confirm deadline of a HELD booking
     * @param createdAt when the booking was made
     * @param updatedAt when the booking last changed
     * @param packageId the package that paid {@code credits} for this booking; null when it holds none
     * @param credits credits this booking holds of its package now (0 when none were drawn, or after a refund)
     * @param attendance whether the student came (CONFIRMED bookings; {@link Attendance#NONE} otherwise)
     */
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
        Checks.between("credits", credits, 0, PackageGrant.MAX_CREDITS);
        if ((credits > 0) != (packageId != null)) {
            throw new InvalidInputException("packageId " + packageId + " does not fit credits " + credits);
        }
        attendance = attendance == null ? Attendance.NONE : attendance;
    }

    /**
     * A booking that paid no credits and has no attendance yet.
     *
     * @param tenantId the tenant it belongs to
     * @param bookingId the booking, by its id within the tenant
     * @param requestId the client's request id, which makes a repeat answer as the first call
     * @param slotId the slot, by its id within the tenant
     * @param studentId the student the booking or entry belongs to
     * @param seat the seat number, from 1
     * @param status HELD, CONFIRMED, CANCELLED or EXPIRED
     * @param heldUntil the confirm deadline of a HELD booking
     * @param createdAt when the booking was made
     * @param updatedAt when the booking last changed
     */
    public Booking(TenantId tenantId, BookingId bookingId, RequestId requestId, SlotId slotId, StudentId studentId,
                   int seat, BookingStatus status, Instant heldUntil, Instant createdAt, Instant updatedAt) {
        this(tenantId, bookingId, requestId, slotId, studentId, seat, status, heldUntil, createdAt, updatedAt, null, 0,
                Attendance.NONE);
    }

    /**
     * {@return true when this booking holds its seat at {@code now}: CONFIRMED, or HELD with a live hold}
     *
     * @param now the instant to test
     */
    public boolean isLive(Instant now) {
        return status == BookingStatus.CONFIRMED || (status == BookingStatus.HELD && now.isBefore(heldUntil));
    }

    /**
     * {@return this booking in {@code newStatus} from {@code at}}
     *
     * @param newStatus the new status
     * @param at when it changed
     */
    public Booking with(BookingStatus newStatus, Instant at) {
        return new Booking(tenantId, bookingId, requestId, slotId, studentId, seat, newStatus, heldUntil, createdAt,
                at, packageId, credits, attendance);
    }

    /**
     * {@return this booking having paid {@code amount} credits from {@code from} (0 and null: nothing paid, or
     * refunded)}
     *
     * @param from the package that paid (null: none)
     * @param amount the credits paid (0: none, or refunded)
     * @param at when it changed
     */
    public Booking withCredits(@Nullable PackageId from, int amount, Instant at) {
        return new Booking(tenantId, bookingId, requestId, slotId, studentId, seat, status, heldUntil, createdAt, at,
                from, amount, attendance);
    }

    /**
     * {@return this booking with the student's attendance recorded at {@code at}}
     *
     * @param newAttendance whether the student came
     * @param at when it was recorded
     */
    public Booking with(Attendance newAttendance, Instant at) {
        return new Booking(tenantId, bookingId, requestId, slotId, studentId, seat, status, heldUntil, createdAt, at,
                packageId, credits, newAttendance);
    }
}
