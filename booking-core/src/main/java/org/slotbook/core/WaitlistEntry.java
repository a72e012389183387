package org.slotbook.core;

import java.time.Instant;
import org.jspecify.annotations.Nullable;
import org.slotbook.core.internal.Checks;

/**
 * A student's place on a slot's waitlist.
 *
 * @param position  1 for the first one waiting; 0 when no longer waiting
 * @param status    WAITING, PROMOTED (a seat was given: {@code bookingId}), LEFT or SKIPPED
 * @param reason    why a SKIPPED waiter was passed over, else null
 * @param bookingId the id of the booking a promotion gives (or gave) this waiter
 */
public record WaitlistEntry(TenantId tenantId, SlotId slotId, RequestId requestId, StudentId studentId,
                            int position, Status status, @Nullable SkipReason reason, BookingId bookingId,
                            Instant joinedAt) {
    /** Where a waiter stands. */
    public enum Status {
        /** On the list, waiting for a seat. */
        WAITING,
        /** Got a freed seat, as a HELD booking. */
        PROMOTED,
        /** The student left the list. */
        LEFT,
        /** Passed over for a freed seat; {@link WaitlistEntry#reason()} says why. */
        SKIPPED
    }

    /** Why a waiter was passed over when a seat came free. */
    public enum SkipReason {
        /** The waiter is now busy in an overlapping session. */
        CONFLICT,
        /** A seat would break one of the student's limits. */
        LIMIT,
        /** The waiter already has a booking of this slot. */
        ALREADY_BOOKED,
        /** The slot has a cost and no package of the waiter can pay it. */
        NO_CREDITS
    }

    /**
     * Checks the components: everything present, the position at least 1.
     *
     * @param tenantId the tenant it belongs to
     * @param slotId the slot, by its id within the tenant
     * @param requestId the client's request id, which makes a repeat answer as the first call
     * @param studentId the student the booking or entry belongs to
     * @param position 1 for the first one waiting; 0 when no longer waiting
     * @param status WAITING, PROMOTED (a seat was given: {@code bookingId}), LEFT or SKIPPED
     * @param reason why a SKIPPED waiter was passed over, else null
     * @param bookingId the id of the booking a promotion gives (or gave) this waiter
     * @param joinedAt when the request joined the list
     */
    public WaitlistEntry {
        Checks.notNull("tenantId", tenantId);
        Checks.notNull("slotId", slotId);
        Checks.notNull("requestId", requestId);
        Checks.notNull("studentId", studentId);
        Checks.notNull("status", status);
        Checks.notNull("bookingId", bookingId);
        joinedAt = Checks.micros("joinedAt", joinedAt);
        if (position < 0 || (status == Status.WAITING) != (position > 0)) {
            throw new InvalidInputException("position " + position + " does not fit status " + status);
        }
        if ((status == Status.SKIPPED) != (reason != null)) {
            throw new InvalidInputException("reason " + reason + " does not fit status " + status);
        }
    }
}
