package org.slotbook.core.tck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.DayOfWeek;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalTime;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.slotbook.core.AlreadyCancelled;
import org.slotbook.core.Attendance;
import org.slotbook.core.Booking;
import org.slotbook.core.BookingEngine;
import org.slotbook.core.BookingListener;
import org.slotbook.core.BookingRules;
import org.slotbook.core.BookingStatus;
import org.slotbook.core.CancelResult;
import org.slotbook.core.CancellationPolicy;
import org.slotbook.core.Cancelled;
import org.slotbook.core.CheckInClosed;
import org.slotbook.core.CheckInNotOpen;
import org.slotbook.core.CheckedIn;
import org.slotbook.core.CoachId;
import org.slotbook.core.Confirmed;
import org.slotbook.core.CreditEntry;
import org.slotbook.core.CreditEntry.Reason;
import org.slotbook.core.CreditPolicy;
import org.slotbook.core.Full;
import org.slotbook.core.Held;
import org.slotbook.core.HoldRequest;
import org.slotbook.core.HoldResult;
import org.slotbook.core.InsufficientCredits;
import org.slotbook.core.LessonPackage;
import org.slotbook.core.NotConfirmed;
import org.slotbook.core.NotFound;
import org.slotbook.core.PackageGrant;
import org.slotbook.core.PackageId;
import org.slotbook.core.RequestId;
import org.slotbook.core.ResourceKind;
import org.slotbook.core.RoomId;
import org.slotbook.core.ScheduleResult;
import org.slotbook.core.Scheduled;
import org.slotbook.core.SeriesBooking;
import org.slotbook.core.SeriesCancelled;
import org.slotbook.core.SeriesId;
import org.slotbook.core.SeriesMode;
import org.slotbook.core.SeriesResult;
import org.slotbook.core.SeriesSpec;
import org.slotbook.core.Slot;
import org.slotbook.core.SlotId;
import org.slotbook.core.SlotSpec;
import org.slotbook.core.SlotStatus;
import org.slotbook.core.StudentId;
import org.slotbook.core.TenantId;
import org.slotbook.core.TimeRange;
import org.slotbook.core.TooLateToCancel;
import org.slotbook.core.WaitlistEntry;
import org.slotbook.core.Waitlisted;
import org.slotbook.core.spi.BookingStore;

/**
 * Lesson packages, attendance and weekly series, end to end, over one backend combination: a
 * section each. Mixed into {@link BookingEngineContract}, so every backend and gate combination runs
 * them. Balances, journals, bookings and slots are read back from the store afterwards; answers alone
 * prove nothing.
 */
public interface LessonsContract {

    BookingEngine rulesEngine(BookingRules rules, BookingListener listener);

    MutableClock testClock();

    TenantId testTenant();

    Instant testBase();

    BookingStore testStore();

    int testRaceThreads();

    // ---------------------------------------------------------------- helpers

    private TimeRange hour(int startHours) {
        return TimeRange.of(testBase().plus(Duration.ofHours(startHours)), Duration.ofMinutes(60));
    }

    private Slot lesson(BookingEngine engine, String slot, TimeRange time, int capacity, int cost) {
        ScheduleResult result = engine.schedule(testTenant(), new SlotSpec(SlotId.of(slot), CoachId.of("coach-" + slot),
                RoomId.of("room-" + slot), time, capacity).withCost(cost));
        assertThat(result).as("schedule %s", slot).isInstanceOf(Scheduled.class);
        return ((Scheduled) result).slot();
    }

    private PackageGrant grant(String pkg, String student, int credits, Duration validFor) {
        Instant from = testClock().instant().minus(Duration.ofDays(1));
        return PackageGrant.of(PackageId.of(pkg), StudentId.of(student), credits, from, testBase().plus(validFor));
    }

    private static HoldRequest req(Slot slot, String student) {
        return HoldRequest.of(RequestId.random(), slot.slotId(), StudentId.of(student));
    }

    private static Booking booked(HoldResult result) {
        assertThat(result).isInstanceOf(Held.class);
        return ((Held) result).booking();
    }

    private LessonPackage pkg(TenantId tenant, String id, String student) {
        return testStore().packages(tenant, StudentId.of(student), 0, 1000).stream()
                .filter(p -> p.packageId().value().equals(id)).findFirst().orElseThrow();
    }

    private List<CreditEntry> journal(TenantId tenant, String id) {
        return testStore().creditJournal(tenant, PackageId.of(id), 0, 1000);
    }

    /** The package's balance as stored, after checking that its journal sums to it. */
    private int balance(String id, String student) {
        LessonPackage p = pkg(testTenant(), id, student);
        int sum = journal(testTenant(), id).stream().mapToInt(CreditEntry::delta).sum();
        assertThat(sum).as("journal of %s sums to its remaining credits", id).isEqualTo(p.remaining());
        assertThat(p.remaining()).isBetween(0, p.credits());
        return p.remaining();
    }

    private long entries(String id, Reason reason) {
        return journal(testTenant(), id).stream().filter(e -> e.reason() == reason).count();
    }

    private Booking stored(Booking b) {
        return testStore().findBooking(testTenant(), b.bookingId()).orElseThrow();
    }

    // ================================================================ packages

