package org.slotbook.core.tck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.slotbook.core.AlreadyBooked;
import org.slotbook.core.Booking;
import org.slotbook.core.BookingEngine;
import org.slotbook.core.BookingStatus;
import org.slotbook.core.BookingStoreException;
import org.slotbook.core.Cancelled;
import org.slotbook.core.CoachId;
import org.slotbook.core.Confirmed;
import org.slotbook.core.Full;
import org.slotbook.core.Held;
import org.slotbook.core.HoldRequest;
import org.slotbook.core.HoldResult;
import org.slotbook.core.NoLongerHeld;
import org.slotbook.core.RequestId;
import org.slotbook.core.RoomId;
import org.slotbook.core.ScheduleResult;
import org.slotbook.core.Scheduled;
import org.slotbook.core.Slot;
import org.slotbook.core.SlotId;
import org.slotbook.core.SlotSpec;
import org.slotbook.core.StudentId;
import org.slotbook.core.TenantId;
import org.slotbook.core.TimeRange;
import org.slotbook.core.spi.BookingStore;
import org.slotbook.core.spi.GateDecision;
import org.slotbook.core.spi.GateHolder;
import org.slotbook.core.spi.GateOutcome;
import org.slotbook.core.spi.GateView;
import org.slotbook.core.spi.SeatReservation;
import org.slotbook.core.tck.faults.DeferringGate;
import org.slotbook.core.tck.faults.LossyStore;

/**
 * What a retry is answered, behind the gate exactly as without it, and what the gate keeps meanwhile:
 * a retry of a held request is never answered Full, a retry of a cancelled one is answered NoLongerHeld
 * on a full slot, a late release of an old request never takes the seat of the student's newer booking,
 * a request refused as bad input leaves the gate's state as it was, and a reconcile whose ledger read
 * came before a cancel never pins the cancelled booking. Mixed into {@link BookingEngineContract}, so
 * every backend runs it without a gate and behind every gate; verdicts are read back from the store and
 * from the gate's stored state.
 */
public interface GateRetryContract {

    /** An engine over the suite's store, on its test clock, in front of {@code gate}. */
    default BookingEngine gatedEngine(SeatReservation gate) {
        return gatedEngine(testStore(), gate);
    }

    /** An engine over {@code store} (the suite's, or one wrapping it), on the test clock, in front of {@code gate}. */
    BookingEngine gatedEngine(BookingStore store, SeatReservation gate);

    /** The suite's gate; {@link SeatReservation#none()} without one. */
    SeatReservation testGate();

    TenantId testTenant();

    java.time.Instant testBase();

    BookingStore testStore();

    MutableClock testClock();

    /**
     * Everything the gate stores for a slot that a call could change, comparable with {@code equals}: by
     * default what {@code inspect} shows; a Redis gate's suite answers both keys as stored.
     */
    default Object gateState(SlotId slot) {
        return testGate().inspect(testTenant(), slot);
    }

    private Slot slot(BookingEngine engine, String id, int startMinutes, int capacity) {
        TimeRange time = TimeRange.of(testBase().plus(Duration.ofMinutes(startMinutes)), Duration.ofMinutes(60));
        ScheduleResult result = engine.schedule(testTenant(),
                new SlotSpec(SlotId.of(id), CoachId.of("coach-" + id), RoomId.of("room-" + id), time, capacity));
        assertThat(result).as("schedule %s", id).isInstanceOf(Scheduled.class);
        return ((Scheduled) result).slot();
    }

    private static Booking granted(HoldResult result) {
        assertThat(result).isInstanceOf(Held.class);
        return ((Held) result).booking();
    }

    private Booking stored(RequestId request) {
        return testStore().findByRequest(testTenant(), request).orElseThrow();
    }

    private boolean gated() {
        return testGate() != SeatReservation.none();
    }

    private List<GateHolder> holders(SlotId slot) {
        return testGate().inspect(testTenant(), slot).map(GateView::holders).orElse(List.of());
    }

