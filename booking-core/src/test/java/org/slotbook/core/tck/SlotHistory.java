package org.slotbook.core.tck;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.slotbook.core.AlreadyBooked;
import org.slotbook.core.AlreadyCancelled;
import org.slotbook.core.Availability;
import org.slotbook.core.Booking;
import org.slotbook.core.BookingId;
import org.slotbook.core.BookingStatus;
import org.slotbook.core.Cancelled;
import org.slotbook.core.Confirmed;
import org.slotbook.core.Full;
import org.slotbook.core.Held;
import org.slotbook.core.NoLongerHeld;
import org.slotbook.core.RequestId;
import org.slotbook.core.SlotId;
import org.slotbook.core.StudentId;

/**
 * A concurrent history of one slot: every operation with the time it was invoked and the time it
 * returned, and its answer reduced to what {@link SlotModel} judges. Requests and students are
 * numbered in the order they first appear; a booking is known by the request that created it.
 *
 * <p>{@link Recorder} builds one from many threads at once.
 */
public record SlotHistory(int capacity, List<Op> ops, List<Integer> studentOfRequest) {
    public SlotHistory {
        ops = List.copyOf(ops);
        studentOfRequest = List.copyOf(studentOfRequest);
    }

    public enum Kind { HOLD, CONFIRM, CANCEL, AVAILABILITY }

    /** The answer of an operation, as the model judges it; UNEXPECTED is never right. */
    public enum Answer {
        HELD, REPLAYED, NO_LONGER_HELD, FULL, ALREADY_BOOKED, CONFIRMED, CANCELLED, ALREADY_CANCELLED,
        AVAILABILITY, UNEXPECTED
    }

    /**
     * One operation. {@code request} is the request held (HOLD) or the request whose booking is
     * confirmed or cancelled; {@code named} the request whose booking the answer names (-1: none) and
     * {@code status} that booking's status in the answer; {@code held}, {@code confirmed} and
     * {@code remaining} an availability's figures.
     */
    public record Op(int id, int thread, Kind kind, int request, int student, long invoked, long returned,
                     Answer answer, int named, BookingStatus status, int held, int confirmed, int remaining,
                     String text) {
        /** Whether both ran at some common instant (neither returned before the other was invoked). */
        boolean overlaps(Op other) {
            return invoked <= other.returned && other.invoked <= returned;
        }

        String describe(long origin) {
            String what = switch (kind) {
                case HOLD -> "hold(r" + request + ", s" + student + ")";
                case CONFIRM -> "confirm(booking of r" + request + ")";
                case CANCEL -> "cancel(booking of r" + request + ")";
                case AVAILABILITY -> "availability()";
            };
            return String.format("#%-3d t%-2d [%9.3f ms .. %9.3f ms] %-32s -> %s", id, thread,
                    (invoked - origin) / 1e6, (returned - origin) / 1e6, what, text);
        }
    }

    /** This history with only the operations whose ids are set in {@code keep}. */
    SlotHistory only(java.util.BitSet keep) {
        List<Op> kept = new ArrayList<>();
        for (Op op : ops) {
            if (keep.get(op.id())) {
                kept.add(op);
            }
        }
        return new SlotHistory(capacity, kept, studentOfRequest);
    }

    /** The operations one a line, in invocation order, times relative to the first invocation. */
    public String describe() {
        long origin = ops.stream().mapToLong(Op::invoked).min().orElse(0);
        StringBuilder sb = new StringBuilder("slot of capacity " + capacity + ", " + ops.size() + " operations:\n");
        ops.stream().sorted(Comparator.comparingLong(Op::invoked))
                .forEach(op -> sb.append("  ").append(op.describe(origin)).append('\n'));
        return sb.toString();
    }

    /**
     * Records a history from many threads. Request ids and booking ids are checked against each other
     * as answers come in: a booking must belong to one request of the history, of the same student and
     * slot, and a request must always name the same booking; anything else is recorded UNEXPECTED.
     */
    public static final class Recorder {
        private final int capacity;
        private final SlotId slot;
        private final Map<RequestId, Integer> requests = new HashMap<>();
        private final List<RequestId> requestIds = new ArrayList<>();
        private final List<Integer> studentOfRequest = new ArrayList<>();
        private final List<StudentId> studentIds = new ArrayList<>();
        private final Map<StudentId, Integer> students = new HashMap<>();
        private final Map<Integer, BookingId> bookingOfRequest = new HashMap<>();
        private final List<Op> ops = new ArrayList<>();

