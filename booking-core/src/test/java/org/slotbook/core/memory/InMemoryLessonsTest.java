package org.slotbook.core.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.slotbook.core.Attendance;
import org.slotbook.core.Booking;
import org.slotbook.core.BookingId;
import org.slotbook.core.BookingRules;
import org.slotbook.core.BookingStatus;
import org.slotbook.core.CancellationPolicy;
import org.slotbook.core.CreditEntry;
import org.slotbook.core.CreditPolicy;
import org.slotbook.core.Full;
import org.slotbook.core.Held;
import org.slotbook.core.HoldRequest;
import org.slotbook.core.HoldResult;
import org.slotbook.core.LessonPackage;
import org.slotbook.core.PackageGrant;
import org.slotbook.core.PackageId;
import org.slotbook.core.RequestId;
import org.slotbook.core.ResourceRef;
import org.slotbook.core.Scheduled;
import org.slotbook.core.SeriesId;
import org.slotbook.core.SeriesMode;
import org.slotbook.core.SeriesResult;
import org.slotbook.core.Slot;
import org.slotbook.core.SlotStatus;
import org.slotbook.core.StudentId;
import org.slotbook.core.TenantId;
import org.slotbook.core.TimeRange;
import org.slotbook.core.Waitlisted;
import org.slotbook.core.spi.BookingEvent;
import org.slotbook.core.spi.BookingEvent.Kind;
import org.slotbook.core.spi.HoldCommand;
import org.slotbook.core.spi.StoreOutcome;
import org.slotbook.core.spi.Terms;
import org.slotbook.core.tck.Fixtures;

/**
 * What the in-memory store does with lesson packages, attendance and series beyond the contracts: an
 * all-or-nothing call or a call that fails half way is undone to the last detail (seats, waiters,
 * credits, journal, the sweep's indexes), and credits balance under a random mix of decisions.
 */
class InMemoryLessonsTest {
    private static final Duration TTL = Duration.ofMinutes(10);
    private static final Duration LONGEST = Duration.ofHours(4);
    private static final BookingRules RULES = BookingRules.defaults();

    private final InMemoryStore store = InMemoryStore.create();
    private final TenantId tenant = Fixtures.tenant();
    private final Instant now = Instant.now().truncatedTo(ChronoUnit.MILLIS);
    /** Minute 0 of the tests' timeline: a whole hour a day from now. */
    private final Instant base = Fixtures.nextHour(now).plus(Duration.ofDays(1));

    private final List<Slot> slots = new ArrayList<>();
    private final Set<StudentId> students = new HashSet<>();
    private final List<BookingId> bookings = new ArrayList<>();
    private final List<RequestId> requests = new ArrayList<>();

    // ================================================================ all or nothing