    @Test
    default void aHoldDrawsFromThePackageThatExpiresFirstAndATimelyCancelRefundsIt() {
        BookingEngine engine = rulesEngine(BookingRules.defaults(), BookingListener.NONE);
        engine.grantPackage(testTenant(), grant("late", "ann", 10, Duration.ofDays(60)));
        engine.grantPackage(testTenant(), grant("soon", "ann", 3, Duration.ofDays(30)));
        Slot slot = lesson(engine, "s1", hour(0), 5, 2);
        assertThat(slot.cost()).isEqualTo(2);

        Booking b = booked(engine.book(testTenant(), req(slot, "ann")));
        assertThat(stored(b).packageId()).isEqualTo(PackageId.of("soon"));
        assertThat(stored(b).credits()).isEqualTo(2);
        assertThat(balance("soon", "ann")).isEqualTo(1);
        assertThat(balance("late", "ann")).isEqualTo(10);
        assertThat(journal(testTenant(), "soon")).extracting(CreditEntry::reason, CreditEntry::delta, CreditEntry::bookingId)
                .containsExactly(org.assertj.core.groups.Tuple.tuple(Reason.GRANT, 3, null),
                        org.assertj.core.groups.Tuple.tuple(Reason.DRAW, -2, b.bookingId()));
        assertThat(engine.packages(testTenant(), StudentId.of("ann"), 0, 10)).extracting(p -> p.packageId().value())
                .containsExactly("soon", "late");

        // the next one no longer fits in "soon" (1 left): "late" pays
        Slot other = lesson(engine, "s2", hour(2), 5, 2);
        Booking c = booked(engine.book(testTenant(), req(other, "ann")));
        assertThat(stored(c).packageId()).isEqualTo(PackageId.of("late"));
        assertThat(balance("late", "ann")).isEqualTo(8);

        assertThat(engine.cancel(testTenant(), b.bookingId(), StudentId.of("ann"))).isInstanceOf(Cancelled.class);
        assertThat(balance("soon", "ann")).isEqualTo(3);
        assertThat(stored(b).credits()).isZero();
        assertThat(stored(b).packageId()).isNull();
        assertThat(entries("soon", Reason.REFUND)).isEqualTo(1);
    }

    @Test
    default void withoutAPackageThatCoversTheSlotAHoldIsRefusedAndWritesNothing() {
        BookingEngine engine = rulesEngine(BookingRules.defaults(), BookingListener.NONE);
        Slot slot = lesson(engine, "paid", hour(0), 5, 2);
        HoldRequest none = req(slot, "bob");
        assertThat(engine.hold(testTenant(), none)).isEqualTo(new InsufficientCredits(slot.slotId(), 2));

        engine.grantPackage(testTenant(), grant("one", "bob", 1, Duration.ofDays(30)));
        assertThat(engine.hold(testTenant(), req(slot, "bob"))).isEqualTo(new InsufficientCredits(slot.slotId(), 2));

        // a package for yoga does not pay for an untyped slot nor for pilates
        engine.grantPackage(testTenant(), grant("yoga", "bob", 10, Duration.ofDays(29)).forClassTypes("yoga"));
        assertThat(engine.hold(testTenant(), req(slot, "bob"))).isInstanceOf(InsufficientCredits.class);
        ScheduleResult pilates = engine.schedule(testTenant(), new SlotSpec(SlotId.of("pilates"), CoachId.of("cp"),
                RoomId.of("rp"), hour(2), 5).withCost(2).withClassType("pilates"));
        Slot pilatesSlot = ((Scheduled) pilates).slot();
        assertThat(pilatesSlot.classType()).isEqualTo("pilates");
        assertThat(engine.hold(testTenant(), req(pilatesSlot, "bob"))).isInstanceOf(InsufficientCredits.class);
        ScheduleResult yoga = engine.schedule(testTenant(), new SlotSpec(SlotId.of("yoga"), CoachId.of("cy"),
                RoomId.of("ry"), hour(4), 5).withCost(1).withClassType("yoga"));
        Booking y = booked(engine.hold(testTenant(), req(((Scheduled) yoga).slot(), "bob")));
        assertThat(stored(y).packageId()).isEqualTo(PackageId.of("yoga"));

        // a package that has run out by the session's start does not pay for it
        Slot later = lesson(engine, "later", hour(24 * 40), 5, 1);
        assertThat(engine.hold(testTenant(), req(later, "bob"))).isInstanceOf(InsufficientCredits.class);

        assertThat(testStore().findByRequest(testTenant(), none.requestId())).isEmpty();
        assertThat(testStore().availability(testTenant(), slot.slotId(), testClock().instant()).orElseThrow()
                .remaining()).isEqualTo(5);
        assertThat(balance("one", "bob")).isEqualTo(1);
        assertThat(balance("yoga", "bob")).isEqualTo(9);
        assertThat(journal(testTenant(), "one")).extracting(CreditEntry::reason).containsExactly(Reason.GRANT);
    }

    @Test
    default void aFreeSlotNeedsNoPackage() {
        BookingEngine engine = rulesEngine(BookingRules.defaults(), BookingListener.NONE);
        Slot free = lesson(engine, "free", hour(0), 2, 0);
        Booking b = booked(engine.book(testTenant(), req(free, "cat")));
        assertThat(stored(b).credits()).isZero();
        assertThat(stored(b).packageId()).isNull();
    }

