package org.slotbook.core.tck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.slotbook.core.AlreadyCancelled;
import org.slotbook.core.Availability;
import org.slotbook.core.BookedSession;
import org.slotbook.core.Booking;
import org.slotbook.core.BookingClosed;
import org.slotbook.core.BookingEngine;
import org.slotbook.core.BookingListener;
import org.slotbook.core.BookingRules;
import org.slotbook.core.BookingStatus;
import org.slotbook.core.CancelResult;
import org.slotbook.core.CancellationPolicy;
import org.slotbook.core.Cancelled;
import org.slotbook.core.CoachId;
import org.slotbook.core.Confirmed;
import org.slotbook.core.Conflict;
import org.slotbook.core.Full;
import org.slotbook.core.Held;
import org.slotbook.core.HoldRequest;
import org.slotbook.core.HoldResult;
import org.slotbook.core.LeftWaitlist;
import org.slotbook.core.LimitReached;
import org.slotbook.core.NotFound;
import org.slotbook.core.NotOpenYet;
import org.slotbook.core.NotWaiting;
import org.slotbook.core.RequestId;
import org.slotbook.core.ResourceKind;
import org.slotbook.core.ResourceRef;
import org.slotbook.core.RoomId;
import org.slotbook.core.ScheduleResult;
import org.slotbook.core.Scheduled;
import org.slotbook.core.Slot;
import org.slotbook.core.SlotId;
import org.slotbook.core.SlotSpec;
import org.slotbook.core.StudentId;
import org.slotbook.core.TenantId;
import org.slotbook.core.TimeRange;
import org.slotbook.core.TooLateToCancel;
import org.slotbook.core.WaitlistEntry;
import org.slotbook.core.Waitlisted;
import org.slotbook.core.spi.BookingStore;

/**
 * The booking rules, end to end, over one backend combination: a section per rule (booking window,
 * cancellation policy, buffers, limits, waitlist, read calls and staff cancel). Mixed into
 * {@link BookingEngineContract}, so every backend and gate combination that runs the engine contract
 * runs these too. Verdicts are read back from the store (the database), not taken from answers.
 */
public interface BookingRulesContract {

    /** An engine over the suite's store and gate, on its test clock, with these rules. */
    BookingEngine rulesEngine(BookingRules rules, BookingListener listener);

    MutableClock testClock();

    TenantId testTenant();

    /** A whole hour one day after the test clock's start. */
    Instant testBase();

    BookingStore testStore();

    int testRaceThreads();

    private TimeRange range(int startMinutes, int lengthMinutes) {
        return TimeRange.of(testBase().plus(Duration.ofMinutes(startMinutes)), Duration.ofMinutes(lengthMinutes));
    }

    private SlotSpec spec(String slot, TimeRange time, int capacity) {
        return new SlotSpec(SlotId.of(slot), CoachId.of("coach-" + slot), RoomId.of("room-" + slot), time, capacity);
    }

    private Slot scheduled(BookingEngine engine, SlotSpec spec) {
        ScheduleResult result = engine.schedule(testTenant(), spec);
        assertThat(result).as("schedule %s", spec.slotId()).isInstanceOf(Scheduled.class);
        return ((Scheduled) result).slot();
    }

    private static HoldRequest req(Slot slot, String student) {
        return HoldRequest.of(RequestId.random(), slot.slotId(), StudentId.of(student));
    }

    private static Booking held(HoldResult result) {
        assertThat(result).isInstanceOf(Held.class);
        return ((Held) result).booking();
    }

    private Booking stored(RequestId request) {
        return testStore().findByRequest(testTenant(), request).orElseThrow();
    }

    private Availability ledger(Slot slot) {
        return testStore().availability(testTenant(), slot.slotId(), testClock().instant()).orElseThrow();
    }

    private List<Booking> live(Slot slot) {
        return testStore().liveSlot(testTenant(), slot.slotId(), testClock().instant()).orElseThrow().live();
    }

    private List<WaitlistEntry> waiting(Slot slot) {
        return testStore().waitlist(testTenant(), slot.slotId(), 0, 1000);
    }

    // ================================================================ booking window