    @Test
    void aRefusedAllOrNothingHoldUndoesEveryWriteOfTheCall() {
        StudentId student = student();
        StudentId waiter = student();
        grant(student, 5);
        grant(waiter, 2);
        // the student's dead hold of a session overlapping the first one: retired by the call, its seat
        // given to a waiter who pays for it, its credit given back
        Slot dead = slot(0, 1, 1);
        Slot first = slot(30, 3, 1);
        Slot second = slot(180, 3, 2);
        Slot full = slot(300, 1, 0);
        assertHeld(store.hold(tenant, command(dead, student, BookingStatus.HELD, now)));
        assertThat(store.hold(tenant, waitlisted(dead, waiter, now)).result()).isInstanceOf(Waitlisted.class);
        assertHeld(store.hold(tenant, command(full, student(), BookingStatus.CONFIRMED, now)));
        Instant later = now.plus(TTL);
        List<HoldCommand> commands = List.of(command(first, student, BookingStatus.HELD, later),
                command(second, student, BookingStatus.CONFIRMED, later),
                command(full, student, BookingStatus.HELD, later));
        Object before = everything(later);

        StoreOutcome<List<HoldResult>> refused = store.holdAll(tenant, commands, SeriesMode.ALL_OR_NOTHING);

        assertThat(refused.result()).hasSize(3);
        assertThat(refused.result().get(0)).isInstanceOf(Held.class);
        assertThat(refused.result().get(1)).isInstanceOf(Held.class);
        assertThat(refused.result().get(2)).isEqualTo(new Full(full.slotId()));
        assertThat(refused.events()).isEmpty();
        assertThat(refused.skipped()).isEmpty();
        assertThat(everything(later)).isEqualTo(before);

        // the same call, best effort, finds the state as it was and writes it all
        StoreOutcome<List<HoldResult>> written = store.holdAll(tenant, commands, SeriesMode.BEST_EFFORT);

        assertThat(written.result().subList(0, 2)).allMatch(r -> r instanceof Held h && !h.replayed());
        assertThat(written.result().get(2)).isEqualTo(new Full(full.slotId()));
        assertThat(written.events()).extracting(BookingEvent::kind)
                .containsExactly(Kind.EXPIRED, Kind.PROMOTED, Kind.HELD, Kind.CONFIRMED);
        assertThat(everything(later)).isNotEqualTo(before);
        LessonPackage mine = store.packages(tenant, student, 0, 10).get(0);
        assertThat(mine.remaining()).isEqualTo(5 - 1 - 2);
        assertThat(store.creditJournal(tenant, mine.packageId(), 0, 10)).extracting(CreditEntry::reason)
                .containsExactly(CreditEntry.Reason.GRANT, CreditEntry.Reason.DRAW, CreditEntry.Reason.REFUND,
                        CreditEntry.Reason.DRAW, CreditEntry.Reason.DRAW);
        assertThat(store.packages(tenant, waiter, 0, 10).get(0).remaining()).isEqualTo(1);
        assertBalanced();
    }

    @Test
    void aCallThatFailsHalfWayIsUndoneWhole() {
        StudentId student = student();
        grant(student, 3);
        Slot first = slot(0, 2, 1);
        Slot second = slot(120, 2, 1);
        // a confirm deadline past the end of time: the second hold throws after the first one was written
        HoldCommand endless = new HoldCommand(id(), new HoldRequest(request(), second.slotId(), student, false),
                BookingStatus.HELD, now, Duration.ofSeconds(Long.MAX_VALUE), LONGEST, false, RULES);
        List<HoldCommand> commands = List.of(command(first, student, BookingStatus.HELD, now), endless);
        Object before = everything(now);

        assertThatThrownBy(() -> store.holdAll(tenant, commands, SeriesMode.BEST_EFFORT))
                .isInstanceOf(ArithmeticException.class);

        assertThat(everything(now)).isEqualTo(before);
        assertBalanced();
    }

    @Test
    void aRolledBackBookLeavesNoBookingForTheNoShowSweep() {
        StudentId student = student();
        Slot session = slot(0, 2, 0);
        Slot full = slot(120, 1, 0);
        assertHeld(store.hold(tenant, command(full, student(), BookingStatus.CONFIRMED, now)));
        List<HoldCommand> commands = List.of(command(session, student, BookingStatus.CONFIRMED, now),
                command(full, student, BookingStatus.CONFIRMED, now));
        Terms attendance = new Terms(RULES.withAttendance(Duration.ZERO, Duration.ZERO), TTL, LONGEST);
        Instant afterBoth = full.time().end();

        store.holdAll(tenant, commands, SeriesMode.ALL_OR_NOTHING);

        StoreOutcome<Integer> swept = store.expireDue(tenant, afterBoth, 100, attendance);
        assertThat(swept.events()).extracting(e -> e.booking().slotId()).containsExactly(full.slotId());

        StoreOutcome<List<HoldResult>> written = store.holdAll(tenant, commands, SeriesMode.BEST_EFFORT);
        assertThat(written.result().get(0)).isInstanceOf(Held.class);
        StoreOutcome<Integer> second = store.expireDue(tenant, afterBoth, 100, attendance);
        assertThat(second.result()).isEqualTo(1);
        assertThat(second.events()).singleElement().satisfies(e -> {
            assertThat(e.kind()).isEqualTo(Kind.NO_SHOW);
            assertThat(e.booking().slotId()).isEqualTo(session.slotId());
            assertThat(e.booking().attendance()).isEqualTo(Attendance.NO_SHOW);
        });
    }