    @Test
    default void aLateCancelKeepsTheCreditsAndAnExpiredHoldRefundsThem() {
        BookingRules rules = BookingRules.defaults().withCancellation(CancellationPolicy.lateWithin(Duration.ofHours(2)));
        BookingEngine engine = rulesEngine(rules, BookingListener.NONE);
        engine.grantPackage(testTenant(), grant("p", "dan", 5, Duration.ofDays(30)));
        Slot slot = lesson(engine, "late", hour(0), 5, 1);
        Booking b = booked(engine.book(testTenant(), req(slot, "dan")));
        testClock().set(slot.time().start().minus(Duration.ofHours(1)));
        CancelResult late = engine.cancel(testTenant(), b.bookingId(), StudentId.of("dan"));
        assertThat(late).isInstanceOf(Cancelled.class);
        assertThat(((Cancelled) late).late()).isTrue();
        assertThat(balance("p", "dan")).as("a late cancel forfeits").isEqualTo(4);
        assertThat(entries("p", Reason.REFUND)).isZero();

        Slot next = lesson(engine, "next", hour(24), 5, 1);
        Booking h = booked(engine.hold(testTenant(), req(next, "dan")));
        assertThat(balance("p", "dan")).isEqualTo(3);
        testClock().set(h.heldUntil());
        engine.sweepExpired(testTenant(), 100);
        assertThat(stored(h).status()).isEqualTo(BookingStatus.EXPIRED);
        assertThat(balance("p", "dan")).as("an expired hold gives its credits back").isEqualTo(4);
    }

    @Test
    default void aStaffCancelAndACancelledSlotRefundEvenAfterTheCutoff() {
        BookingRules rules = BookingRules.defaults().withCancellation(CancellationPolicy.refuseWithin(Duration.ofHours(2)));
        BookingEngine engine = rulesEngine(rules, BookingListener.NONE);
        engine.grantPackage(testTenant(), grant("p", "eve", 5, Duration.ofDays(30)));
        Slot a = lesson(engine, "a", hour(0), 5, 1);
        Slot b = lesson(engine, "b", hour(2), 5, 1);
        Booking ba = booked(engine.book(testTenant(), req(a, "eve")));
        Booking bb = booked(engine.book(testTenant(), req(b, "eve")));
        assertThat(balance("p", "eve")).isEqualTo(3);
        testClock().set(a.time().start().minus(Duration.ofMinutes(30)));
        assertThat(engine.cancel(testTenant(), ba.bookingId(), StudentId.of("eve"))).isInstanceOf(TooLateToCancel.class);
        assertThat(balance("p", "eve")).isEqualTo(3);
        assertThat(engine.cancelByStaff(testTenant(), ba.bookingId())).isInstanceOf(Cancelled.class);
        assertThat(balance("p", "eve")).isEqualTo(4);
        engine.cancelSlot(testTenant(), b.slotId());
        assertThat(stored(bb).status()).isEqualTo(BookingStatus.CANCELLED);
        assertThat(balance("p", "eve")).isEqualTo(5);
        assertThat(entries("p", Reason.REFUND)).isEqualTo(2);
    }

    @Test
    default void retriedHoldsConfirmsAndCancelsMoveNoCreditTwice() {
        BookingEngine engine = rulesEngine(BookingRules.defaults(), BookingListener.NONE);
        engine.grantPackage(testTenant(), grant("p", "fay", 5, Duration.ofDays(30)));
        assertThat(engine.grantPackage(testTenant(), grant("p", "fay", 5, Duration.ofDays(30))).remaining())
                .as("granting again answers the stored package").isEqualTo(5);
        Slot slot = lesson(engine, "r", hour(0), 5, 2);
        HoldRequest request = req(slot, "fay");
        Booking b = booked(engine.hold(testTenant(), request));
        assertThat(engine.hold(testTenant(), request)).isEqualTo(new Held(stored(b), true));
        assertThat(engine.confirm(testTenant(), b.bookingId(), StudentId.of("fay"))).isInstanceOf(Confirmed.class);
        assertThat(engine.confirm(testTenant(), b.bookingId(), StudentId.of("fay"))).isInstanceOf(Confirmed.class);
        assertThat(balance("p", "fay")).isEqualTo(3);
        assertThat(engine.cancel(testTenant(), b.bookingId(), StudentId.of("fay"))).isInstanceOf(Cancelled.class);
        assertThat(engine.cancel(testTenant(), b.bookingId(), StudentId.of("fay"))).isInstanceOf(AlreadyCancelled.class);
        assertThat(engine.cancelByStaff(testTenant(), b.bookingId())).isInstanceOf(AlreadyCancelled.class);
        assertThat(balance("p", "fay")).isEqualTo(5);
        assertThat(journal(testTenant(), "p")).extracting(CreditEntry::reason)
                .containsExactly(Reason.GRANT, Reason.DRAW, Reason.REFUND);
        assertThat(engine.creditJournal(testTenant(), PackageId.of("p"), 1, 1)).extracting(CreditEntry::reason)
                .containsExactly(Reason.DRAW);
    }

