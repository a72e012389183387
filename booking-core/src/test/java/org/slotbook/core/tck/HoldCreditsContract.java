package org.slotbook.core.tck;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.slotbook.core.Booking;
import org.slotbook.core.BookingEngine;
import org.slotbook.core.BookingListener;
import org.slotbook.core.BookingRules;
import org.slotbook.core.BookingStatus;
import org.slotbook.core.CancelResult;
import org.slotbook.core.CancellationPolicy;
import org.slotbook.core.Cancelled;
import org.slotbook.core.CoachId;
import org.slotbook.core.CreditEntry;
import org.slotbook.core.CreditEntry.Reason;
import org.slotbook.core.CreditPolicy;
import org.slotbook.core.Held;
import org.slotbook.core.HoldRequest;
import org.slotbook.core.HoldResult;
import org.slotbook.core.LessonPackage;
import org.slotbook.core.PackageGrant;
import org.slotbook.core.PackageId;
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
import org.slotbook.core.WaitlistEntry;
import org.slotbook.core.Waitlisted;
import org.slotbook.core.spi.BookingStore;

/**
 * The credits of holds that never became bookings: a hold whose deadline passed (not swept yet) gives
 * its credit back to whatever decision needs it, and a hold cancelled before it was confirmed is never
 * late and never charged. Mixed into {@link BookingEngineContract}, so every backend runs it; balances
 * and journals are read back from the store (the tables of a JDBC store) and must sum up.
 */
public interface HoldCreditsContract {

    BookingEngine rulesEngine(BookingRules rules, BookingListener listener);

    MutableClock testClock();

    TenantId testTenant();

    Instant testBase();

    BookingStore testStore();

    int testRaceThreads();

    // ---------------------------------------------------------------- helpers

    private TimeRange hours(int startHours) {
        return TimeRange.of(testBase().plus(Duration.ofHours(startHours)), Duration.ofMinutes(60));
    }

    private Slot paidLesson(BookingEngine engine, String slot, TimeRange time, int capacity) {
        ScheduleResult result = engine.schedule(testTenant(), new SlotSpec(SlotId.of(slot), CoachId.of("coach-" + slot),
                RoomId.of("room-" + slot), time, capacity).withCost(1));
        assertThat(result).as("schedule %s", slot).isInstanceOf(Scheduled.class);
        return ((Scheduled) result).slot();
    }

    private void grantOne(BookingEngine engine, String pkg, String student) {
        engine.grantPackage(testTenant(), PackageGrant.of(PackageId.of(pkg), StudentId.of(student), 1,
                testClock().instant().minus(Duration.ofDays(1)), testBase().plus(Duration.ofDays(30))));
    }

    private static HoldRequest request(Slot slot, String student) {
        return HoldRequest.of(RequestId.random(), slot.slotId(), StudentId.of(student));
    }

    private static Booking heldBooking(HoldResult result) {
        assertThat(result).isInstanceOf(Held.class);
        return ((Held) result).booking();
    }

    private Booking storedBooking(Booking b) {
        return testStore().findBooking(testTenant(), b.bookingId()).orElseThrow();
    }

    /** The package's balance as stored, after checking that its journal sums to it. */
    private int balanceOf(String pkg, String student) {
        LessonPackage p = testStore().packages(testTenant(), StudentId.of(student), 0, 100).stream()
                .filter(x -> x.packageId().value().equals(pkg)).findFirst().orElseThrow();
        int sum = testStore().creditJournal(testTenant(), PackageId.of(pkg), 0, 1000).stream()
                .mapToInt(CreditEntry::delta).sum();
        assertThat(sum).as("journal of %s sums to its remaining credits", pkg).isEqualTo(p.remaining());
        return p.remaining();
    }

    private List<Reason> reasonsOf(String pkg) {
        return testStore().creditJournal(testTenant(), PackageId.of(pkg), 0, 1000).stream()
                .map(CreditEntry::reason).toList();
    }

    // ================================================================ dead holds