    @Test
    void aRefusedAllOrNothingSeriesFreesTheCoachAndRoomOfTheEarlierOccurrences() {
        SeriesId series = SeriesId.of("s-" + Fixtures.shortRandom());
        Slot busy = slot(24 * 60 * 7 * 2, 1, 0);
        List<Slot> occurrences = new ArrayList<>();
        for (int week = 0; week < 3; week++) {
            Instant start = base.plus(Duration.ofDays(7L * week));
            occurrences.add(new Slot(tenant, series.occurrence(start.atZone(ZoneOffset.UTC).toLocalDate()),
                    busy.coachId(), Fixtures.room(), TimeRange.of(start, Duration.ofHours(1)), 4, SlotStatus.OPEN,
                    null, null, Duration.ZERO, null, false, "yoga", 1, series));
        }
        Object before = everything(now);

        SeriesResult refused = store.scheduleSeries(tenant, series, SeriesMode.ALL_OR_NOTHING, occurrences, LONGEST,
                ZoneOffset.UTC);

        assertThat(refused.occurrences()).extracting(SeriesResult.Occurrence::status).containsExactly(
                SeriesResult.Occurrence.Status.ROLLED_BACK, SeriesResult.Occurrence.Status.ROLLED_BACK,
                SeriesResult.Occurrence.Status.CONFLICT);
        assertThat(everything(now)).isEqualTo(before);
        assertThat(store.seriesSlots(tenant, series, now, 10)).isEmpty();
        assertThat(store.timetable(tenant, ResourceRef.of(busy.coachId()),
                TimeRange.of(base, base.plus(Duration.ofDays(30))), 0, 10)).containsExactly(busy);
        // the first occurrence's coach and room are free again
        Slot sameTime = new Slot(tenant, Fixtures.slot(), busy.coachId(), occurrences.get(0).roomId(),
                occurrences.get(0).time(), 1, SlotStatus.OPEN);
        assertThat(store.schedule(tenant, sameTime, LONGEST, ZoneOffset.UTC)).isEqualTo(new Scheduled(sameTime));
    }

    // ================================================================ bad input

    @Test
    void holdAllRefusesCommandsOfTwoStudentsAndChangesNothing() {
        Slot session = slot(0, 2, 0);
        StudentId other = student();
        List<HoldCommand> commands = List.of(command(session, student(), BookingStatus.HELD, now),
                command(session, other, BookingStatus.HELD, now));
        Object before = everything(now);

        assertThatThrownBy(() -> store.holdAll(tenant, commands, SeriesMode.BEST_EFFORT))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("commands[1]").hasMessageContaining(other.value());
        assertThat(everything(now)).isEqualTo(before);
    }