    @Test
    default void aLateReleaseOfAnOlderRequestNeverTakesTheSeatOfTheStudentsNewerBooking() {
        DeferringGate deferring = new DeferringGate(testGate());
        BookingEngine engine = gatedEngine(gated() ? deferring : SeatReservation.none());
        Slot slot = slot(engine, "late-release", 0, 1);
        StudentId sam = StudentId.of("sam");
        HoldRequest older = HoldRequest.of(RequestId.random(), slot.slotId(), sam);
        Booking first = granted(engine.hold(testTenant(), older));
        // the cancel commits; its release of the older request's gate hold is on the way
        deferring.deferReleasesOf(older.requestId());
        assertThat(engine.cancel(testTenant(), first.bookingId(), sam)).isInstanceOf(Cancelled.class);
        HoldRequest newer = HoldRequest.of(RequestId.random(), slot.slotId(), sam);
        Booking second = granted(engine.hold(testTenant(), newer));
        // ...and arrives after the newer request's grant
        int late = deferring.deliverReleases();
        // another student's hold, in flight to the ledger: it has the gate's seat if one is free
        RequestId inFlight = RequestId.random();
        GateDecision other = gated() ? testGate().tryHold(testTenant(), slot.slotId(), StudentId.of("tess"),
                inFlight, Duration.ofMinutes(10)) : GateDecision.UNAVAILABLE;

        HoldResult retry = engine.hold(testTenant(), newer);

        assertThat(retry).as("a retry of the held request (%d late release(s) of the older one; the other"
                + " student's in-flight hold: %s)", late, other.outcome()).isInstanceOf(Held.class);
        assertThat(((Held) retry).replayed()).isTrue();
        assertThat(((Held) retry).booking().bookingId()).isEqualTo(second.bookingId());
        assertThat(engine.confirm(testTenant(), second.bookingId(), sam)).isInstanceOf(Confirmed.class);
        HoldResult again = engine.hold(testTenant(), HoldRequest.of(RequestId.random(), slot.slotId(), sam));
        assertThat(again).as("a new request of a student with a confirmed booking").isInstanceOf(AlreadyBooked.class);
        assertThat(((AlreadyBooked) again).existing().bookingId()).isEqualTo(second.bookingId());

        assertThat(stored(older.requestId()).status()).isEqualTo(BookingStatus.CANCELLED);
        assertThat(stored(newer.requestId()).status()).isEqualTo(BookingStatus.CONFIRMED);
        if (gated()) {
            assertThat(other.outcome()).as("the newer booking's seat stays counted").isEqualTo(GateOutcome.FULL);
            assertThat(holders(slot.slotId())).filteredOn(h -> h.studentId().equals(sam))
                    .singleElement().satisfies(h -> {
                        assertThat(h.requestId()).isEqualTo(newer.requestId());
                        assertThat(h.pinned()).isTrue();
                    });
        }
    }

    @Test
    default void aRetryAfterALostAcknowledgementGivesTheOlderRequestsGateSeatToTheNewerBooking() {
        DeferringGate deferring = new DeferringGate(testGate());
        LossyStore lossy = new LossyStore(testStore());
        BookingEngine engine = gatedEngine(lossy, gated() ? deferring : SeatReservation.none());
        Slot slot = slot(engine, "lost-ack", 0, 1);
        StudentId sam = StudentId.of("sam");
        HoldRequest older = HoldRequest.of(RequestId.random(), slot.slotId(), sam);
        Booking first = granted(engine.hold(testTenant(), older));
        deferring.deferReleasesOf(older.requestId());
        assertThat(engine.cancel(testTenant(), first.bookingId(), sam)).isInstanceOf(Cancelled.class);
        HoldRequest newer = HoldRequest.of(RequestId.random(), slot.slotId(), sam);
        // the newer request commits, but its acknowledgement is lost: the student retries it
        lossy.loseNextHold.set(true);
        assertThatThrownBy(() -> engine.hold(testTenant(), newer)).isInstanceOf(BookingStoreException.class);
        Booking second = granted(engine.hold(testTenant(), newer));
        int late = deferring.deliverReleases();
        GateDecision other = gated() ? testGate().tryHold(testTenant(), slot.slotId(), StudentId.of("tess"),
                RequestId.random(), Duration.ofMinutes(10)) : GateDecision.UNAVAILABLE;

        HoldResult retry = engine.hold(testTenant(), newer);

        assertThat(retry).as("a retry of the held request (%d late release(s) of the older one; the other"
                + " student's in-flight hold: %s)", late, other.outcome()).isInstanceOf(Held.class);
        assertThat(((Held) retry).booking().bookingId()).isEqualTo(second.bookingId());
        assertThat(stored(newer.requestId()).status()).isEqualTo(BookingStatus.HELD);
        if (gated()) {
            assertThat(other.outcome()).isEqualTo(GateOutcome.FULL);
            assertThat(holders(slot.slotId())).extracting(GateHolder::studentId, GateHolder::requestId)
                    .containsExactly(org.assertj.core.groups.Tuple.tuple(sam, newer.requestId()));
        }
    }

