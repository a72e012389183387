package org.slotbook.core.spi;

import org.jspecify.annotations.Nullable;
import org.slotbook.core.InvalidInputException;
import org.slotbook.core.RequestId;

/**
 * The gate's answer to a hold. {@code heldUnder} is set for {@link GateOutcome#DUPLICATE}: the
 * request id of the student's existing gate hold, so a retry can be told from a second booking.
 */
public record GateDecision(GateOutcome outcome, @Nullable RequestId heldUnder, java.time.@Nullable Instant opensAt) {
    /** The seat is held for this request. */
    public static final GateDecision HELD = new GateDecision(GateOutcome.HELD, null);

    /**
     * A decision; {@code heldUnder} only for a duplicate.
     *
     * @param outcome what the gate decided
     * @param heldUnder the request that holds the student's seat already (DUPLICATE only)
     */
    public GateDecision(GateOutcome outcome, @Nullable RequestId heldUnder) {
        this(outcome, heldUnder, null);
    }

    /**
     * Booking opens at {@code opensAt}.
     *
     * @param opensAt when booking opens (null: open now)
     * @return the decision: not open yet
     */
    public static GateDecision notOpen(java.time.Instant opensAt) {
        return new GateDecision(GateOutcome.NOT_OPEN, null, opensAt);
    }
    /** No seat left. */
    public static final GateDecision FULL = new GateDecision(GateOutcome.FULL, null);
    /** The slot is full, but its gate has seen this request id: the ledger answers the retry. */
    public static final GateDecision REPLAY = new GateDecision(GateOutcome.REPLAY, null);
    /** The gate has no state for the slot: the ledger decides. */
    public static final GateDecision MISSING = new GateDecision(GateOutcome.MISSING, null);
    /** The gate failed or timed out: the ledger decides. */
    public static final GateDecision UNAVAILABLE = new GateDecision(GateOutcome.UNAVAILABLE, null);
    /** The slot was called off. */
    public static final GateDecision CLOSED = new GateDecision(GateOutcome.CLOSED, null);

    /**
     * Checks that a duplicate names the request and that only a duplicate does.
     *
     * @param outcome the gate's answer
     * @param heldUnder the request that holds the student's seat already (DUPLICATE only)
     * @param opensAt when booking opens (null: open now)
     */
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

    /**
     * {@return the student holds a seat of the slot already, under {@code heldUnder}}
     *
     * @param heldUnder the request the seat is held under
     */
    public static GateDecision duplicate(RequestId heldUnder) {
        return new GateDecision(GateOutcome.DUPLICATE, heldUnder);
    }
}