    @Test
    default void aSaleOpensExactlyAtOpensAtAndStopsAtClosesAt() {
        BookingEngine engine = rulesEngine(BookingRules.defaults(), BookingListener.NONE);
        Instant opens = testClock().instant().plus(Duration.ofHours(1)).truncatedTo(ChronoUnit.SECONDS);
        Instant closes = testBase().minus(Duration.ofHours(2));
        Slot slot = scheduled(engine, spec("win", range(0, 60), 5).withBookingWindow(opens, closes));
        assertThat(slot.opensAt()).isEqualTo(opens);
        assertThat(slot.closesAt()).isEqualTo(closes);

        assertThat(engine.hold(testTenant(), req(slot, "early"))).isEqualTo(new NotOpenYet(slot.slotId(), opens));
        testClock().set(opens.minusMillis(1));
        HoldRequest oneMsEarly = req(slot, "a");
        assertThat(engine.hold(testTenant(), oneMsEarly)).isEqualTo(new NotOpenYet(slot.slotId(), opens));
        assertThat(ledger(slot).remaining()).as("nothing sold before opensAt").isEqualTo(5);
        assertThat(testStore().findByRequest(testTenant(), oneMsEarly.requestId())).isEmpty();

        testClock().set(opens);
        HoldRequest atOpen = req(slot, "a");
        assertThat(engine.book(testTenant(), atOpen)).isInstanceOf(Held.class);
        assertThat(stored(atOpen.requestId()).status()).isEqualTo(BookingStatus.CONFIRMED);

        testClock().set(closes.minusMillis(1));
        assertThat(engine.book(testTenant(), req(slot, "b"))).isInstanceOf(Held.class);
        testClock().set(closes);
        HoldRequest late = req(slot, "c");
        assertThat(engine.hold(testTenant(), late)).isEqualTo(new BookingClosed(slot.slotId(), closes));
        assertThat(live(slot)).extracting(b -> b.studentId().value()).containsExactlyInAnyOrder("a", "b");
        // a retry of a request that got in before the window closed still gets its answer
        assertThat(engine.book(testTenant(), atOpen)).isInstanceOf(Held.class);
    }