    @Test
    default void aRetrysRecountArrivingAfterTheBookingsCancelLeavesNoSeatBehind() {
        Assumptions.assumeTrue(gated(), "without a gate there is nothing to count");
        DeferringGate deferring = new DeferringGate(testGate());
        BookingEngine engine = gatedEngine(deferring);
        Slot slot = slot(engine, "late-recount", 0, 1);
        StudentId sam = StudentId.of("sam");
        HoldRequest request = HoldRequest.of(RequestId.random(), slot.slotId(), sam);
        Booking booked = granted(engine.hold(testTenant(), request));
        // a retry: the gate finds the request's seat, the ledger replays the booking; the engine then makes
        // sure the gate counts the seat (its second gate call), and just before that call reaches the gate
        // the student's cancel commits and gives the seat back
        deferring.beforeHoldOf(request.requestId(), 2, () -> assertThat(engine.cancel(testTenant(),
                booked.bookingId(), sam)).isInstanceOf(Cancelled.class));

        HoldResult retry = engine.hold(testTenant(), request);

        assertThat(retry).as("the retry, decided before the cancel").isInstanceOf(Held.class);
        assertThat(stored(request.requestId()).status()).isEqualTo(BookingStatus.CANCELLED);
        assertThat(holders(slot.slotId())).as("the cancelled booking's seat in the gate").isEmpty();
        HoldResult tess = engine.hold(testTenant(), HoldRequest.of(RequestId.random(), slot.slotId(),
                StudentId.of("tess")));
        assertThat(tess).as("another student, on the slot with its one seat free").isInstanceOf(Held.class);
        assertThat(engine.hold(testTenant(), request)).as("the cancelled request again")
                .isInstanceOf(NoLongerHeld.class);
        assertThat(holders(slot.slotId())).extracting(GateHolder::studentId).containsExactly(StudentId.of("tess"));
    }

    @Test
    default void aStudentWhoseNewerBookingsSeatIsStillMovingOverIsNeverAnsweredFull() {
        Assumptions.assumeTrue(gated(), "without a gate there is no seat to move");
        DeferringGate deferring = new DeferringGate(testGate());
        BookingEngine engine = gatedEngine(deferring);
        Slot slot = slot(engine, "moving-seat", 0, 1);
        StudentId sam = StudentId.of("sam");
        Booking older = granted(engine.hold(testTenant(), HoldRequest.of(RequestId.random(), slot.slotId(), sam)));
        HoldRequest newer = HoldRequest.of(RequestId.random(), slot.slotId(), sam);
        StudentId tess = StudentId.of("tess");
        RequestId tessInFlight = RequestId.random();
        GateDecision[] tessAtTheGate = new GateDecision[1];
        // the newer request finds the older one's seat in the gate; before the ledger decides it, the older
        // booking is cancelled (its seat given back at once) and another student's hold takes the free
        // gate seat on its way to the ledger
        deferring.afterHoldOf(newer.requestId(), () -> {
            assertThat(engine.cancel(testTenant(), older.bookingId(), sam)).isInstanceOf(Cancelled.class);
            tessAtTheGate[0] = testGate().tryHold(testTenant(), slot.slotId(), tess, tessInFlight,
                    Duration.ofMinutes(10));
        });
        // the ledger grants the newer request; before its seat reaches the gate, the student asks again
        HoldResult[] meanwhile = new HoldResult[1];
        deferring.beforeTransfer(() -> meanwhile[0] = engine.hold(testTenant(),
                HoldRequest.of(RequestId.random(), slot.slotId(), sam)));

        Booking granted = granted(engine.hold(testTenant(), newer));

        assertThat(tessAtTheGate[0].outcome()).as("the other student's hold at the gate").isEqualTo(GateOutcome.HELD);
        assertThat(meanwhile[0]).as("the student, holding the newer booking, asks again while its seat moves over")
                .isInstanceOf(AlreadyBooked.class);
        assertThat(((AlreadyBooked) meanwhile[0]).existing().bookingId()).isEqualTo(granted.bookingId());
        assertThat(stored(newer.requestId()).status()).isEqualTo(BookingStatus.HELD);
        testGate().release(testTenant(), slot.slotId(), tess, tessInFlight);
    }