    @Test
    default void theCreditOfADeadPaidHoldPaysForAHoldOnAnotherSlot() {
        int students = 5;
        BookingEngine engine = rulesEngine(BookingRules.defaults(), BookingListener.NONE);
        Slot a = paidLesson(engine, "a", hours(0), students);
        Slot b = paidLesson(engine, "b", hours(2), students);
        List<Booking> dead = new ArrayList<>();
        for (int i = 0; i < students; i++) {
            grantOne(engine, "p" + i, "sam" + i);
            dead.add(heldBooking(engine.hold(testTenant(), request(b, "sam" + i))));
            assertThat(balanceOf("p" + i, "sam" + i)).isZero();
        }
        // every hold on b runs out; nobody sweeps
        testClock().set(dead.get(students - 1).heldUntil());

        int held = 0;
        List<Booking> onA = new ArrayList<>();
        for (int i = 0; i < students; i++) {
            HoldResult result = engine.hold(testTenant(), request(a, "sam" + i));
            if (result instanceof Held h) {
                held++;
                onA.add(h.booking());
            }
        }
        assertThat(held).as("holds on a paid with the credit of a dead hold on b, of %d", students).isEqualTo(students);
        for (int i = 0; i < students; i++) {
            assertThat(storedBooking(onA.get(i)).packageId()).isEqualTo(PackageId.of("p" + i));
            assertThat(storedBooking(dead.get(i)).credits()).as("the dead hold holds nothing any more").isZero();
            assertThat(balanceOf("p" + i, "sam" + i)).isZero();
            assertThat(reasonsOf("p" + i)).containsExactly(Reason.GRANT, Reason.DRAW, Reason.REFUND, Reason.DRAW);
        }
        // the sweep then expires the dead holds without moving a credit again
        engine.sweepExpired(testTenant(), 100);
        for (int i = 0; i < students; i++) {
            assertThat(storedBooking(dead.get(i)).status()).isEqualTo(BookingStatus.EXPIRED);
            assertThat(storedBooking(onA.get(i)).credits()).isEqualTo(1);
            assertThat(balanceOf("p" + i, "sam" + i)).isZero();
            assertThat(reasonsOf("p" + i)).containsExactly(Reason.GRANT, Reason.DRAW, Reason.REFUND, Reason.DRAW);
        }
    }

    @Test
    default void deadHoldsGiveTheirCreditBackExactlyOnceWhileSweepersExpireThemConcurrently() {
        int students = Math.max(4, Math.min(testRaceThreads() / 2, 16));
        BookingEngine engine = rulesEngine(BookingRules.defaults(), BookingListener.NONE);
        Slot a = paidLesson(engine, "race-a", hours(0), students);
        Slot b = paidLesson(engine, "race-b", hours(2), students);
        List<Booking> dead = new ArrayList<>();
        for (int i = 0; i < students; i++) {
            grantOne(engine, "q" + i, "rae" + i);
            dead.add(heldBooking(engine.hold(testTenant(), request(b, "rae" + i))));
        }
        testClock().set(dead.get(students - 1).heldUntil());

        // each student holds a seat of a (paid with the credit of his dead hold on b) while as many
        // sweepers expire those same dead holds
        List<Object> answers = Concurrent.run(2 * students, k -> k < students
                ? engine.hold(testTenant(), request(a, "rae" + k))
                : (Object) engine.sweepExpired(testTenant(), 2));
        engine.sweepExpired(testTenant(), 1000);

        long held = answers.stream().filter(Held.class::isInstance).count();
        int refundedOnce = 0;
        for (int i = 0; i < students; i++) {
            assertThat(storedBooking(dead.get(i)).status()).isEqualTo(BookingStatus.EXPIRED);
            assertThat(balanceOf("q" + i, "rae" + i)).isZero();
            List<Reason> reasons = reasonsOf("q" + i);
            if (reasons.stream().filter(r -> r == Reason.REFUND).count() == 1) {
                refundedOnce++;
            }
            assertThat(reasons).containsExactly(Reason.GRANT, Reason.DRAW, Reason.REFUND, Reason.DRAW);
        }
        assertThat(held).as("holds on a, of %d racing %d sweepers", students, students).isEqualTo(students);
        assertThat(refundedOnce).as("dead holds refunded exactly once, of %d", students).isEqualTo(students);
        assertThat(testStore().availability(testTenant(), a.slotId(), testClock().instant()).orElseThrow()
                .remaining()).isZero();
    }

