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
    /**
     * Checks the components: student and request present.
     *
     * @param studentId the student the booking or entry belongs to
     * @param requestId the client's request id, which makes a repeat answer as the first call
     * @param takenAt when the holder took the seat, by the gate's clock
     * @param expiresAt when the hold runs out (null: pinned, the booking is confirmed)
     */
    public GateHolder {
        Checks.notNull("studentId", studentId);
        Checks.notNull("requestId", requestId);
        Checks.notNull("takenAt", takenAt);
    }

    /** {@return true when the holder never expires: its booking is confirmed} */
    public boolean pinned() {
        return expiresAt == null;
    }

    /**
     * {@return true when the holder holds a seat at {@code now}: pinned, or not yet expired}
     *
     * @param now the gate's time
     */
    public boolean liveAt(Instant now) {
        return expiresAt == null || now.isBefore(expiresAt);
    }
}