    @Test
    default void aStudentGrantedWhileAnotherDeliveryGaveTheSeatBackIsNeverAnsweredFull() {
        Assumptions.assumeTrue(gated(), "without a gate there is no seat to give back");
        DeferringGate deferring = new DeferringGate(testGate());
        BookingEngine engine = gatedEngine(deferring);
        Slot slot = slot(engine, "given-back", 0, 1);
        StudentId sam = StudentId.of("sam");
        HoldRequest request = HoldRequest.of(RequestId.random(), slot.slotId(), sam);
        StudentId zoe = StudentId.of("zoe");
        RequestId zoeInFlight = RequestId.random();
        // one delivery of the request (another node's) takes the gate seat on its way to the ledger
        assertThat(testGate().tryHold(testTenant(), slot.slotId(), sam, request.requestId(), Duration.ofMinutes(10))
                .outcome()).isEqualTo(GateOutcome.HELD);
        GateDecision[] zoeAtTheGate = new GateDecision[1];
        // a second delivery finds that seat; then the first one fails at the ledger (nothing committed) and
        // gives the seat back, and another student's hold takes it on its way to the ledger
        deferring.afterHoldOf(request.requestId(), () -> {
            testGate().release(testTenant(), slot.slotId(), sam, request.requestId());
            zoeAtTheGate[0] = testGate().tryHold(testTenant(), slot.slotId(), zoe, zoeInFlight, Duration.ofMinutes(10));
        });
        // the ledger grants the second delivery; before the engine takes the seat again, the student asks
        HoldResult[] meanwhile = new HoldResult[1];
        deferring.beforeHoldOf(request.requestId(), 2, () -> meanwhile[0] = engine.hold(testTenant(),
                HoldRequest.of(RequestId.random(), slot.slotId(), sam)));

        Booking granted = granted(engine.hold(testTenant(), request));

        assertThat(zoeAtTheGate[0].outcome()).as("the other student's hold at the gate").isEqualTo(GateOutcome.HELD);
        assertThat(meanwhile[0]).as("the student, holding the granted booking, asks again before its seat is back")
                .isInstanceOf(AlreadyBooked.class);
        assertThat(((AlreadyBooked) meanwhile[0]).existing().bookingId()).isEqualTo(granted.bookingId());
        testGate().release(testTenant(), slot.slotId(), zoe, zoeInFlight);
    }

    @Test
    default void aRetryOfACancelledRequestOnAFullSlotAnswersNoLongerHeld() {
        BookingEngine engine = gatedEngine(testGate());
        Slot slot = slot(engine, "replay-full", 0, 1);
        StudentId sam = StudentId.of("sam");
        HoldRequest request = HoldRequest.of(RequestId.random(), slot.slotId(), sam);
        Booking first = granted(engine.hold(testTenant(), request));
        assertThat(engine.cancel(testTenant(), first.bookingId(), sam)).isInstanceOf(Cancelled.class);
        Booking tess = granted(engine.hold(testTenant(), HoldRequest.of(RequestId.random(), slot.slotId(),
                StudentId.of("tess"))));

        HoldResult retry = engine.hold(testTenant(), request);

        assertThat(retry).as("a retry of a cancelled request on a full slot").isInstanceOf(NoLongerHeld.class);
        assertThat(((NoLongerHeld) retry).booking().status()).isEqualTo(BookingStatus.CANCELLED);
        assertThat(engine.hold(testTenant(), HoldRequest.of(RequestId.random(), slot.slotId(), sam)))
                .as("a new request of the same student on the full slot").isInstanceOf(Full.class);
        assertThat(testStore().liveSlot(testTenant(), slot.slotId(), testClock().instant()).orElseThrow().live())
                .extracting(Booking::bookingId).containsExactly(tess.bookingId());
        if (gated()) {
            assertThat(holders(slot.slotId())).extracting(GateHolder::studentId)
                    .containsExactly(StudentId.of("tess"));
        }
    }

