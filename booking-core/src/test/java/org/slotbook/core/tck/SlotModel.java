package org.slotbook.core.tck;

import java.util.List;
import org.slotbook.core.BookingStatus;
import org.slotbook.core.tck.SlotHistory.Answer;
import org.slotbook.core.tck.SlotHistory.Op;

/**
 * The sequential specification of one slot, as {@code docs/slot-specification.md} states it: the
 * state is the status of each request's booking (none yet, HELD, CONFIRMED, CANCELLED), and each
 * operation has exactly one right answer in a given state, except the gate's one allowance (a
 * {@code Full} that counts holds and cancels still in flight).
 *
 * <p>Holds do not expire inside a history (the suites' clock stands still), so expiry is not modelled.
 */
final class SlotModel {
    static final byte NONE = 0;
    static final byte HELD = 1;
    static final byte CONFIRMED = 2;
    static final byte CANCELLED = 3;

    private final int capacity;
    private final List<Integer> studentOfRequest;

    SlotModel(int capacity, List<Integer> studentOfRequest) {
        this.capacity = capacity;
        this.studentOfRequest = studentOfRequest;
    }

    byte[] initial() {
        return new byte[studentOfRequest.size()];
    }

    /**
     * The state after {@code op} with its recorded answer, or null when that answer is not the one the
     * specification gives in {@code state}. {@code inFlight}: students other than the op's own with a
     * hold or a cancel running at the same time (given only behind a gate, whose {@code Full} may count
     * those of them without a live booking).
     */
    byte[] step(byte[] state, Op op, int[] inFlight) {
        if (op.answer() == Answer.UNEXPECTED) {
            return null;
        }
        switch (op.kind()) {
            case HOLD: {
                byte mine = state[op.request()];
                if (mine == HELD || mine == CONFIRMED) {
                    // a replay answers the request's booking as it is now
                    return op.answer() == Answer.REPLAYED && names(op, op.request(), mine) ? state : null;
                }
                if (mine == CANCELLED) {
                    return op.answer() == Answer.NO_LONGER_HELD && names(op, op.request(), CANCELLED) ? state : null;
                }
                int live = live(state, op.student());
                if (live >= 0) {
                    // the student check comes before capacity
                    return op.answer() == Answer.ALREADY_BOOKED && names(op, live, state[live]) ? state : null;
                }
                int taken = taken(state);
                if (taken >= capacity) {
                    return op.answer() == Answer.FULL ? state : null;
                }
                if (op.answer() == Answer.FULL) {
                    return inFlight != null && taken + withoutSeat(state, inFlight) >= capacity ? state : null;
                }
                if (op.answer() != Answer.HELD || !names(op, op.request(), HELD)) {
                    return null;
                }
                return with(state, op.request(), HELD);
            }
            case CONFIRM: {
                byte b = state[op.request()];
                if (b == HELD || b == CONFIRMED) {
                    return op.answer() == Answer.CONFIRMED && names(op, op.request(), CONFIRMED)
                            ? with(state, op.request(), CONFIRMED) : null;
                }
                return b == CANCELLED && op.answer() == Answer.ALREADY_CANCELLED ? state : null;
            }
            case CANCEL: {
                byte b = state[op.request()];
                if (b == HELD || b == CONFIRMED) {
                    return op.answer() == Answer.CANCELLED && names(op, op.request(), CANCELLED)
                            ? with(state, op.request(), CANCELLED) : null;
                }
                return b == CANCELLED && op.answer() == Answer.ALREADY_CANCELLED ? state : null;
            }
            case AVAILABILITY: {
                int held = count(state, HELD);
                int confirmed = count(state, CONFIRMED);
                return op.answer() == Answer.AVAILABILITY && op.held() == held && op.confirmed() == confirmed
                        && op.remaining() == capacity - held - confirmed ? state : null;
            }
            default:
                throw new IllegalStateException("kind " + op.kind());
        }
    }

    /**
     * Whether the op changes no state whatever the state is, given its answer: removing such an op from a
     * history only removes constraints.
     */
    static boolean readOnly(Op op) {
        return switch (op.answer()) {
            case REPLAYED, NO_LONGER_HELD, FULL, ALREADY_BOOKED, ALREADY_CANCELLED, AVAILABILITY, UNEXPECTED -> true;
            default -> false;
        };
    }

    private static boolean names(Op op, int request, byte status) {
        return op.named() == request && op.status() == statusOf(status);
    }

    private static BookingStatus statusOf(byte b) {
        return switch (b) {
            case HELD -> BookingStatus.HELD;
            case CONFIRMED -> BookingStatus.CONFIRMED;
            case CANCELLED -> BookingStatus.CANCELLED;
            default -> null;
        };
    }

    /** The student's live booking (HELD or CONFIRMED) as its request, or -1. */
    private int live(byte[] state, int student) {
        for (int r = 0; r < state.length; r++) {
            if ((state[r] == HELD || state[r] == CONFIRMED) && studentOfRequest.get(r) == student) {
                return r;
            }
        }
        return -1;
    }

    private int withoutSeat(byte[] state, int[] students) {
        int n = 0;
        for (int s : students) {
            if (live(state, s) < 0) {
                n++;
            }
        }
        return n;
    }

    private static int taken(byte[] state) {
        return count(state, HELD) + count(state, CONFIRMED);
    }

    private static int count(byte[] state, byte status) {
        int n = 0;
        for (byte b : state) {
            if (b == status) {
                n++;
            }
        }
        return n;
    }

    private static byte[] with(byte[] state, int request, byte status) {
        byte[] next = state.clone();
        next[request] = status;
        return next;
    }
}
