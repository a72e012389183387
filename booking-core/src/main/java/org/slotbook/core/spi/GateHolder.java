package org.slotbook.core.spi;

import java.time.Instant;
import org.slotbook.core.RequestId;
import org.slotbook.core.StudentId;
import org.slotbook.core.internal.Checks;

/**
 * One student holding a seat in the gate. {@code expiresAt} null means pinned (confirmed): the
 * holder stays until released. {@code takenAt} is when the hold was taken; reconciliation uses it to
 * leave in-flight holds alone.
 */
public record GateHolder(StudentId studentId, RequestId requestId, Instant takenAt, Instant expiresAt) {
    public GateHolder {
        Checks.notNull("studentId", studentId);
        Checks.notNull("requestId", requestId);
        Checks.notNull("takenAt", takenAt);
    }

    public boolean pinned() {
        return expiresAt == null;
    }

    public boolean liveAt(Instant now) {
        return expiresAt == null || now.isBefore(expiresAt);
    }
}