    @Test
    default void grantingRefusesBadInputAndAnIdWithOtherTerms() {
        BookingEngine engine = rulesEngine(BookingRules.defaults(), BookingListener.NONE);
        Instant from = testClock().instant();
        assertThatThrownBy(() -> PackageGrant.of(PackageId.of("x"), StudentId.of("s"), 0, from, from.plusSeconds(60)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("credits");
        assertThatThrownBy(() -> PackageGrant.of(PackageId.of("x"), StudentId.of("s"), 1, from, from))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("validFrom");
        assertThatThrownBy(() -> PackageGrant.of(PackageId.of("x"), StudentId.of("s"), 1, from, from.plusSeconds(9))
                .forClassTypes("a,b")).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("classType");
        engine.grantPackage(testTenant(), grant("p", "gus", 5, Duration.ofDays(30)));
        assertThatThrownBy(() -> engine.grantPackage(testTenant(), grant("p", "gus", 6, Duration.ofDays(30))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("packageId 'p'")
                .hasMessageNotContaining("5 credits");
        assertThatThrownBy(() -> engine.grantPackage(testTenant(), grant("p", "other", 5, Duration.ofDays(30))))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(balance("p", "gus")).isEqualTo(5);
        assertThat(testStore().packages(testTenant(), StudentId.of("other"), 0, 10)).isEmpty();
    }

    @Test
    default void aPackageOfOneTenantNeverPaysInAnother() {
        BookingEngine engine = rulesEngine(BookingRules.defaults(), BookingListener.NONE);
        TenantId other = TenantId.of(testTenant().value() + "-other");
        engine.grantPackage(testTenant(), grant("p", "hal", 5, Duration.ofDays(30)));
        ScheduleResult scheduled = engine.schedule(other, new SlotSpec(SlotId.of("x"), CoachId.of("c"), RoomId.of("r"),
                hour(0), 5).withCost(1));
        Slot slot = ((Scheduled) scheduled).slot();
        assertThat(engine.hold(other, req(slot, "hal"))).isEqualTo(new InsufficientCredits(slot.slotId(), 1));
        assertThat(testStore().packages(other, StudentId.of("hal"), 0, 10)).isEmpty();
        assertThat(testStore().creditJournal(other, PackageId.of("p"), 0, 10)).isEmpty();
        assertThat(balance("p", "hal")).isEqualTo(5);
        // the same package id in the other tenant is another package
        engine.grantPackage(other, PackageGrant.of(PackageId.of("p"), StudentId.of("hal"), 1,
                testClock().instant().minus(Duration.ofDays(1)), testBase().plus(Duration.ofDays(30))));
        booked(engine.hold(other, req(slot, "hal")));
        assertThat(pkg(other, "p", "hal").remaining()).isZero();
        assertThat(balance("p", "hal")).isEqualTo(5);
    }

    @Test
    default void fiveCreditsPayForExactlyFiveOfFiftyConcurrentHoldsAndDoubleCancelsRefundExactlyFive() {
        BookingEngine engine = rulesEngine(BookingRules.defaults(), BookingListener.NONE);
        engine.grantPackage(testTenant(), grant("p5", "ivy", 5, Duration.ofDays(30)));
        int n = 50;
        List<Slot> slots = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            slots.add(lesson(engine, "race-" + i, hour(2 * i), 3, 1));
        }
        List<HoldResult> results = Concurrent.run(n, i -> engine.book(testTenant(), req(slots.get(i), "ivy")));
        assertThat(results).filteredOn(r -> r instanceof Held).hasSize(5);
        assertThat(results).filteredOn(r -> !(r instanceof Held)).allMatch(r -> r instanceof InsufficientCredits);

        List<Booking> live = new ArrayList<>();
        for (Slot s : slots) {
            live.addAll(testStore().liveSlot(testTenant(), s.slotId(), testClock().instant()).orElseThrow().live());
        }
        assertThat(live).as("bookings read back from the store").hasSize(5)
                .allMatch(b -> b.credits() == 1 && PackageId.of("p5").equals(b.packageId()));
        assertThat(balance("p5", "ivy")).isZero();
        assertThat(entries("p5", Reason.DRAW)).isEqualTo(5);

        List<CancelResult> cancels = Concurrent.run(2 * live.size(), i ->
                engine.cancel(testTenant(), live.get(i % live.size()).bookingId(), StudentId.of("ivy")));
        assertThat(cancels).filteredOn(r -> r instanceof Cancelled).hasSize(5);
        assertThat(balance("p5", "ivy")).isEqualTo(5);
        assertThat(entries("p5", Reason.REFUND)).isEqualTo(5);
        assertThat(journal(testTenant(), "p5").stream().mapToInt(CreditEntry::delta).sum()).isEqualTo(5);
    }

    @Test
    default void aWaiterWhoCanNoLongerPayIsSkippedAndOneWhoCanIsPromotedAndPays() {
        List<WaitlistEntry> skipped = new CopyOnWriteArrayList<>();
        BookingEngine engine = rulesEngine(BookingRules.defaults(), new BookingListener() {
            @Override
            public void waitlistSkipped(WaitlistEntry entry) {
                skipped.add(entry);
            }
        });
        engine.grantPackage(testTenant(), grant("pa", "ada", 5, Duration.ofDays(30)));
        engine.grantPackage(testTenant(), grant("pb", "ben", 1, Duration.ofDays(30)));
        engine.grantPackage(testTenant(), grant("pc", "cyd", 1, Duration.ofDays(30)));
        Slot slot = lesson(engine, "w", hour(0), 1, 1);
        Booking a = booked(engine.book(testTenant(), req(slot, "ada")));
        assertThat(engine.hold(testTenant(), req(slot, "nobody").orWaitlist()))
                .as("joining the list needs a package that can pay").isInstanceOf(InsufficientCredits.class);
        HoldRequest benWaits = req(slot, "ben").orWaitlist();
        HoldRequest cydWaits = req(slot, "cyd").orWaitlist();
        assertThat(engine.hold(testTenant(), benWaits)).isInstanceOf(Waitlisted.class);
        assertThat(engine.hold(testTenant(), cydWaits)).isInstanceOf(Waitlisted.class);
        // ben spends his only credit elsewhere
        Slot elsewhere = lesson(engine, "e", hour(3), 1, 1);
        booked(engine.book(testTenant(), req(elsewhere, "ben")));

        engine.cancel(testTenant(), a.bookingId(), StudentId.of("ada"));
        assertThat(testStore().findWaiter(testTenant(), benWaits.requestId()).orElseThrow().reason())
                .isEqualTo(WaitlistEntry.SkipReason.NO_CREDITS);
        assertThat(skipped).extracting(WaitlistEntry::studentId).containsExactly(StudentId.of("ben"));
        Booking promoted = testStore().findByRequest(testTenant(), cydWaits.requestId()).orElseThrow();
        assertThat(promoted.status()).isEqualTo(BookingStatus.HELD);
        assertThat(promoted.packageId()).isEqualTo(PackageId.of("pc"));
        assertThat(balance("pc", "cyd")).isZero();
        assertThat(balance("pa", "ada")).isEqualTo(5);
    }

    // ================================================================ attendance

    @Test
    default void checkInOpensBeforeTheStartClosesAfterTheEndAndIsIdempotent() {
        List<Booking> heard = new CopyOnWriteArrayList<>();
        BookingEngine engine = rulesEngine(BookingRules.defaults().withAttendance(Duration.ofMinutes(30),
                Duration.ofMinutes(15)), new BookingListener() {
                    @Override
                    public void checkedIn(Booking booking) {
                        heard.add(booking);
                    }
                });
        Slot slot = lesson(engine, "ci", hour(0), 5, 0);
        Booking b = booked(engine.book(testTenant(), req(slot, "joe")));
        Booking staffs = booked(engine.book(testTenant(), req(slot, "kim")));
        Booking held = booked(engine.hold(testTenant(), req(slot, "lea")));
        Instant opens = slot.time().start().minus(Duration.ofMinutes(30));
        assertThat(engine.checkIn(testTenant(), b.bookingId(), StudentId.of("joe")))
                .isEqualTo(new CheckInNotOpen(b.bookingId(), opens));
        testClock().set(opens);
        assertThat(engine.checkIn(testTenant(), b.bookingId(), StudentId.of("kim"))).isInstanceOf(NotFound.class);
        assertThat(engine.checkIn(testTenant(), held.bookingId(), StudentId.of("lea"))).isInstanceOf(NotConfirmed.class);
        CheckedIn first = (CheckedIn) engine.checkIn(testTenant(), b.bookingId(), StudentId.of("joe"));
        assertThat(first.replayed()).isFalse();
        assertThat(stored(b).attendance()).isEqualTo(Attendance.CHECKED_IN);
        assertThat(engine.checkIn(testTenant(), b.bookingId(), StudentId.of("joe")))
                .isEqualTo(new CheckedIn(stored(b), true));
        assertThat(heard).extracting(Booking::bookingId).containsExactly(b.bookingId());

        Instant closes = slot.time().end().plus(Duration.ofMinutes(15));
        testClock().set(closes.minusMillis(1));
        assertThat(engine.checkInByStaff(testTenant(), staffs.bookingId())).isInstanceOf(CheckedIn.class);
        assertThat(stored(staffs).attendance()).isEqualTo(Attendance.CHECKED_IN);
        Booking tooLate = booked(engine.book(testTenant(), req(lesson(engine, "ci2", hour(3), 5, 0), "joe")));
        testClock().set(testBase().plus(Duration.ofHours(4)).plus(Duration.ofMinutes(15)));
        assertThat(engine.checkIn(testTenant(), tooLate.bookingId(), StudentId.of("joe")))
                .isEqualTo(new CheckInClosed(tooLate.bookingId(), testBase().plus(Duration.ofHours(4))
                        .plus(Duration.ofMinutes(15))));
        assertThat(stored(tooLate).attendance()).isEqualTo(Attendance.NONE);
    }

    @Test
    default void theSweepMarksEachNoShowOnceAndAStudentCannotCancelAnAttendedBooking() {
        List<Booking> noShows = new CopyOnWriteArrayList<>();
        BookingEngine engine = rulesEngine(BookingRules.defaults().withAttendance(Duration.ofMinutes(30),
                Duration.ZERO), new BookingListener() {
                    @Override
                    public void noShow(Booking booking) {
                        noShows.add(booking);
                    }
                });
        engine.grantPackage(testTenant(), grant("p", "mia", 5, Duration.ofDays(30)));
        engine.grantPackage(testTenant(), grant("pn", "ned", 5, Duration.ofDays(30)));
        Slot slot = lesson(engine, "ns", hour(0), 5, 1);
        Booking came = booked(engine.book(testTenant(), req(slot, "ned")));
        Booking absent = booked(engine.book(testTenant(), req(slot, "mia")));
        testClock().set(slot.time().start());
        engine.checkIn(testTenant(), came.bookingId(), StudentId.of("ned"));
        assertThat(engine.cancel(testTenant(), came.bookingId(), StudentId.of("ned")))
                .isInstanceOf(TooLateToCancel.class);
        assertThat(stored(came).status()).isEqualTo(BookingStatus.CONFIRMED);

        testClock().set(slot.time().end().minusMillis(1));
        engine.sweepExpired(testTenant(), 100);
        assertThat(stored(absent).attendance()).as("not before the window closed").isEqualTo(Attendance.NONE);
        testClock().set(slot.time().end());
        List<Integer> swept = Concurrent.run(4, i -> engine.sweepExpired(testTenant(), 100));
        assertThat(swept.stream().mapToInt(Integer::intValue).sum()).isEqualTo(1);
        assertThat(stored(absent).attendance()).isEqualTo(Attendance.NO_SHOW);
        assertThat(stored(came).attendance()).isEqualTo(Attendance.CHECKED_IN);
        assertThat(noShows).extracting(Booking::bookingId).containsExactly(absent.bookingId());
        assertThat(balance("p", "mia")).as("a no-show keeps the credits drawn at booking").isEqualTo(4);
        assertThat(engine.checkIn(testTenant(), absent.bookingId(), StudentId.of("mia")))
                .isInstanceOf(CheckInClosed.class);
        assertThat(engine.sweepExpired(testTenant(), 100)).isZero();
    }

    @Test
    default void withoutNoShowMarkingTheSweepLeavesAttendanceAlone() {
        BookingEngine engine = rulesEngine(BookingRules.defaults(), BookingListener.NONE);
        Slot slot = lesson(engine, "quiet", hour(0), 5, 0);
        Booking b = booked(engine.book(testTenant(), req(slot, "ola")));
        testClock().set(slot.time().end().plus(Duration.ofHours(1)));
        assertThat(engine.sweepExpired(testTenant(), 100)).isZero();
        assertThat(stored(b).attendance()).isEqualTo(Attendance.NONE);
    }

    @Test
    default void creditsDrawnAtCheckInAndForfeitedByALateCancelOrANoShow() {
        BookingRules rules = BookingRules.defaults().withCreditsDrawn(CreditPolicy.AT_CHECK_IN)
                .withAttendance(Duration.ofMinutes(30), Duration.ZERO)
                .withCancellation(CancellationPolicy.lateWithin(Duration.ofHours(2)));
        BookingEngine engine = rulesEngine(rules, BookingListener.NONE);
        engine.grantPackage(testTenant(), grant("p", "pat", 3, Duration.ofDays(30)));
        Slot a = lesson(engine, "a", hour(0), 5, 1);
        Slot b = lesson(engine, "b", hour(1), 5, 1);
        Slot c = lesson(engine, "c", hour(3), 5, 1);
        Slot d = lesson(engine, "d", hour(5), 5, 1);
        Slot e = lesson(engine, "e", hour(30), 5, 1);
        Booking ba = booked(engine.book(testTenant(), req(a, "pat")));
        Booking bb = booked(engine.book(testTenant(), req(b, "pat")));
        Booking bc = booked(engine.book(testTenant(), req(c, "pat")));
        Booking bd = booked(engine.book(testTenant(), req(d, "pat")));
        Booking be = booked(engine.book(testTenant(), req(e, "pat")));
        assertThat(balance("p", "pat")).as("nothing drawn at booking").isEqualTo(3);
        assertThat(stored(ba).credits()).isZero();

        assertThat(engine.cancel(testTenant(), be.bookingId(), StudentId.of("pat"))).isInstanceOf(Cancelled.class);
        assertThat(balance("p", "pat")).as("a timely cancel costs nothing").isEqualTo(3);

        testClock().set(a.time().start());
        assertThat(engine.checkIn(testTenant(), ba.bookingId(), StudentId.of("pat"))).isInstanceOf(CheckedIn.class);
        assertThat(balance("p", "pat")).isEqualTo(2);
        assertThat(stored(ba).credits()).isEqualTo(1);
        assertThat(engine.checkIn(testTenant(), ba.bookingId(), StudentId.of("pat"))).isInstanceOf(CheckedIn.class);
        assertThat(balance("p", "pat")).as("a repeated check-in draws nothing").isEqualTo(2);

        // b ([1h, 2h)) ends now, c ([3h, 4h)) is within its 2-hour cutoff
        testClock().set(b.time().end());
        CancelResult late = engine.cancel(testTenant(), bc.bookingId(), StudentId.of("pat"));
        assertThat(((Cancelled) late).late()).isTrue();
        assertThat(balance("p", "pat")).as("a late cancel forfeits").isEqualTo(1);
        assertThat(entries("p", Reason.FORFEIT)).isEqualTo(1);

        engine.sweepExpired(testTenant(), 100);
        assertThat(stored(ba).attendance()).isEqualTo(Attendance.CHECKED_IN);
        assertThat(stored(bb).attendance()).isEqualTo(Attendance.NO_SHOW);
        assertThat(balance("p", "pat")).as("a no-show forfeits").isZero();
        assertThat(entries("p", Reason.FORFEIT)).isEqualTo(2);

        testClock().set(d.time().start());
        assertThat(engine.checkIn(testTenant(), bd.bookingId(), StudentId.of("pat")))
                .isEqualTo(new InsufficientCredits(d.slotId(), 1));
        assertThat(stored(bd).attendance()).isEqualTo(Attendance.NONE);
        assertThat(balance("p", "pat")).isZero();
    }

    // ================================================================ weekly series

    private SeriesSpec evenings(String id, String coach, String room, ZoneId zone, LocalDate first, int weeks) {
        return SeriesSpec.weekly(SeriesId.of(id), CoachId.of(coach), RoomId.of(room), 3)
                .on(DayOfWeek.TUESDAY, DayOfWeek.THURSDAY)
                .at(LocalTime.of(18, 0), Duration.ofHours(1), zone)
                .from(first).forWeeks(weeks);
    }

    /** A Monday about twelve weeks after the test clock, so that the series is in the future. */
    private LocalDate aMonday() {
        LocalDate d = testClock().instant().atZone(ZoneId.of("UTC")).toLocalDate().plusWeeks(12);
        return d.with(java.time.temporal.TemporalAdjusters.previousOrSame(DayOfWeek.MONDAY));
    }

    @Test
    default void aSeriesKeepsItsWallClockTimeAcrossDaylightSavingInTwoZones() {
        BookingEngine engine = rulesEngine(BookingRules.defaults(), BookingListener.NONE);
        for (String zoneName : List.of("Europe/Berlin", "America/New_York")) {
            ZoneId zone = ZoneId.of(zoneName);
            // the spring change of 2027: 14 March in New York, 28 March in Berlin
            LocalDate first = LocalDate.of(2027, 3, 1);
            SeriesResult result = engine.scheduleSeries(testTenant(), evenings("dst-" + zone.getId().replace('/', '-'),
                    "coach-" + zoneName, "room-" + zoneName, zone, first, 6), SeriesMode.ALL_OR_NOTHING);
            assertThat(result.complete()).isTrue();
            assertThat(result.occurrences()).hasSize(12);
            List<Slot> stored = testStore().seriesSlots(testTenant(), result.seriesId(), Instant.EPOCH, 100);
            assertThat(stored).hasSize(12);
            Set<Integer> offsets = new java.util.HashSet<>();
            for (Slot s : stored) {
                ZonedDateTime local = s.time().start().atZone(zone);
                assertThat(local.toLocalTime()).as("%s in %s", s.slotId(), zone).isEqualTo(LocalTime.of(18, 0));
                assertThat(s.slotId()).isEqualTo(result.seriesId().occurrence(local.toLocalDate()));
                assertThat(s.seriesId()).isEqualTo(result.seriesId());
                offsets.add(local.getOffset().getTotalSeconds());
            }
            assertThat(offsets).as("the series crosses a daylight-saving change in %s", zone).hasSize(2);
        }
    }

    @Test
    default void allOrNothingSchedulesNothingWhenOneOccurrenceConflictsAndBestEffortTheRest() {
        BookingEngine engine = rulesEngine(BookingRules.defaults(), BookingListener.NONE);
        ZoneId zone = ZoneId.of("Asia/Shanghai");
        LocalDate monday = aMonday();
        Instant thursday = ZonedDateTime.of(monday.plusDays(10), LocalTime.of(18, 30), zone).toInstant();
        ScheduleResult oneOff = engine.schedule(testTenant(), new SlotSpec(SlotId.of("one-off"), CoachId.of("coach"),
                RoomId.of("other-room"), TimeRange.of(thursday, Duration.ofMinutes(45)), 4));
        assertThat(oneOff).isInstanceOf(Scheduled.class);

        SeriesSpec spec = evenings("eve", "coach", "room", zone, monday, 4);
        SeriesResult refused = engine.scheduleSeries(testTenant(), spec, SeriesMode.ALL_OR_NOTHING);
        assertThat(refused.scheduled()).isZero();
        assertThat(refused.occurrences()).hasSize(8);
        assertThat(refused.occurrences()).filteredOn(o -> o.status() == SeriesResult.Occurrence.Status.CONFLICT)
                .singleElement().satisfies(o -> {
                    assertThat(o.slot().slotId()).isEqualTo(SeriesId.of("eve").occurrence(monday.plusDays(10)));
                    assertThat(o.conflicts()).anySatisfy(c -> {
                        assertThat(c.slotId()).isEqualTo(SlotId.of("one-off"));
                        assertThat(c.resource().kind()).isEqualTo(ResourceKind.COACH);
                    });
                });
        assertThat(refused.occurrences()).filteredOn(o -> o.status() == SeriesResult.Occurrence.Status.ROLLED_BACK)
                .hasSize(7);
        assertThat(testStore().seriesSlots(testTenant(), SeriesId.of("eve"), Instant.EPOCH, 100)).isEmpty();

        SeriesResult partial = engine.scheduleSeries(testTenant(), spec, SeriesMode.BEST_EFFORT);
        assertThat(partial.scheduled()).isEqualTo(7);
        assertThat(testStore().seriesSlots(testTenant(), SeriesId.of("eve"), Instant.EPOCH, 100)).hasSize(7);

        SeriesResult again = engine.scheduleSeries(testTenant(), spec, SeriesMode.BEST_EFFORT);
        assertThat(again.occurrences()).extracting(SeriesResult.Occurrence::status)
                .containsExactlyElementsOf(partial.occurrences().stream().map(SeriesResult.Occurrence::status).toList());
        assertThat(testStore().seriesSlots(testTenant(), SeriesId.of("eve"), Instant.EPOCH, 100)).hasSize(7);
    }

    @Test
    default void aSeriesRespectsTheBufferOfItsCoachAndRoom() {
        BookingEngine engine = rulesEngine(BookingRules.defaults(), BookingListener.NONE);
        ZoneId zone = ZoneId.of("UTC");
        LocalDate monday = aMonday();
        Instant tuesday19 = ZonedDateTime.of(monday.plusDays(1), LocalTime.of(19, 10), zone).toInstant();
        engine.schedule(testTenant(), new SlotSpec(SlotId.of("after"), CoachId.of("c2"), RoomId.of("room-b"),
                TimeRange.of(tuesday19, Duration.ofMinutes(30)), 4));
        SeriesSpec spec = evenings("buf", "c1", "room-b", zone, monday, 1).withBuffer(Duration.ofMinutes(15));
        SeriesResult result = engine.scheduleSeries(testTenant(), spec, SeriesMode.BEST_EFFORT);
        assertThat(result.occurrences()).extracting(SeriesResult.Occurrence::status)
                .containsExactly(SeriesResult.Occurrence.Status.CONFLICT, SeriesResult.Occurrence.Status.SCHEDULED);
    }

    @Test
    default void aStudentBooksAWholeSeriesWithCreditsPerOccurrenceAndACancelledSeriesRefunds() {
        BookingEngine engine = rulesEngine(BookingRules.defaults(), BookingListener.NONE);
        ZoneId zone = ZoneId.of("Asia/Shanghai");
        LocalDate monday = aMonday();
        SeriesSpec spec = evenings("term", "coach", "room", zone, monday, 3).withCost(1);
        assertThat(engine.scheduleSeries(testTenant(), spec, SeriesMode.ALL_OR_NOTHING).complete()).isTrue();
        engine.grantPackage(testTenant(), PackageGrant.of(PackageId.of("p"), StudentId.of("quinn"), 10,
                testClock().instant(), testClock().instant().plus(Duration.ofDays(365))));
        // one occurrence is full
        SlotId second = SeriesId.of("term").occurrence(monday.plusDays(3));
        for (String s : List.of("x", "y", "z")) {
            engine.grantPackage(testTenant(), PackageGrant.of(PackageId.of("p-" + s), StudentId.of(s), 1,
                    testClock().instant(), testClock().instant().plus(Duration.ofDays(365))));
            booked(engine.book(testTenant(), HoldRequest.of(RequestId.random(), second, StudentId.of(s))));
        }

        RequestId all = RequestId.of("term-all");
        SeriesBooking refused = engine.bookSeries(testTenant(), all, SeriesId.of("term"), StudentId.of("quinn"),
                SeriesMode.ALL_OR_NOTHING);
        assertThat(refused.booked()).isZero();
        assertThat(refused.lines()).hasSize(6);
        assertThat(refused.lines()).filteredOn(l -> l.status() == SeriesBooking.Line.Status.REFUSED).singleElement()
                .satisfies(l -> {
                    assertThat(l.slotId()).isEqualTo(second);
                    assertThat(l.refusal()).isInstanceOf(Full.class);
                });
        assertThat(refused.lines()).filteredOn(l -> l.status() == SeriesBooking.Line.Status.ROLLED_BACK).hasSize(5);
        assertThat(balance("p", "quinn")).isEqualTo(10);
        assertThat(testStore().studentBookings(testTenant(), StudentId.of("quinn"), testClock().instant(), true, 0, 100))
                .isEmpty();

        RequestId some = RequestId.of("term-some");
        SeriesBooking partial = engine.bookSeries(testTenant(), some, SeriesId.of("term"), StudentId.of("quinn"),
                SeriesMode.BEST_EFFORT);
        assertThat(partial.booked()).isEqualTo(5);
        assertThat(balance("p", "quinn")).isEqualTo(5);
        assertThat(testStore().studentBookings(testTenant(), StudentId.of("quinn"), testClock().instant(), true, 0, 100))
                .hasSize(5).allMatch(s -> s.booking().status() == BookingStatus.CONFIRMED && s.booking().credits() == 1);
        SeriesBooking retried = engine.bookSeries(testTenant(), some, SeriesId.of("term"), StudentId.of("quinn"),
                SeriesMode.BEST_EFFORT);
        assertThat(retried.lines().stream().filter(l -> l.booking() != null).map(l -> l.booking().bookingId()).toList())
                .containsExactlyElementsOf(partial.lines().stream().filter(l -> l.booking() != null)
                        .map(l -> l.booking().bookingId()).toList());
        assertThat(balance("p", "quinn")).as("a retried series booking draws nothing").isEqualTo(5);

        // cancel the series from the second week on: 4 occurrences, each booked by quinn
        Instant from = ZonedDateTime.of(monday.plusWeeks(1), LocalTime.MIDNIGHT, zone).toInstant();
        SeriesCancelled cancelled = engine.cancelSeries(testTenant(), SeriesId.of("term"), from);
        assertThat(cancelled.slots()).hasSize(4).allMatch(s -> s.status() == SlotStatus.CANCELLED);
        assertThat(cancelled.bookings()).isEqualTo(4);
        assertThat(balance("p", "quinn")).isEqualTo(9);
        assertThat(testStore().seriesSlots(testTenant(), SeriesId.of("term"), Instant.EPOCH, 100)).hasSize(2);
        assertThat(engine.cancelSeries(testTenant(), SeriesId.of("term"), from).slots()).isEmpty();
        assertThat(balance("p", "quinn")).isEqualTo(9);
    }

    @Test
    default void seriesSpecsRefuseBadInput() {
        SeriesSpec.Days days = SeriesSpec.weekly(SeriesId.of("s"), CoachId.of("c"), RoomId.of("r"), 3);
        assertThatThrownBy(() -> days.on(DayOfWeek.MONDAY).at(LocalTime.NOON, Duration.ZERO, ZoneId.of("UTC")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("length");
        assertThatThrownBy(() -> days.on(DayOfWeek.MONDAY).at(LocalTime.NOON, Duration.ofHours(1), ZoneId.of("UTC"))
                .from(LocalDate.of(2027, 1, 1)).forWeeks(53))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("weeks");
        assertThatThrownBy(() -> days.on(DayOfWeek.MONDAY).at(LocalTime.NOON, Duration.ofHours(1), ZoneId.of("UTC"))
                .from(LocalDate.of(2027, 1, 1)).until(LocalDate.of(2026, 1, 1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("lastDay");
        assertThatThrownBy(() -> SeriesId.of("x".repeat(54))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("seriesId");
        assertThatThrownBy(() -> rulesEngine(BookingRules.defaults(), BookingListener.NONE).bookSeries(testTenant(),
                RequestId.of("r".repeat(54)), SeriesId.of("s"), StudentId.of("a"), SeriesMode.BEST_EFFORT))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("requestId");
    }
}