        public Recorder(int capacity, SlotId slot) {
            this.capacity = capacity;
            this.slot = slot;
        }

        /** Numbers a new request of the student; returns its number. */
        public synchronized int newRequest(RequestId requestId, StudentId student) {
            int s = students.computeIfAbsent(student, k -> students.size());
            requests.put(requestId, requestIds.size());
            requestIds.add(requestId);
            studentOfRequest.add(s);
            studentIds.add(student);
            return requestIds.size() - 1;
        }

        public synchronized int requestCount() {
            return requestIds.size();
        }

        public synchronized StudentId studentId(int request) {
            return studentIds.get(request);
        }

        public synchronized RequestId requestId(int request) {
            return requestIds.get(request);
        }

        /** The booking a request was granted, if an answer named it yet. */
        public synchronized BookingId bookingOf(int request) {
            return bookingOfRequest.get(request);
        }

        /** Records an operation; {@code result} is the engine's answer or the exception it threw. */
        public synchronized void record(int thread, Kind kind, int request, long invoked, long returned, Object result) {
            int student = request < 0 ? -1 : studentOfRequest.get(request);
            Op op;
            if (result instanceof Held h) {
                op = named(thread, kind, request, student, invoked, returned,
                        h.replayed() ? Answer.REPLAYED : Answer.HELD, h.booking(), result);
            } else if (result instanceof NoLongerHeld n) {
                op = named(thread, kind, request, student, invoked, returned, Answer.NO_LONGER_HELD, n.booking(), result);
            } else if (result instanceof AlreadyBooked a) {
                op = named(thread, kind, request, student, invoked, returned, Answer.ALREADY_BOOKED, a.existing(), result);
            } else if (result instanceof Confirmed c) {
                op = named(thread, kind, request, student, invoked, returned, Answer.CONFIRMED, c.booking(), result);
            } else if (result instanceof Cancelled c && !c.late()) {
                op = named(thread, kind, request, student, invoked, returned, Answer.CANCELLED, c.booking(), result);
            } else if (result instanceof Full f && f.slotId().equals(slot)) {
                op = op(thread, kind, request, student, invoked, returned, Answer.FULL, -1, null, "Full");
            } else if (result instanceof AlreadyCancelled) {
                op = op(thread, kind, request, student, invoked, returned, Answer.ALREADY_CANCELLED, -1, null,
                        "AlreadyCancelled");
            } else if (result instanceof Availability a && a.slotId().equals(slot) && a.capacity() == capacity) {
                op = new Op(ops.size(), thread, kind, request, student, invoked, returned, Answer.AVAILABILITY, -1, null,
                        a.held(), a.confirmed(), a.remaining(), "Availability(held " + a.held() + ", confirmed "
                        + a.confirmed() + ", remaining " + a.remaining() + ")");
            } else {
                op = op(thread, kind, request, student, invoked, returned, Answer.UNEXPECTED, -1, null,
                        "unexpected " + result);
            }
            ops.add(op);
        }

        private Op named(int thread, Kind kind, int request, int student, long invoked, long returned, Answer answer,
                         Booking booking, Object result) {
            Integer named = requests.get(booking.requestId());
            String text = result.getClass().getSimpleName() + "(booking of r" + named + ", " + booking.status() + ")";
            if (named == null || !booking.slotId().equals(slot)
                    || students.get(booking.studentId()) == null
                    || students.get(booking.studentId()) != (int) studentOfRequest.get(named)) {
                return op(thread, kind, request, student, invoked, returned, Answer.UNEXPECTED, -1, null,
                        "a booking of another request, student or slot: " + result);
            }
            BookingId known = bookingOfRequest.putIfAbsent(named, booking.bookingId());
            if (known != null && !known.equals(booking.bookingId())) {
                return op(thread, kind, request, student, invoked, returned, Answer.UNEXPECTED, -1, null,
                        "a second booking " + booking.bookingId() + " of r" + named + " (first " + known + "): "
                        + result);
            }
            return op(thread, kind, request, student, invoked, returned, answer, named, booking.status(), text);
        }

        private Op op(int thread, Kind kind, int request, int student, long invoked, long returned, Answer answer,
                      int named, BookingStatus status, String text) {
            return new Op(ops.size(), thread, kind, request, student, invoked, returned, answer, named, status, -1, -1,
                    -1, text);
        }

        public synchronized SlotHistory history() {
            return new SlotHistory(capacity, ops, studentOfRequest);
        }
    }
}