    @Test
    default void aRetryOfARequestRefusedFullIsDecidedAfresh() {
        BookingEngine engine = gatedEngine(testGate());
        Slot slot = slot(engine, "afresh", 0, 1);
        Booking tess = granted(engine.hold(testTenant(), HoldRequest.of(RequestId.random(), slot.slotId(),
                StudentId.of("tess"))));
        HoldRequest sam = HoldRequest.of(RequestId.random(), slot.slotId(), StudentId.of("sam"));
        assertThat(engine.hold(testTenant(), sam)).isInstanceOf(Full.class);
        assertThat(engine.cancel(testTenant(), tess.bookingId(), tess.studentId())).isInstanceOf(Cancelled.class);

        Booking granted = granted(engine.hold(testTenant(), sam));

        assertThat(stored(sam.requestId()).bookingId()).isEqualTo(granted.bookingId());
        if (gated()) {
            assertThat(holders(slot.slotId())).extracting(GateHolder::requestId).containsExactly(sam.requestId());
        }
    }

    @Test
    default void aRequestRefusedForAReusedIdLeavesTheGateAsItWas() {
        BookingEngine engine = gatedEngine(testGate());
        Slot x = slot(engine, "reused-x", 0, 3);
        Slot y = slot(engine, "reused-y", 120, 3);
        HoldRequest dave = HoldRequest.of(RequestId.random(), x.slotId(), StudentId.of("dave"));
        Booking daves = granted(engine.hold(testTenant(), dave));
        Object xBefore = gateState(x.slotId());
        Object yBefore = gateState(y.slotId());

        for (HoldRequest reuse : List.of(HoldRequest.of(dave.requestId(), x.slotId(), StudentId.of("erin")),
                HoldRequest.of(dave.requestId(), y.slotId(), StudentId.of("erin")),
                HoldRequest.of(dave.requestId(), y.slotId(), StudentId.of("dave")))) {
            assertThatThrownBy(() -> engine.hold(testTenant(), reuse)).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> engine.book(testTenant(), reuse)).isInstanceOf(IllegalArgumentException.class);
        }

        assertThat(gateState(x.slotId())).as("the slot where the request id holds").isEqualTo(xBefore);
        assertThat(gateState(y.slotId())).as("another slot").isEqualTo(yBefore);
        assertThat(testStore().liveSlot(testTenant(), x.slotId(), testClock().instant()).orElseThrow().live())
                .extracting(Booking::bookingId).containsExactly(daves.bookingId());
        assertThat(testStore().liveSlot(testTenant(), y.slotId(), testClock().instant()).orElseThrow().live()).isEmpty();
        HoldResult retry = engine.hold(testTenant(), dave);
        assertThat(retry).isInstanceOf(Held.class);
        assertThat(((Held) retry).booking().bookingId()).isEqualTo(daves.bookingId());
    }

    @Test
    default void aReconcileWhoseLedgerReadCameBeforeACancelNeverPinsTheCancelledBooking() {
        Assumptions.assumeTrue(gated(), "without a gate there is nothing to reconcile");
        DeferringGate deferring = new DeferringGate(testGate());
        BookingEngine engine = gatedEngine(gated() ? deferring : SeatReservation.none());
        int rounds = 5;
        int pinned = 0;
        int refused = 0;
        for (int round = 0; round < rounds; round++) {
            Slot slot = slot(engine, "stale-read-" + round, round * 120, 1);
            StudentId sam = StudentId.of("sam");
            Booking booked = granted(engine.book(testTenant(), HoldRequest.of(RequestId.random(), slot.slotId(), sam)));
            // the reconcile reads the ledger (the booking is live), the booking is cancelled, and the
            // reconcile reaches the gate 50 ms later
            deferring.beforeReconcile(() -> assertThat(engine.cancel(testTenant(), booked.bookingId(), sam))
                    .isInstanceOf(Cancelled.class), Duration.ofMillis(50));
            engine.reconcile(testTenant(), slot.slotId());
            deferring.beforeReconcile(() -> { }, Duration.ZERO);

            assertThat(stored(booked.requestId()).status()).isEqualTo(BookingStatus.CANCELLED);
            if (holders(slot.slotId()).stream().anyMatch(h -> h.studentId().equals(sam))) {
                pinned++;
            }
            // the seat is free in the ledger: a new student gets it
            if (!(engine.hold(testTenant(), HoldRequest.of(RequestId.random(), slot.slotId(),
                    StudentId.of("tess"))) instanceof Held)) {
                refused++;
            }
        }
        assertThat(pinned).as("%d of %d stale reconciles put the cancelled booking back in the gate (%d new"
                + " students refused a free seat)", pinned, rounds, refused).isZero();
        assertThat(refused).isZero();
    }
}
