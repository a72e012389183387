package org.slotbook.core;

import org.slotbook.core.internal.Checks;

/**
 * A student asks for a seat in a slot. The request id is the idempotency key: the same id with the
 * same slot and student returns the original outcome; with another slot or student it is refused.
 * {@code waitlist}: when the slot is full, put the student on its waitlist ({@link Waitlisted})
 * instead of answering {@link Full}.
 */
public record HoldRequest(RequestId requestId, SlotId slotId, StudentId studentId, boolean waitlist) {
    /**
     * Checks the components: ids present.
     *
     * @param requestId the client's request id, which makes a repeat answer as the first call
     * @param slotId the slot, by its id within the tenant
     * @param studentId the student the booking or entry belongs to
     * @param waitlist true: join the waitlist when the slot is full
     */
    public HoldRequest {
        Checks.notNull("requestId", requestId);
        Checks.notNull("slotId", slotId);
        Checks.notNull("studentId", studentId);
    }

    /**
     * A request that does not join the waitlist when the slot is full.
     *
     * @param requestId the client's request id, which makes a repeat answer as the first call
     * @param slotId the slot, by its id within the tenant
     * @param studentId the student the booking or entry belongs to
     */
    public HoldRequest(RequestId requestId, SlotId slotId, StudentId studentId) {
        this(requestId, slotId, studentId, false);
    }

    /**
     * {@return a request that does not join the waitlist when the slot is full}
     *
     * @param requestId the client's request id, which makes a repeat answer as the first call
     * @param slotId the slot, by its id within the tenant
     * @param studentId the student the booking or entry belongs to
     */
    public static HoldRequest of(RequestId requestId, SlotId slotId, StudentId studentId) {
        return new HoldRequest(requestId, slotId, studentId, false);
    }

    /** {@return this request, joining the slot's waitlist when the slot is full} */
    public HoldRequest orWaitlist() {
        return new HoldRequest(requestId, slotId, studentId, true);
    }
}
