package org.slotbook.core.spi;

import java.time.Instant;
import org.jspecify.annotations.Nullable;
import org.slotbook.core.RequestId;
import org.slotbook.core.StudentId;
import org.slotbook.core.internal.Checks;

/**
 * One student holding a seat in the gate, put there by {@code requestId}. {@code expiresAt} null
 * means pinned (confirmed): the holder stays until released. {@code takenAt} is when the hold was
 * taken; reconciliation uses it to leave in-flight holds alone.
 *
 * <p>In a {@link GateView} both instants are the gate's own clock (for a holder that
 * {@link SeatReservation#reconcile} added, the ledger's values it was given). In the truth passed to
 * {@code reconcile} they are the ledger's: {@code expiresAt} is when the ledger's hold ends.
 */
public record GateHolder(StudentId studentId, RequestId requestId, Instant takenAt, @Nullable Instant expiresAt) {
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
