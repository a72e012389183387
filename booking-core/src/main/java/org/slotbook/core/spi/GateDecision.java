package org.slotbook.core.spi;

import org.slotbook.core.InvalidInputException;
import org.jspecify.annotations.Nullable;
import org.slotbook.core.RequestId;

/**
 * The gate's answer to a hold. {@code heldUnder} is set for {@link GateOutcome#DUPLICATE}: the
 * request id of the student's existing gate hold, so a retry can be told from a second booking.
 */
public record GateDecision(GateOutcome outcome, @Nullable RequestId heldUnder, java.time.@Nullable Instant opensAt) {
    public static final GateDecision HELD = new GateDecision(GateOutcome.HELD, null);

    public GateDecision(GateOutcome outcome, @Nullable RequestId heldUnder) {
        this(outcome, heldUnder, null);
    }

    /** Booking opens at {@code opensAt}. */
    public static GateDecision notOpen(java.time.Instant opensAt) {
        return new GateDecision(GateOutcome.NOT_OPEN, null, opensAt);
    }
    public static final GateDecision FULL = new GateDecision(GateOutcome.FULL, null);
    public static final GateDecision MISSING = new GateDecision(GateOutcome.MISSING, null);
    public static final GateDecision UNAVAILABLE = new GateDecision(GateOutcome.UNAVAILABLE, null);
    public static final GateDecision CLOSED = new GateDecision(GateOutcome.CLOSED, null);

    public GateDecision {
        if (outcome == null) {
            throw new InvalidInputException("outcome must not be null");
        }
        if (outcome == GateOutcome.DUPLICATE && heldUnder == null) {
            throw new InvalidInputException("heldUnder must be set for DUPLICATE");
        }
        if ((outcome == GateOutcome.NOT_OPEN) != (opensAt != null)) {
            throw new InvalidInputException("opensAt must be set for NOT_OPEN, and only then");
        }
    }

    public static GateDecision duplicate(RequestId heldUnder) {
        return new GateDecision(GateOutcome.DUPLICATE, heldUnder);
    }
}