    @Test
    void scheduleSeriesRefusesAnOccurrenceOfAnotherSeries() {
        SeriesId series = SeriesId.of("s-" + Fixtures.shortRandom());
        Slot stray = new Slot(tenant, Fixtures.slot(), Fixtures.coach(), Fixtures.room(),
                TimeRange.of(base, Duration.ofHours(1)), 1, SlotStatus.OPEN);

        assertThatThrownBy(() -> store.scheduleSeries(tenant, series, SeriesMode.BEST_EFFORT, List.of(stray), LONGEST,
                ZoneOffset.UTC)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("occurrences[0]").hasMessageContaining(series.value());
        assertThat(store.slots(tenant, null, 10)).isEmpty();
    }

    // ================================================================ random mix

    @Test
    void creditsBalanceUnderARandomMixOfDecisions() {
        Random random = Fixtures.random("creditsBalanceUnderARandomMixOfDecisions");
        List<StudentId> people = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            StudentId s = student();
            people.add(s);
            for (int p = 0; p < 1 + random.nextInt(2); p++) {
                grant(s, 1 + random.nextInt(6));
            }
        }
        for (int i = 0; i < 8; i++) {
            slot(i * 45, 1 + random.nextInt(3), random.nextInt(3));
        }
        List<BookingRules> rules = List.of(RULES,
                RULES.withCreditsDrawn(CreditPolicy.AT_CHECK_IN).withAttendance(Duration.ofHours(1), Duration.ZERO),
                RULES.withCancellation(CancellationPolicy.lateWithin(Duration.ofHours(2)))
                        .withAttendance(Duration.ofMinutes(30), Duration.ofMinutes(5)),
                RULES.withCancellation(CancellationPolicy.lateWithin(Duration.ofHours(2)))
                        .withCreditsDrawn(CreditPolicy.AT_CHECK_IN));
        Instant at = base.minus(Duration.ofHours(3));
        for (int step = 0; step < 600; step++) {
            Terms terms = new Terms(rules.get(random.nextInt(rules.size())), TTL, LONGEST);
            Instant when = at;
            StudentId student = people.get(random.nextInt(people.size()));
            Slot slot = slots.get(random.nextInt(slots.size()));
            BookingId booking = bookings.isEmpty() ? BookingId.random() : bookings.get(random.nextInt(bookings.size()));
            switch (random.nextInt(9)) {
                case 0, 1 -> store.hold(tenant, new HoldCommand(id(), new HoldRequest(request(), slot.slotId(), student,
                        random.nextBoolean()), random.nextBoolean() ? BookingStatus.HELD : BookingStatus.CONFIRMED, at,
                        TTL, LONGEST, random.nextBoolean(), terms.rules()));
                case 2 -> {
                    List<HoldCommand> series = new ArrayList<>();
                    for (int n = 0; n < 3; n++) {
                        series.add(new HoldCommand(id(), new HoldRequest(request(),
                                slots.get(random.nextInt(slots.size())).slotId(), student, false), BookingStatus.HELD,
                                at, TTL, LONGEST, false, terms.rules()));
                    }
                    store.holdAll(tenant, series, random.nextBoolean() ? SeriesMode.ALL_OR_NOTHING
                            : SeriesMode.BEST_EFFORT);
                }
                case 3 -> store.findBooking(tenant, booking)
                        .ifPresent(b -> store.confirm(tenant, booking, b.studentId(), when, terms));
                case 4 -> store.findBooking(tenant, booking).ifPresent(b -> store.cancel(tenant, booking,
                        random.nextInt(4) == 0 ? null : b.studentId(), when, terms));
                case 5 -> {
                    List<Booking> seated = store.roster(tenant, slot.slotId(), at, 0, 10);
                    if (!seated.isEmpty()) {
                        Booking b = seated.get(random.nextInt(seated.size()));
                        store.checkIn(tenant, b.bookingId(), random.nextBoolean() ? null : b.studentId(), at, terms);
                    }
                }
                case 6 -> store.expireDue(tenant, at, 1 + random.nextInt(4), terms);
                case 7 -> {
                    if (random.nextInt(10) == 0) {
                        store.cancelSlot(tenant, slot.slotId(), at);
                    }
                }
                default -> at = at.plus(Duration.ofMinutes(random.nextInt(20)));
            }
            assertBalanced();
        }
    }

    // ================================================================ helpers

    /** Every package's journal sums to its balance, and every booking holds what its journal entries moved. */
    private void assertBalanced() {
        Map<BookingId, Integer> heldByJournal = new HashMap<>();
        Set<String> once = new HashSet<>();
        for (StudentId s : students) {
            for (LessonPackage p : store.packages(tenant, s, 0, 100)) {
                List<CreditEntry> journal = store.creditJournal(tenant, p.packageId(), 0, 10_000);
                assertThat(journal.get(0).reason()).isEqualTo(CreditEntry.Reason.GRANT);
                assertThat(journal.stream().mapToInt(CreditEntry::delta).sum()).as("%s", p).isEqualTo(p.remaining());
                assertThat(p.remaining()).isBetween(0, p.credits());
                for (int i = 1; i < journal.size(); i++) {
                    CreditEntry e = journal.get(i);
                    assertThat(e.seq()).isGreaterThan(journal.get(i - 1).seq());
                    assertThat(once.add(e.bookingId() + "/" + e.reason())).as("%s", e).isTrue();
                    heldByJournal.merge(e.bookingId(), -e.delta(), Integer::sum);
                }
            }
        }
        for (BookingId id : bookings) {
            Optional<Booking> found = store.findBooking(tenant, id);
            if (found.isEmpty()) {
                continue;
            }
            Booking b = found.get();
            assertThat(b.credits()).as("%s", b).isEqualTo(heldByJournal.getOrDefault(id, 0));
            if (b.status() == BookingStatus.EXPIRED) {
                assertThat(b.credits()).as("%s", b).isZero();
            }
            if (b.attendance() != Attendance.NONE) {
                assertThat(b.status()).as("%s", b).isIn(BookingStatus.CONFIRMED, BookingStatus.CANCELLED);
            }
        }
        for (Slot s : slots) {
            assertThat(store.roster(tenant, s.slotId(), now, 0, 100).size()).isLessThanOrEqualTo(s.capacity());
        }
    }

