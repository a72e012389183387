package org.slotbook.core.tck;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slotbook.core.tck.SlotHistory.Kind;
import org.slotbook.core.tck.SlotHistory.Op;

/**
 * Checks a {@link SlotHistory} for linearizability against {@link SlotModel}: is there one order of
 * its operations, each placed at an instant between its invocation and its return, in which every
 * answer is the one the specification gives? The search is Wing and Gong's, with Lowe's
 * memoization: a pair (operations placed so far, state) already explored is not explored again.
 */
public final class Linearizability {
    /** What a check found. */
    public enum Verdict { LINEARIZABLE, VIOLATION, UNDECIDED }

    private Linearizability() {
    }

    /**
     * Checks the history. {@code behindGate}: a {@code Full} may count holds and cancels still in flight.
     * {@code budget}: how many search steps before giving up (UNDECIDED).
     */
    public static Verdict check(SlotHistory history, boolean behindGate, long budget) {
        return check(history, behindGate ? inFlightById(history) : null, budget);
    }

    /** Each hold's in-flight students, by op id. */
    private static Map<Integer, int[]> inFlightById(SlotHistory history) {
        int[][] all = inFlight(history.ops());
        Map<Integer, int[]> byId = new HashMap<>();
        for (int i = 0; i < all.length; i++) {
            byId.put(history.ops().get(i).id(), all[i]);
        }
        return byId;
    }

    /**
     * Checks the history with each hold's in-flight students given by op id ({@code null}: not behind a
     * gate): a smaller history keeps those of the history it came from, as the gate saw them.
     */
    private static Verdict check(SlotHistory history, @org.jspecify.annotations.Nullable Map<Integer, int[]> flight,
                                 long budget) {
        List<Op> ops = history.ops();
        SlotModel model = new SlotModel(history.capacity(), history.studentOfRequest());
        int[][] inFlight = null;
        if (flight != null) {
            inFlight = new int[ops.size()][];
            for (int i = 0; i < ops.size(); i++) {
                inFlight[i] = flight.get(ops.get(i).id());
            }
        }
        // the events: each op's call and return, in time order; a call before a return at the same instant
        Entry head = new Entry(null, false);
        List<Entry> events = new ArrayList<>();
        for (int i = 0; i < ops.size(); i++) {
            Entry call = new Entry(ops.get(i), true);
            call.index = i;
            Entry ret = new Entry(ops.get(i), false);
            ret.index = i;
            call.match = ret;
            events.add(call);
            events.add(ret);
        }
        events.sort((a, b) -> {
            int c = Long.compare(a.time(), b.time());
            return c != 0 ? c : Boolean.compare(!a.call, !b.call);
        });
        Entry prev = head;
        for (Entry e : events) {
            prev.next = e;
            e.prev = prev;
            prev = e;
        }
        Set<Key> seen = new HashSet<>();
        Deque<Entry> calls = new ArrayDeque<>();
        Deque<byte[]> states = new ArrayDeque<>();
        BitSet linearized = new BitSet(ops.size());
        byte[] state = model.initial();
        Entry entry = head.next;
        long steps = 0;
        while (head.next != null) {
            if (++steps > budget) {
                return Verdict.UNDECIDED;
            }
            if (entry.call) {
                byte[] next = model.step(state, entry.op, inFlight == null ? null : inFlight[entry.index]);
                if (next != null) {
                    BitSet placed = (BitSet) linearized.clone();
                    placed.set(entry.index);
                    if (seen.add(new Key(placed, next))) {
                        calls.push(entry);
                        states.push(state);
                        state = next;
                        linearized.set(entry.index);
                        entry.lift();
                        entry = head.next;
                        continue;
                    }
                }
                entry = entry.next;
            } else {
                // a return reached before its op was placed: undo the last placement and try further on
                if (calls.isEmpty()) {
                    return Verdict.VIOLATION;
                }
                Entry last = calls.pop();
                state = states.pop();
                linearized.clear(last.index);
                last.unlift();
                entry = last.next;
            }
        }
        return Verdict.LINEARIZABLE;
    }

    /**
     * A smaller history that still fails: operations are dropped one at a time while the rest still
     * fails. Only drops that cannot turn a good history bad are tried: an op that changes no state
     * (a refusal, a replay, a read), or one invoked after every other op had returned. Behind a gate each
     * hold keeps the in-flight students of the failing history: a dropped hold or cancel of another
     * student still counts for the {@code Full} it overlapped, so dropping it never adds a constraint.
     */
    public static SlotHistory minimize(SlotHistory failing, boolean behindGate, long budget) {
        Map<Integer, int[]> flight = behindGate ? inFlightById(failing) : null;
        SlotHistory current = failing;
        boolean shrunk = true;
        while (shrunk) {
            shrunk = false;
            for (Op op : List.copyOf(current.ops())) {
                if (!SlotModel.readOnly(op) && !last(current, op)) {
                    continue;
                }
                BitSet keep = new BitSet();
                current.ops().forEach(o -> keep.set(o.id()));
                keep.clear(op.id());
                SlotHistory smaller = current.only(keep);
                if (check(smaller, flight, budget) == Verdict.VIOLATION) {
                    current = smaller;
                    shrunk = true;
                }
            }
        }
        return current;
    }

    private static boolean last(SlotHistory h, Op op) {
        for (Op o : h.ops()) {
            if (o != op && o.returned() >= op.invoked()) {
                return false;
            }
        }
        return true;
    }

    /**
     * For each hold, the other students with a hold or a cancel running at some instant of it: the gate
     * counts a hold before the database decides it, and lets a cancelled one go only after the database
     * cancelled it.
     */
    private static int[][] inFlight(List<Op> ops) {
        int[][] result = new int[ops.size()][];
        for (int i = 0; i < ops.size(); i++) {
            Op op = ops.get(i);
            if (op.kind() != Kind.HOLD) {
                result[i] = new int[0];
                continue;
            }
            Set<Integer> students = new HashSet<>();
            for (Op other : ops) {
                if ((other.kind() == Kind.HOLD || other.kind() == Kind.CANCEL) && other.student() != op.student()
                        && other.overlaps(op)) {
                    students.add(other.student());
                }
            }
            result[i] = students.stream().mapToInt(Integer::intValue).toArray();
        }
        return result;
    }

    private static final class Entry {
        final Op op;
        final boolean call;
        int index;
        Entry match;
        Entry prev;
        Entry next;

        Entry(Op op, boolean call) {
            this.op = op;
            this.call = call;
        }

        long time() {
            return call ? op.invoked() : op.returned();
        }

        /** Takes this call and its return out of the list. */
        void lift() {
            prev.next = next;
            if (next != null) {
                next.prev = prev;
            }
            match.prev.next = match.next;
            if (match.next != null) {
                match.next.prev = match.prev;
            }
        }

        /** Puts them back, in the reverse order of {@link #lift()}. */
        void unlift() {
            match.prev.next = match;
            if (match.next != null) {
                match.next.prev = match;
            }
            prev.next = this;
            if (next != null) {
                next.prev = this;
            }
        }
    }

    private record Key(BitSet placed, byte[] state) {
        @Override
        public boolean equals(Object o) {
            return o instanceof Key k && placed.equals(k.placed) && Arrays.equals(state, k.state);
        }

        @Override
        public int hashCode() {
            return placed.hashCode() * 31 + Arrays.hashCode(state);
        }
    }
}