    @Test
    default void aWaiterWhoseOnlyCreditSitsInADeadHoldIsPromotedAndPays() {
        int rounds = 5;
        List<WaitlistEntry> skipped = new CopyOnWriteArrayList<>();
        BookingEngine engine = rulesEngine(BookingRules.defaults(), new BookingListener() {
            @Override
            public void waitlistSkipped(WaitlistEntry entry) {
                skipped.add(entry);
            }
        });
        int promoted = 0;
        for (int i = 0; i < rounds; i++) {
            String owner = "ada" + i;
            String waiter = "wes" + i;
            grantOne(engine, "pa" + i, owner);
            grantOne(engine, "pw" + i, waiter);
            Slot wanted = paidLesson(engine, "w" + i, hours(4 * i), 1);
            Slot other = paidLesson(engine, "c" + i, hours(4 * i + 2), 1);
            Booking taken = heldBooking(engine.book(testTenant(), request(wanted, owner)));
            HoldRequest waits = request(wanted, waiter).orWaitlist();
            assertThat(engine.hold(testTenant(), waits)).isInstanceOf(Waitlisted.class);
            // the waiter's only credit goes into a hold of another slot, which then runs out unswept
            Booking dead = heldBooking(engine.hold(testTenant(), request(other, waiter)));
            assertThat(balanceOf("pw" + i, waiter)).isZero();
            testClock().set(dead.heldUntil());

            assertThat(engine.cancelByStaff(testTenant(), taken.bookingId())).isInstanceOf(Cancelled.class);
            WaitlistEntry entry = testStore().findWaiter(testTenant(), waits.requestId()).orElseThrow();
            if (entry.status() == WaitlistEntry.Status.PROMOTED) {
                promoted++;
            }
            assertThat(entry.reason()).as("round %d: why %s was passed over (promoted so far: %d of %d)", i, waiter,
                    promoted, i + 1).isNull();
            Booking seat = testStore().findByRequest(testTenant(), waits.requestId()).orElseThrow();
            assertThat(seat.status()).isEqualTo(BookingStatus.HELD);
            assertThat(seat.packageId()).isEqualTo(PackageId.of("pw" + i));
            assertThat(storedBooking(dead).credits()).isZero();
            assertThat(balanceOf("pw" + i, waiter)).isZero();
            assertThat(reasonsOf("pw" + i)).containsExactly(Reason.GRANT, Reason.DRAW, Reason.REFUND, Reason.DRAW);
            assertThat(balanceOf("pa" + i, owner)).as("a staff cancel refunds").isEqualTo(1);
        }
        assertThat(promoted).as("waiters promoted with the credit of their dead hold, of %d", rounds).isEqualTo(rounds);
        assertThat(skipped).as("waiters skipped").isEmpty();
    }

    // ================================================================ unconfirmed holds

    @Test
    default void cancellingAnUnconfirmedHoldAfterTheCutoffRefundsItAsItsExpiryWould() {
        List<Booking> lateCancels = new CopyOnWriteArrayList<>();
        BookingEngine engine = rulesEngine(BookingRules.defaults()
                .withCancellation(CancellationPolicy.lateWithin(Duration.ofHours(2))), new BookingListener() {
                    @Override
                    public void cancelledLate(Booking booking) {
                        lateCancels.add(booking);
                    }
                });
        grantOne(engine, "pc", "cat");
        grantOne(engine, "pe", "eli");
        Slot slot = paidLesson(engine, "late", hours(0), 5);
        testClock().set(slot.time().start().minus(Duration.ofHours(1)));

        Booking cancelled = heldBooking(engine.hold(testTenant(), request(slot, "cat")));
        Booking expires = heldBooking(engine.hold(testTenant(), request(slot, "eli")));
        assertThat(balanceOf("pc", "cat")).isZero();
        CancelResult result = engine.cancel(testTenant(), cancelled.bookingId(), StudentId.of("cat"));
        assertThat(result).isInstanceOf(Cancelled.class);
        assertThat(((Cancelled) result).late()).as("a hold that never became a booking is never late").isFalse();
        assertThat(storedBooking(cancelled).status()).isEqualTo(BookingStatus.CANCELLED);
        assertThat(storedBooking(cancelled).credits()).isZero();
        assertThat(lateCancels).isEmpty();

        testClock().set(expires.heldUntil());
        engine.sweepExpired(testTenant(), 100);
        assertThat(storedBooking(expires).status()).isEqualTo(BookingStatus.EXPIRED);
        // the same credit back either way
        assertThat(List.of(balanceOf("pc", "cat"), balanceOf("pe", "eli"))).containsExactly(1, 1);
        assertThat(reasonsOf("pc")).containsExactly(Reason.GRANT, Reason.DRAW, Reason.REFUND);
        assertThat(reasonsOf("pe")).containsExactly(Reason.GRANT, Reason.DRAW, Reason.REFUND);
    }

    @Test
    default void aPolicyThatRefusesLateCancelsLetsAnUnconfirmedHoldGoAndChargesNothingForIt() {
        BookingEngine engine = rulesEngine(BookingRules.defaults()
                .withCancellation(CancellationPolicy.refuseWithin(Duration.ofHours(2)))
                .withCreditsDrawn(CreditPolicy.AT_CHECK_IN), BookingListener.NONE);
        grantOne(engine, "pf", "fin");
        Slot slot = paidLesson(engine, "strict", hours(0), 5);
        testClock().set(slot.time().start().minus(Duration.ofMinutes(30)));
        Booking hold = heldBooking(engine.hold(testTenant(), request(slot, "fin")));
        CancelResult result = engine.cancel(testTenant(), hold.bookingId(), StudentId.of("fin"));
        assertThat(result).isInstanceOf(Cancelled.class);
        assertThat(((Cancelled) result).late()).isFalse();
        assertThat(storedBooking(hold).status()).isEqualTo(BookingStatus.CANCELLED);
        assertThat(balanceOf("pf", "fin")).as("no forfeit for a hold").isEqualTo(1);
        assertThat(reasonsOf("pf")).containsExactly(Reason.GRANT);
        assertThat(testStore().availability(testTenant(), slot.slotId(), testClock().instant()).orElseThrow()
                .remaining()).isEqualTo(5);
    }
}
