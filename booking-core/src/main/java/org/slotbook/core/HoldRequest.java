package org.slotbook.core;

import org.slotbook.core.internal.Checks;

/**
 * A student asks for a seat in a slot. The request id is the idempotency key: the same id with the
 * same slot and student returns the original outcome; with another slot or student it is refused.
 */
public record HoldRequest(RequestId requestId, SlotId slotId, StudentId studentId) {
    public HoldRequest {
        Checks.notNull("requestId", requestId);
        Checks.notNull("slotId", slotId);
        Checks.notNull("studentId", studentId);
    }

    public static HoldRequest of(RequestId requestId, SlotId slotId, StudentId studentId) {
        return new HoldRequest(requestId, slotId, studentId);
    }
}
