package org.slotbook.core.tck;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.slotbook.core.BookingStatus;
import org.slotbook.core.tck.Linearizability.Verdict;
import org.slotbook.core.tck.SlotHistory.Answer;
import org.slotbook.core.tck.SlotHistory.Kind;
import org.slotbook.core.tck.SlotHistory.Op;

/** The checker on histories written by hand: what it accepts, what it refuses, and how it shrinks. */
class LinearizabilityTest {
    private static final long BUDGET = 1_000_000;

    /** Requests 0..3 of students 0..3, request 4 of student 0 again. */
    private static final List<Integer> STUDENTS = List.of(0, 1, 2, 3, 0);

    private final List<Op> ops = new ArrayList<>();
    private int capacity = 2;

    @Test
    void aSequentialHistoryOfTheSpecificationIsLinearizable() {
        held(0, 0, 1);
        held(1, 2, 3);
        full(2, 4, 5);
        answer(Kind.CONFIRM, 0, 6, 7, Answer.CONFIRMED, 0, BookingStatus.CONFIRMED);
        answer(Kind.CANCEL, 1, 8, 9, Answer.CANCELLED, 1, BookingStatus.CANCELLED);
        answer(Kind.HOLD, 1, 10, 11, Answer.NO_LONGER_HELD, 1, BookingStatus.CANCELLED);
        answer(Kind.HOLD, 4, 12, 13, Answer.ALREADY_BOOKED, 0, BookingStatus.CONFIRMED);
        availability(14, 15, 0, 1);
        held(2, 16, 17);

        assertThat(check(2, false)).isEqualTo(Verdict.LINEARIZABLE);
    }

    @Test
    void fullWhileASeatIsFreeIsAViolation() {
        held(0, 0, 1);
        full(1, 2, 3);

        assertThat(check(2, false)).isEqualTo(Verdict.VIOLATION);
    }

    @Test
    void fullDuringACancelMayTakeEffectBeforeIt() {
        held(0, 0, 1);
        held(1, 2, 3);
        answer(Kind.CANCEL, 0, 4, 10, Answer.CANCELLED, 0, BookingStatus.CANCELLED);
        full(2, 5, 11);

        assertThat(check(2, false)).isEqualTo(Verdict.LINEARIZABLE);
    }

    @Test
    void fullForAStudentWhoseOwnCancelCommitsMeanwhileIsAViolation() {
        // slot of 2: students 0 and 1 hold; student 0 holds again (request 4) while his cancel runs
        held(0, 0, 1);
        held(1, 2, 3);
        answer(Kind.CANCEL, 0, 4, 10, Answer.CANCELLED, 0, BookingStatus.CANCELLED);
        full(4, 5, 11);

        assertThat(check(2, false)).as("before the cancel AlreadyBooked, after it a free seat")
                .isEqualTo(Verdict.VIOLATION);
    }

    @Test
    void alreadyBookedMustNameTheBookingLive() {
        held(0, 0, 1);
        answer(Kind.CANCEL, 0, 2, 10, Answer.CANCELLED, 0, BookingStatus.CANCELLED);
        answer(Kind.HOLD, 4, 3, 11, Answer.ALREADY_BOOKED, 0, BookingStatus.CANCELLED);

        assertThat(check(2, false)).isEqualTo(Verdict.VIOLATION);
    }

    @Test
    void onlyTheGateMayCountAHoldInFlight() {
        // one seat of two taken; students 1 and 2 hold at the same time and both are answered Full
        held(0, 0, 1);
        full(1, 4, 10);
        full(2, 5, 6);

        assertThat(check(2, false)).as("without a gate").isEqualTo(Verdict.VIOLATION);
        assertThat(check(2, true)).as("behind the gate, each counting the other in flight")
                .isEqualTo(Verdict.LINEARIZABLE);
        assertThat(check(3, true)).as("behind the gate, still a seat beyond the one in flight")
                .isEqualTo(Verdict.VIOLATION);
        ops.clear();
        held(0, 0, 1);
        answer(Kind.CANCEL, 0, 2, 3, Answer.CANCELLED, 0, BookingStatus.CANCELLED);
        held(1, 4, 5);
        full(2, 6, 7);
        assertThat(check(2, true)).as("behind the gate, a cancelled hold counts for nothing")
                .isEqualTo(Verdict.VIOLATION);
        ops.clear();
        held(0, 0, 1);
        held(1, 2, 3);
        answer(Kind.CANCEL, 0, 4, 20, Answer.CANCELLED, 0, BookingStatus.CANCELLED);
        availability(5, 6, 1, 0);
        full(2, 7, 8);
        assertThat(check(2, false)).as("without a gate, after a read saw the seat free").isEqualTo(Verdict.VIOLATION);
        assertThat(check(2, true)).as("behind the gate, while the cancel has not returned")
                .isEqualTo(Verdict.LINEARIZABLE);
    }

    @Test
    void aGrantedRequestIsNeverFullAndAReplayNamesItsBooking() {
        held(0, 0, 1);
        held(1, 2, 3);
        full(0, 4, 5);

        assertThat(check(2, false)).isEqualTo(Verdict.VIOLATION);
        ops.clear();
        held(0, 0, 1);
        answer(Kind.HOLD, 0, 2, 3, Answer.HELD, 0, BookingStatus.HELD);
        assertThat(check(2, false)).as("a second grant of one request").isEqualTo(Verdict.VIOLATION);
    }

    @Test
    void aFailingHistoryIsMinimizedToTheOperationsThatMatter() {
        held(0, 0, 1);
        for (int i = 0; i < 10; i++) {
            availability(2 + 2 * i, 3 + 2 * i, 1, 0);
        }
        full(1, 30, 31);
        availability(32, 33, 1, 0);
        SlotHistory history = new SlotHistory(2, ops, STUDENTS);
        assertThat(Linearizability.check(history, false, BUDGET)).isEqualTo(Verdict.VIOLATION);

        SlotHistory small = Linearizability.minimize(history, false, BUDGET);

        assertThat(Linearizability.check(small, false, BUDGET)).isEqualTo(Verdict.VIOLATION);
        assertThat(small.ops()).extracting(Op::answer).containsExactly(Answer.HELD, Answer.FULL);
        assertThat(small.describe()).contains("hold(r1, s1)", "-> Full");
    }

    private Verdict check(int capacity, boolean behindGate) {
        this.capacity = capacity;
        return Linearizability.check(new SlotHistory(capacity, ops, STUDENTS), behindGate, BUDGET);
    }

    private void held(int request, long from, long to) {
        answer(Kind.HOLD, request, from, to, Answer.HELD, request, BookingStatus.HELD);
    }

    private void full(int request, long from, long to) {
        answer(Kind.HOLD, request, from, to, Answer.FULL, -1, null);
    }

    private void availability(long from, long to, int held, int confirmed) {
        ops.add(new Op(ops.size(), 0, Kind.AVAILABILITY, -1, -1, from, to, Answer.AVAILABILITY, -1, null, held,
                confirmed, capacity - held - confirmed, "Availability(held " + held + ", confirmed " + confirmed + ")"));
    }

    private void answer(Kind kind, int request, long from, long to, Answer answer, int named, BookingStatus status) {
        String text = answer == Answer.FULL ? "Full" : answer + (named < 0 ? "" : "(booking of r" + named + ")");
        ops.add(new Op(ops.size(), ops.size(), kind, request, STUDENTS.get(request), from, to, answer, named, status,
                -1, -1, -1, text));
    }
}