    @Test
    default void aWindowIsPartOfTheSpecAndIsValidated() {
        TimeRange time = range(0, 60);
        assertThatThrownBy(() -> spec("x", time, 1).withBookingWindow(time.end(), null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("opensAt");
        assertThatThrownBy(() -> spec("x", time, 1).withBookingWindow(null, time.end().plusSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("closesAt");
        BookingEngine engine = rulesEngine(BookingRules.defaults(), BookingListener.NONE);
        SlotSpec open = spec("respec", time, 2).opensAt(time.start().minus(Duration.ofDays(2)));
        scheduled(engine, open);
        assertThatThrownBy(() -> engine.schedule(testTenant(), open.opensAt(time.start().minus(Duration.ofDays(3)))))
                .as("the same slot id with another window").isInstanceOf(IllegalArgumentException.class);
        assertThat(engine.schedule(testTenant(), open)).isInstanceOf(Scheduled.class);
    }

    // ================================================================ cancellation policy

    @Test
    default void aCancelAfterTheCutoffIsRefusedButStaffMayStillCancel() {
        BookingRules rules = BookingRules.defaults().withCancellation(CancellationPolicy.refuseWithin(Duration.ofHours(12)));
        BookingEngine engine = rulesEngine(rules, BookingListener.NONE);
        Slot slot = scheduled(engine, spec("cut", range(0, 60), 3));
        Instant cutoff = slot.time().start().minus(Duration.ofHours(12));
        Booking early = held(engine.book(testTenant(), req(slot, "early")));
        Booking late = held(engine.book(testTenant(), req(slot, "late")));
        Booking staff = held(engine.book(testTenant(), req(slot, "staff")));

        testClock().set(cutoff.minusMillis(1));
        assertThat(engine.cancel(testTenant(), early.bookingId(), early.studentId()))
                .isEqualTo(new Cancelled(testStore().findBooking(testTenant(), early.bookingId()).orElseThrow(), false));

        testClock().set(cutoff);
        assertThat(engine.cancel(testTenant(), late.bookingId(), late.studentId()))
                .isEqualTo(new TooLateToCancel(late.bookingId(), cutoff));
        assertThat(testStore().findBooking(testTenant(), late.bookingId()).orElseThrow().status())
                .as("a refused cancel changes nothing").isEqualTo(BookingStatus.CONFIRMED);
        assertThat(ledger(slot).remaining()).isEqualTo(1);

        CancelResult byStaff = engine.cancelByStaff(testTenant(), staff.bookingId());
        assertThat(byStaff).isInstanceOf(Cancelled.class);
        assertThat(((Cancelled) byStaff).late()).as("after the cutoff, marked late").isTrue();
        assertThat(engine.cancelByStaff(testTenant(), staff.bookingId())).isInstanceOf(AlreadyCancelled.class);
        assertThat(ledger(slot).remaining()).as("the staff cancel gave the seat back").isEqualTo(2);
        assertThat(engine.cancelByStaff(TenantId.of("other-" + Fixtures.shortRandom()), late.bookingId()))
                .as("another tenant's staff").isEqualTo(new NotFound());
    }

    @Test
    default void aLateCancelIsAcceptedMarkedAndGivesTheSeatBack() {
        List<Booking> lateCancels = new CopyOnWriteArrayList<>();
        BookingRules rules = BookingRules.defaults().withCancellation(CancellationPolicy.lateWithin(Duration.ofHours(12)));
        BookingEngine engine = rulesEngine(rules, new BookingListener() {
            @Override
            public void cancelledLate(Booking booking) {
                lateCancels.add(booking);
            }
        });
        Slot slot = scheduled(engine, spec("late", range(0, 60), 1));
        Booking b = held(engine.book(testTenant(), req(slot, "s")));
        testClock().set(slot.time().start().minus(Duration.ofHours(1)));
        CancelResult result = engine.cancel(testTenant(), b.bookingId(), b.studentId());
        assertThat(result).isInstanceOf(Cancelled.class);
        assertThat(((Cancelled) result).late()).isTrue();
        assertThat(lateCancels).extracting(Booking::bookingId).containsExactly(b.bookingId());
        assertThat(ledger(slot).remaining()).as("the seat is back at once").isEqualTo(1);
        assertThat(engine.cancel(testTenant(), b.bookingId(), b.studentId())).isInstanceOf(AlreadyCancelled.class);
        assertThat(engine.book(testTenant(), req(slot, "next"))).isInstanceOf(Held.class);
    }

    @Test
    default void aSlotsOwnPolicyOverridesTheTenants() {
        BookingEngine engine = rulesEngine(BookingRules.defaults(), BookingListener.NONE);
        Slot strict = scheduled(engine, spec("strict", range(0, 60), 2)
                .withCancellation(CancellationPolicy.refuseWithin(Duration.ofHours(2))));
        Slot free = scheduled(engine, spec("free", range(120, 60), 2));
        assertThat(strict.cancellation()).isEqualTo(CancellationPolicy.refuseWithin(Duration.ofHours(2)));
        Booking a = held(engine.book(testTenant(), req(strict, "a")));
        Booking b = held(engine.book(testTenant(), req(free, "a")));
        testClock().set(strict.time().start().minus(Duration.ofMinutes(30)));
        assertThat(engine.cancel(testTenant(), a.bookingId(), a.studentId())).isInstanceOf(TooLateToCancel.class);
        assertThat(engine.cancel(testTenant(), b.bookingId(), b.studentId()))
                .isEqualTo(new Cancelled(testStore().findBooking(testTenant(), b.bookingId()).orElseThrow(), false));
    }

    @Test
    default void concurrentCancelsAfterTheCutoffAreRefusedOrCancelOnceMarkedLate() {
        BookingEngine refusing = rulesEngine(BookingRules.defaults()
                .withCancellation(CancellationPolicy.refuseWithin(Duration.ofHours(12))), BookingListener.NONE);
        BookingEngine charging = rulesEngine(BookingRules.defaults()
                .withCancellation(CancellationPolicy.lateWithin(Duration.ofHours(12))), BookingListener.NONE);
        Slot slot = scheduled(refusing, spec("cutrace", range(0, 60), 2));
        Booking kept = held(refusing.book(testTenant(), req(slot, "kept")));
        Booking late = held(refusing.book(testTenant(), req(slot, "late")));
        testClock().set(slot.time().start().minus(Duration.ofHours(1)));

        List<CancelResult> refused = Concurrent.run(10, i -> refusing.cancel(testTenant(), kept.bookingId(),
                kept.studentId()));
        assertThat(refused).allMatch(r -> r instanceof TooLateToCancel);
        assertThat(testStore().findBooking(testTenant(), kept.bookingId()).orElseThrow().status())
                .as("read back: every refused cancel changed nothing").isEqualTo(BookingStatus.CONFIRMED);

        List<CancelResult> results = Concurrent.run(10, i -> i % 2 == 0
                ? charging.cancel(testTenant(), late.bookingId(), late.studentId())
                : charging.cancelByStaff(testTenant(), late.bookingId()));
        assertThat(results.stream().filter(r -> r instanceof Cancelled c && c.late()).count()).isEqualTo(1);
        assertThat(results).allMatch(r -> r instanceof Cancelled || r instanceof AlreadyCancelled);
        assertThat(testStore().findBooking(testTenant(), late.bookingId()).orElseThrow().status())
                .isEqualTo(BookingStatus.CANCELLED);
        assertThat(ledger(slot).remaining()).as("read back: one seat given back, once").isEqualTo(1);
    }

    // ================================================================ buffers

    @Test
    default void concurrentSchedulingKeepsEveryRoomTurnover() {
        BookingEngine engine = rulesEngine(BookingRules.defaults(), BookingListener.NONE);
        RoomId room = RoomId.of("busy-room-" + Fixtures.shortRandom());
        Duration buffer = Duration.ofMinutes(15);
        List<ScheduleResult> results = Concurrent.run(12, i -> engine.schedule(testTenant(),
                new SlotSpec(SlotId.of("turn-" + i), CoachId.of("coach-" + i), room, range(i * 20, 30), 3)
                        .withBuffer(buffer)));
        List<Slot> stored = testStore().timetable(testTenant(), ResourceRef.of(room),
                TimeRange.of(testBase().minus(Duration.ofHours(1)), Duration.ofDays(1)), 0, 100);
        assertThat(stored).as("read back: the scheduled ones").hasSize(
                (int) results.stream().filter(r -> r instanceof Scheduled).count()).isNotEmpty();
        for (int a = 0; a < stored.size(); a++) {
            for (int b = a + 1; b < stored.size(); b++) {
                assertThat(stored.get(a).paddedTime().overlaps(stored.get(b).paddedTime()))
                        .as("%s and %s share the room's turnover", stored.get(a).slotId(), stored.get(b).slotId())
                        .isFalse();
            }
        }
    }

    @Test
    default void aRoomBufferKeepsTheNextSessionOutUntilTurnoverEnds() {
        BookingEngine engine = rulesEngine(BookingRules.defaults(), BookingListener.NONE);
        RoomId room = RoomId.of("studio-" + Fixtures.shortRandom());
        SlotSpec a = new SlotSpec(SlotId.of("a"), CoachId.of("c1"), room, range(0, 60), 5)
                .withBuffer(Duration.ofMinutes(15));
        scheduled(engine, a);
        ScheduleResult tooSoon = engine.schedule(testTenant(),
                new SlotSpec(SlotId.of("b"), CoachId.of("c2"), room, range(70, 60), 5));
        assertThat(tooSoon).isInstanceOf(Conflict.class);
        assertThat(((Conflict) tooSoon).conflicts()).extracting(c -> c.kind(), c -> c.slotId())
                .containsExactly(org.assertj.core.groups.Tuple.tuple(ResourceKind.ROOM, SlotId.of("a")));
        scheduled(engine, new SlotSpec(SlotId.of("b"), CoachId.of("c2"), room, range(75, 60), 5));
        // a session before "a" whose own buffer runs into it
        assertThat(engine.schedule(testTenant(), new SlotSpec(SlotId.of("c"), CoachId.of("c3"), room, range(-60, 50), 5)
                .withBuffer(Duration.ofMinutes(15)))).isInstanceOf(Conflict.class);
        scheduled(engine, new SlotSpec(SlotId.of("c"), CoachId.of("c3"), room, range(-60, 45), 5)
                .withBuffer(Duration.ofMinutes(15)));

        // the student is checked against the session itself: back to back is fine
        Slot other = scheduled(engine, spec("d", range(60, 30), 5));
        assertThat(engine.hold(testTenant(), HoldRequest.of(RequestId.random(), SlotId.of("a"), StudentId.of("s"))))
                .isInstanceOf(Held.class);
        assertThat(engine.hold(testTenant(), req(other, "s"))).isInstanceOf(Held.class);
    }

    @Test
    default void aBufferForStudentsTooKeepsTheirNextSessionOutUntilItEnds() {
        BookingEngine engine = rulesEngine(BookingRules.defaults(), BookingListener.NONE);
        Slot swim = scheduled(engine, spec("swim", range(0, 60), 5).withBuffer(Duration.ofMinutes(20), true));
        assertThat(swim.bufferStudents()).isTrue();
        assertThat(swim.studentTime()).isEqualTo(range(0, 80));
        Slot soon = scheduled(engine, spec("soon", range(70, 30), 5));
        Slot later = scheduled(engine, spec("later", range(80, 30), 5));
        Slot before = scheduled(engine, spec("before", range(-30, 30), 5));
        assertThat(engine.book(testTenant(), req(swim, "s"))).isInstanceOf(Held.class);
        HoldResult clash = engine.hold(testTenant(), req(soon, "s"));
        assertThat(clash).as("inside the student's turnover").isInstanceOf(Conflict.class);
        assertThat(((Conflict) clash).conflicts()).extracting(c -> c.kind(), c -> c.slotId())
                .containsExactly(org.assertj.core.groups.Tuple.tuple(ResourceKind.STUDENT, swim.slotId()));
        assertThat(engine.hold(testTenant(), req(later, "s"))).as("after the turnover").isInstanceOf(Held.class);
        assertThat(engine.hold(testTenant(), req(before, "s"))).as("the buffer is after the session only")
                .isInstanceOf(Held.class);
        assertThat(live(soon)).isEmpty();
        // the other way round: a student in "soon" first cannot take "swim", whose turnover overlaps
        assertThat(engine.book(testTenant(), req(soon, "t"))).isInstanceOf(Held.class);
        assertThat(engine.hold(testTenant(), req(swim, "t"))).isInstanceOf(Conflict.class);
    }

    @Test
    default void withoutABufferBackToBackSessionsBothSchedule() {
        BookingEngine engine = rulesEngine(BookingRules.defaults(), BookingListener.NONE);
        CoachId coach = CoachId.of("busy-" + Fixtures.shortRandom());
        scheduled(engine, new SlotSpec(SlotId.of("one"), coach, RoomId.of("r1"), range(0, 60), 1));
        scheduled(engine, new SlotSpec(SlotId.of("two"), coach, RoomId.of("r2"), range(60, 60), 1));
        assertThat(engine.schedule(testTenant(), new SlotSpec(SlotId.of("three"), coach, RoomId.of("r3"),
                range(119, 60), 1))).isInstanceOf(Conflict.class);
    }

    // ================================================================ limits

    @Test
    default void aStudentHasAtMostNUpcomingBookings() {
        BookingEngine engine = rulesEngine(BookingRules.defaults().withMaxUpcoming(2), BookingListener.NONE);
        List<Slot> slots = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            slots.add(scheduled(engine, spec("u" + i, range(i * 120, 60), 5)));
        }
        Booking first = held(engine.hold(testTenant(), req(slots.get(0), "s")));
        assertThat(engine.book(testTenant(), req(slots.get(1), "s"))).isInstanceOf(Held.class);
        HoldRequest third = req(slots.get(2), "s");
        assertThat(engine.hold(testTenant(), third)).isEqualTo(new LimitReached(LimitReached.Limit.UPCOMING, 2));
        assertThat(testStore().findByRequest(testTenant(), third.requestId())).isEmpty();
        assertThat(engine.hold(testTenant(), req(slots.get(2), "someone-else"))).isInstanceOf(Held.class);

        assertThat(engine.cancel(testTenant(), first.bookingId(), first.studentId())).isInstanceOf(Cancelled.class);
        assertThat(engine.hold(testTenant(), third)).as("a cancel makes room").isInstanceOf(Held.class);
        // an expired hold does not count
        testClock().advance(Duration.ofMinutes(11));
        assertThat(engine.hold(testTenant(), req(slots.get(0), "s"))).isInstanceOf(Held.class);
    }

    @Test
    default void aStudentHasAtMostMBookingsPerCalendarWeekInTheTenantsZone() {
        ZoneId shanghai = ZoneId.of("Asia/Shanghai");
        BookingEngine engine = rulesEngine(BookingRules.defaults().withMaxPerWeek(2, shanghai), BookingListener.NONE);
        // Monday 00:30 and Sunday 23:00 of the same Shanghai week, then Monday 00:30 of the next one
        ZonedDateTime monday = ZonedDateTime.ofInstant(testBase(), shanghai).plusWeeks(2)
                .with(java.time.temporal.TemporalAdjusters.previousOrSame(java.time.DayOfWeek.MONDAY))
                .truncatedTo(ChronoUnit.DAYS);
        Slot mon = scheduled(engine, spec("mon", TimeRange.of(monday.plusMinutes(30).toInstant(), Duration.ofMinutes(30)), 3));
        Slot sun = scheduled(engine, spec("sun", TimeRange.of(monday.plusDays(6).plusHours(23).toInstant(),
                Duration.ofMinutes(30)), 3));
        Slot wed = scheduled(engine, spec("wed", TimeRange.of(monday.plusDays(2).toInstant(), Duration.ofMinutes(30)), 3));
        Slot next = scheduled(engine, spec("next", TimeRange.of(monday.plusWeeks(1).plusMinutes(30).toInstant(),
                Duration.ofMinutes(30)), 3));
        assertThat(engine.book(testTenant(), req(mon, "s"))).isInstanceOf(Held.class);
        assertThat(engine.book(testTenant(), req(sun, "s"))).isInstanceOf(Held.class);
        assertThat(engine.book(testTenant(), req(wed, "s"))).isEqualTo(new LimitReached(LimitReached.Limit.WEEKLY, 2));
        assertThat(engine.book(testTenant(), req(next, "s"))).as("the next week").isInstanceOf(Held.class);
    }

    @Test
    default void twentyConcurrentHoldsOfOneStudentEndWithExactlyTheLimit() {
        int limit = 3;
        BookingEngine engine = rulesEngine(BookingRules.defaults().withMaxUpcoming(limit), BookingListener.NONE);
        List<Slot> slots = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            slots.add(scheduled(engine, spec("c" + i, range(i * 90, 60), 2)));
        }
        List<HoldResult> results = Concurrent.run(20, i -> engine.hold(testTenant(), req(slots.get(i), "racer")));
        assertThat(results.stream().filter(r -> r instanceof Held).count()).isEqualTo(limit);
        assertThat(results).allMatch(r -> r instanceof Held || r instanceof LimitReached);
        int live = 0;
        for (Slot slot : slots) {
            live += live(slot).size();
        }
        assertThat(live).as("live bookings read back from the store").isEqualTo(limit);
        assertThat(testStore().studentBookings(testTenant(), StudentId.of("racer"), testClock().instant(), true, 0, 100))
                .hasSize(limit);
    }

    // ================================================================ waitlist

    @Test
    default void aFullSlotPutsAWaitlistRequestInLineIdempotently() {
        BookingEngine engine = rulesEngine(BookingRules.defaults(), BookingListener.NONE);
        Slot slot = scheduled(engine, spec("wl", range(0, 60), 1));
        assertThat(engine.hold(testTenant(), req(slot, "a").orWaitlist())).isInstanceOf(Held.class);
        HoldRequest b = req(slot, "b").orWaitlist();
        HoldRequest c = req(slot, "c").orWaitlist();
        HoldResult first = engine.hold(testTenant(), b);
        assertThat(first).isInstanceOf(Waitlisted.class);
        assertThat(((Waitlisted) first).entry().position()).isEqualTo(1);
        assertThat(((Waitlisted) first).replayed()).isFalse();
        assertThat(((Waitlisted) engine.hold(testTenant(), c)).entry().position()).isEqualTo(2);
        HoldResult again = engine.hold(testTenant(), b);
        assertThat(again).isInstanceOf(Waitlisted.class);
        assertThat(((Waitlisted) again).replayed()).isTrue();
        assertThat(((Waitlisted) again).entry().position()).isEqualTo(1);
        HoldResult otherRequest = engine.hold(testTenant(), req(slot, "b").orWaitlist());
        assertThat(((Waitlisted) otherRequest).entry().requestId()).as("one place per student")
                .isEqualTo(b.requestId());
        assertThat(engine.hold(testTenant(), req(slot, "d"))).as("without the flag").isEqualTo(new Full(slot.slotId()));
        assertThat(waiting(slot)).extracting(e -> e.studentId().value(), WaitlistEntry::position)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("b", 1), org.assertj.core.groups.Tuple.tuple("c", 2));
        assertThat(engine.waitlistEntry(testTenant(), c.requestId()).orElseThrow().position()).isEqualTo(2);
        assertThatThrownBy(() -> engine.hold(testTenant(),
                HoldRequest.of(b.requestId(), slot.slotId(), StudentId.of("mallory")).orWaitlist()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("requestId")
                .hasMessageNotContaining("'b'");
    }

    @Test
    default void aCancelPromotesTheFirstWaiterInTheSameStep() {
        List<Booking> promoted = new CopyOnWriteArrayList<>();
        BookingEngine engine = rulesEngine(BookingRules.defaults(), new BookingListener() {
            @Override
            public void promoted(Booking booking) {
                promoted.add(booking);
            }
        });
        Slot slot = scheduled(engine, spec("promo", range(0, 60), 1));
        Booking a = held(engine.book(testTenant(), req(slot, "a")));
        HoldRequest b = req(slot, "b").orWaitlist();
        HoldRequest c = req(slot, "c").orWaitlist();
        engine.hold(testTenant(), b);
        engine.hold(testTenant(), c);

        assertThat(engine.cancel(testTenant(), a.bookingId(), a.studentId())).isInstanceOf(Cancelled.class);
        Booking got = stored(b.requestId());
        assertThat(got.status()).isEqualTo(BookingStatus.HELD);
        assertThat(got.heldUntil()).isEqualTo(testClock().instant().plus(Duration.ofMinutes(10)));
        assertThat(live(slot)).extracting(Booking::studentId).containsExactly(StudentId.of("b"));
        assertThat(promoted).extracting(Booking::bookingId).containsExactly(got.bookingId());
        assertThat(engine.waitlistEntry(testTenant(), b.requestId()).orElseThrow().status())
                .isEqualTo(WaitlistEntry.Status.PROMOTED);
        assertThat(waiting(slot)).extracting(WaitlistEntry::position, e -> e.studentId().value())
                .containsExactly(org.assertj.core.groups.Tuple.tuple(1, "c"));
        // the waiter's request now answers with its booking, and confirms like any hold
        assertThat(engine.hold(testTenant(), b)).isEqualTo(new Held(got, true));
        assertThat(engine.confirm(testTenant(), got.bookingId(), got.studentId())).isInstanceOf(Confirmed.class);
        assertThat(engine.hold(testTenant(), req(slot, "newcomer"))).isEqualTo(new Full(slot.slotId()));
    }

    @Test
    default void anExpiredHoldGoesToTheFirstWaiterOnTheSweep() {
        BookingEngine engine = rulesEngine(BookingRules.defaults(), BookingListener.NONE);
        Slot slot = scheduled(engine, spec("exp", range(0, 60), 1));
        held(engine.hold(testTenant(), req(slot, "a")));
        HoldRequest b = req(slot, "b").orWaitlist();
        engine.hold(testTenant(), b);
        testClock().advance(Duration.ofMinutes(10));
        assertThat(engine.hold(testTenant(), req(slot, "newcomer")))
                .as("an expired hold is not taken over while someone waits").isInstanceOf(Full.class);
        assertThat(engine.sweepExpired(testTenant(), 10)).isEqualTo(1);
        assertThat(stored(b.requestId()).status()).isEqualTo(BookingStatus.HELD);
        assertThat(live(slot)).extracting(Booking::studentId).containsExactly(StudentId.of("b"));
    }

    @Test
    default void aWaiterWhoCannotTakeTheSeatIsSkippedAndTold() {
        List<WaitlistEntry> skipped = new CopyOnWriteArrayList<>();
        BookingEngine engine = rulesEngine(BookingRules.defaults(), new BookingListener() {
            @Override
            public void waitlistSkipped(WaitlistEntry entry) {
                skipped.add(entry);
            }
        });
        Slot slot = scheduled(engine, spec("skip", range(0, 60), 1));
        Slot overlapping = scheduled(engine, spec("overlap", range(30, 60), 5));
        Booking a = held(engine.book(testTenant(), req(slot, "a")));
        HoldRequest b = req(slot, "b").orWaitlist();
        HoldRequest c = req(slot, "c").orWaitlist();
        engine.hold(testTenant(), b);
        engine.hold(testTenant(), c);
        assertThat(engine.book(testTenant(), req(overlapping, "b"))).isInstanceOf(Held.class);

        engine.cancel(testTenant(), a.bookingId(), a.studentId());
        WaitlistEntry bEntry = engine.waitlistEntry(testTenant(), b.requestId()).orElseThrow();
        assertThat(bEntry.status()).isEqualTo(WaitlistEntry.Status.SKIPPED);
        assertThat(bEntry.reason()).isEqualTo(WaitlistEntry.SkipReason.CONFLICT);
        assertThat(skipped).extracting(WaitlistEntry::requestId).containsExactly(b.requestId());
        assertThat(stored(c.requestId()).status()).as("the next eligible waiter").isEqualTo(BookingStatus.HELD);
        assertThat(testStore().findByRequest(testTenant(), b.requestId())).isEmpty();
    }

    @Test
    default void aWaiterCanLeaveOnceAndIsNotPromoted() {
        BookingEngine engine = rulesEngine(BookingRules.defaults(), BookingListener.NONE);
        Slot slot = scheduled(engine, spec("leave", range(0, 60), 1));
        Booking a = held(engine.book(testTenant(), req(slot, "a")));
        HoldRequest b = req(slot, "b").orWaitlist();
        engine.hold(testTenant(), b);
        assertThat(engine.leaveWaitlist(testTenant(), b.requestId(), StudentId.of("mallory"))).isEqualTo(new NotFound());
        assertThat(engine.leaveWaitlist(testTenant(), b.requestId(), StudentId.of("b"))).isInstanceOf(LeftWaitlist.class);
        assertThat(engine.leaveWaitlist(testTenant(), b.requestId(), StudentId.of("b"))).isInstanceOf(NotWaiting.class);
        engine.cancel(testTenant(), a.bookingId(), a.studentId());
        assertThat(testStore().findByRequest(testTenant(), b.requestId())).isEmpty();
        assertThat(ledger(slot).remaining()).isEqualTo(1);
        assertThat(waiting(slot)).isEmpty();
    }

    @Test
    default void noPromotionAfterTheWaitlistCutoff() {
        BookingEngine engine = rulesEngine(BookingRules.defaults().withWaitlistCutoff(Duration.ofHours(2)),
                BookingListener.NONE);
        Slot slot = scheduled(engine, spec("cutoff", range(0, 60), 1));
        Booking a = held(engine.book(testTenant(), req(slot, "a")));
        HoldRequest b = req(slot, "b").orWaitlist();
        assertThat(engine.hold(testTenant(), b)).isInstanceOf(Waitlisted.class);
        testClock().set(slot.time().start().minus(Duration.ofHours(2)));
        assertThat(engine.hold(testTenant(), req(slot, "c").orWaitlist())).as("too late to wait")
                .isInstanceOf(Full.class);
        engine.cancel(testTenant(), a.bookingId(), a.studentId());
        assertThat(testStore().findByRequest(testTenant(), b.requestId())).isEmpty();
        assertThat(engine.hold(testTenant(), req(slot, "walk-in"))).isInstanceOf(Held.class);
    }

    /**
     * Holders cancel while newcomers (some asking to wait) race for the seats of a waitlisted slot.
     * Afterwards, from the store: within capacity, every freed seat went to a waiter in join order
     * (promoted waiters are a prefix of the line), and nobody waits while a seat is free.
     */
    @Test
    default void cancelsAndNewHoldsRacingOnAWaitlistedSlotNeverSkipTheLine() {
        long seed = new Random().nextLong();
        System.out.println("waitlist race seed " + seed);
        Random random = new Random(seed);
        BookingEngine engine = rulesEngine(BookingRules.defaults(), BookingListener.NONE);
        int capacity = 5;
        Slot slot = scheduled(engine, spec("race", range(0, 60), capacity));
        List<Booking> holders = new ArrayList<>();
        for (int i = 0; i < capacity; i++) {
            holders.add(held(engine.book(testTenant(), req(slot, "holder-" + i))));
        }
        List<HoldRequest> line = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            HoldRequest r = req(slot, "waiter-" + i).orWaitlist();
            assertThat(engine.hold(testTenant(), r)).isInstanceOf(Waitlisted.class);
            line.add(r);
        }
        int threads = Math.min(testRaceThreads(), 40);
        boolean[] joins = new boolean[threads];
        for (int i = 0; i < threads; i++) {
            joins[i] = random.nextBoolean();
        }
        AtomicInteger cancels = new AtomicInteger();
        Concurrent.run(threads, i -> {
            if (i < holders.size()) {
                Booking h = holders.get(i);
                cancels.incrementAndGet();
                return engine.cancel(testTenant(), h.bookingId(), h.studentId());
            }
            HoldRequest r = req(slot, "newcomer-" + i);
            return engine.hold(testTenant(), joins[i] ? r.orWaitlist() : r);
        });

        List<Booking> live = live(slot);
        assertThat(live.size()).as("taken seats").isLessThanOrEqualTo(capacity);
        Set<StudentId> students = new HashSet<>();
        for (Booking b : live) {
            assertThat(students.add(b.studentId())).isTrue();
        }
        // the original line of eight: the promoted ones are its first ones (nobody in it was skipped)
        List<Boolean> promotedInLine = new ArrayList<>();
        for (HoldRequest r : line) {
            promotedInLine.add(testStore().findByRequest(testTenant(), r.requestId()).isPresent());
        }
        int firstNotPromoted = promotedInLine.indexOf(false);
        if (firstNotPromoted >= 0) {
            assertThat(promotedInLine.subList(firstNotPromoted, promotedInLine.size()))
                    .as("promotions follow the line: %s", promotedInLine).doesNotContain(true);
        }
        long promoted = promotedInLine.stream().filter(p -> p).count();
        assertThat(promoted).as("five seats freed, eight waiting: five promoted").isEqualTo(capacity);
        Availability seats = ledger(slot);
        if (!waiting(slot).isEmpty()) {
            assertThat(seats.remaining()).as("nobody waits while a seat is free").isZero();
        }
        Map<String, Integer> byKind = new HashMap<>();
        for (Booking b : live) {
            byKind.merge(b.studentId().value().replaceAll("-\\d+$", ""), 1, Integer::sum);
        }
        assertThat(byKind.getOrDefault("holder", 0)).as("every holder cancelled").isZero();
        assertThat(byKind.getOrDefault("waiter", 0)).as("the freed seats went to the line").isEqualTo(capacity);
    }

    // ================================================================ reads

    @Test
    default void frontDeskAndStudentReads() {
        BookingEngine engine = rulesEngine(BookingRules.defaults(), BookingListener.NONE);
        CoachId coach = CoachId.of("ana-" + Fixtures.shortRandom());
        RoomId room = RoomId.of("hall-" + Fixtures.shortRandom());
        Slot morning = scheduled(engine, new SlotSpec(SlotId.of("m"), coach, room, range(0, 60), 2));
        Slot noon = scheduled(engine, new SlotSpec(SlotId.of("n"), coach, room, range(180, 60), 1));
        Slot nextWeek = scheduled(engine, new SlotSpec(SlotId.of("w"), coach, RoomId.of("elsewhere"),
                range(7 * 24 * 60, 60), 1));
        Booking s1 = held(engine.book(testTenant(), req(morning, "s1")));
        Booking s2 = held(engine.hold(testTenant(), req(morning, "s2")));
        Booking s1Noon = held(engine.book(testTenant(), req(noon, "s1")));
        HoldRequest waiter = req(noon, "s3").orWaitlist();
        engine.hold(testTenant(), waiter);

        assertThat(engine.booking(testTenant(), s1.bookingId())).contains(s1);
        assertThat(engine.booking(TenantId.of("other-" + Fixtures.shortRandom()), s1.bookingId())).isEmpty();
        assertThat(engine.roster(testTenant(), morning.slotId(), 0, 10)).extracting(Booking::studentId)
                .containsExactly(StudentId.of("s1"), StudentId.of("s2"));
        assertThat(engine.roster(testTenant(), morning.slotId(), 1, 10)).extracting(Booking::bookingId)
                .containsExactly(s2.bookingId());
        assertThat(engine.waitlist(testTenant(), noon.slotId(), 0, 10)).extracting(WaitlistEntry::requestId)
                .containsExactly(waiter.requestId());
        assertThat(engine.roster(testTenant(), SlotId.of("nope"), 0, 10)).isEmpty();

        List<BookedSession> upcoming = engine.bookingsOf(testTenant(), StudentId.of("s1"), true, 0, 10);
        assertThat(upcoming).extracting(s -> s.booking().bookingId()).containsExactly(s1.bookingId(),
                s1Noon.bookingId());
        assertThat(upcoming.get(0).slot()).isEqualTo(morning);
        assertThat(engine.bookingsOf(testTenant(), StudentId.of("s1"), true, 1, 1)).hasSize(1);
        testClock().set(morning.time().end());
        assertThat(engine.bookingsOf(testTenant(), StudentId.of("s1"), true, 0, 10))
                .extracting(s -> s.booking().bookingId()).containsExactly(s1Noon.bookingId());
        assertThat(engine.bookingsOf(testTenant(), StudentId.of("s1"), false, 0, 10))
                .extracting(s -> s.booking().bookingId()).containsExactly(s1.bookingId());

        TimeRange day = TimeRange.of(testBase(), Duration.ofDays(1));
        assertThat(engine.timetable(testTenant(), ResourceRef.of(coach), day, 0, 10)).extracting(Slot::slotId)
                .containsExactly(morning.slotId(), noon.slotId());
        assertThat(engine.timetable(testTenant(), ResourceRef.of(coach), TimeRange.of(testBase(), Duration.ofDays(30)),
                2, 10)).extracting(Slot::slotId).containsExactly(nextWeek.slotId());
        assertThat(engine.timetable(testTenant(), ResourceRef.of(room), day, 0, 10)).extracting(Slot::slotId)
                .containsExactly(morning.slotId(), noon.slotId());
        assertThatThrownBy(() -> engine.roster(testTenant(), morning.slotId(), 0, 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("limit");
    }
}