    /** Everything the store answers about the test's slots, students, bookings and packages at {@code at}. */
    private Object everything(Instant at) {
        List<Object> all = new ArrayList<>();
        all.add(store.slots(tenant, null, 1000));
        for (Slot s : slots) {
            all.add(store.availability(tenant, s.slotId(), at));
            all.add(store.liveSlot(tenant, s.slotId(), at));
            all.add(store.waitlist(tenant, s.slotId(), 0, 100));
            all.add(store.timetable(tenant, ResourceRef.of(s.coachId()), s.time(), 0, 100));
            all.add(store.timetable(tenant, ResourceRef.of(s.roomId()), s.time(), 0, 100));
        }
        for (StudentId s : students) {
            all.add(store.studentBookings(tenant, s, at, true, 0, 100));
            for (LessonPackage p : store.packages(tenant, s, 0, 100)) {
                all.add(p);
                all.add(store.creditJournal(tenant, p.packageId(), 0, 10_000));
            }
        }
        for (BookingId id : bookings) {
            all.add(store.findBooking(tenant, id));
        }
        for (RequestId id : requests) {
            all.add(store.findByRequest(tenant, id));
            all.add(store.findWaiter(tenant, id));
        }
        return all;
    }

    private StudentId student() {
        StudentId s = Fixtures.student();
        students.add(s);
        return s;
    }

    private BookingId id() {
        BookingId id = BookingId.random();
        bookings.add(id);
        return id;
    }

    private RequestId request() {
        RequestId id = RequestId.random();
        requests.add(id);
        return id;
    }

    private LessonPackage grant(StudentId student, int credits) {
        return store.grantPackage(tenant, PackageGrant.of(PackageId.of("p-" + Fixtures.shortRandom()), student,
                credits, base.minus(Duration.ofDays(2)), base.plus(Duration.ofDays(60))), now);
    }

    /** A one-hour session at minute {@code startMinute} of the timeline, in its own coach's and room's time. */
    private Slot slot(int startMinute, int capacity, int cost) {
        Slot slot = new Slot(tenant, Fixtures.slot(), Fixtures.coach(), Fixtures.room(),
                TimeRange.of(base.plus(Duration.ofMinutes(startMinute)), Duration.ofHours(1)), capacity,
                SlotStatus.OPEN, null, null, Duration.ZERO, null, false, null, cost, null);
        assertThat(store.schedule(tenant, slot, LONGEST, ZoneOffset.UTC)).isEqualTo(new Scheduled(slot));
        slots.add(slot);
        return slot;
    }

    private HoldCommand command(Slot slot, StudentId student, BookingStatus status, Instant at) {
        return new HoldCommand(id(), new HoldRequest(request(), slot.slotId(), student, false), status, at, TTL,
                LONGEST, false, RULES);
    }

    private HoldCommand waitlisted(Slot slot, StudentId student, Instant at) {
        return new HoldCommand(id(), new HoldRequest(request(), slot.slotId(), student, true), BookingStatus.HELD, at,
                TTL, LONGEST, false, RULES);
    }

    private static Booking assertHeld(StoreOutcome<HoldResult> outcome) {
        assertThat(outcome.result()).isInstanceOf(Held.class);
        return ((Held) outcome.result()).booking();
    }
}
