package org.slotbook.core;

import org.slotbook.core.internal.Checks;

/**
 * A student asks for a seat in a slot. The request id is the idempotency key: the same id with the
 * same slot and student returns the original outcome; with another slot or student it is refused.
 * {@code waitlist}: when the slot is full, put the student on its waitlist ({@link Waitlisted})
 * instead of answering {@link Full}.
 */
public record HoldRequest(RequestId requestId, SlotId slotId, StudentId studentId, boolean waitlist) {
    public HoldRequest {
        Checks.notNull("requestId", requestId);
        Checks.notNull("slotId", slotId);
        Checks.notNull("studentId", studentId);
    }

    public HoldRequest(RequestId requestId, SlotId slotId, StudentId studentId) {
        this(requestId, slotId, studentId, false);
    }

    public static HoldRequest of(RequestId requestId, SlotId slotId, StudentId studentId) {
        return new HoldRequest(requestId, slotId, studentId, false);
    }

    /** This request, joining the slot's waitlist when the slot is full. */
    public HoldRequest orWaitlist() {
        return new HoldRequest(requestId, slotId, studentId, true);
    }
}
