package org.slotbook.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.DayOfWeek;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalTime;
import java.time.ZoneOffset;
import java.time.temporal.TemporalAdjusters;
import java.util.List;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.slotbook.core.CheckedIn;
import org.slotbook.core.InsufficientCredits;
import org.slotbook.core.LessonPackage;
import org.slotbook.core.PackageGrant;
import org.slotbook.core.PackageId;
import org.slotbook.core.SeriesBooking;
import org.slotbook.core.SeriesCancelled;
import org.slotbook.core.SeriesId;
import org.slotbook.core.SeriesMode;
import org.slotbook.core.SeriesResult;
import org.slotbook.core.SeriesSpec;
import org.slotbook.core.AlreadyBooked;
import org.slotbook.core.AlreadyCancelled;
import org.slotbook.core.Availability;
import org.slotbook.core.Booking;
import org.slotbook.core.BookingEngine;
import org.slotbook.core.Cancelled;
import org.slotbook.core.CoachId;
import org.slotbook.core.Confirmed;
import org.slotbook.core.Conflict;
import org.slotbook.core.Full;
import org.slotbook.core.Held;
import org.slotbook.core.HoldPolicy;
import org.slotbook.core.HoldRequest;
import org.slotbook.core.NotFound;
import org.slotbook.core.RequestId;
import org.slotbook.core.RoomId;
import org.slotbook.core.Scheduled;
import org.slotbook.core.SlotCancelled;
import org.slotbook.core.SlotId;
import org.slotbook.core.SlotNotOpen;
import org.slotbook.core.SlotSpec;
import org.slotbook.core.StudentId;
import org.slotbook.core.TenantId;
import org.slotbook.core.TimeRange;
import org.slotbook.jdbc.testing.CountingDataSource;
import org.slotbook.jdbc.testing.TestDatabases.TestDatabase;

/**
 * The round-trip budget of every engine operation, counted through the connections the store
 * borrows: statements, commits, rollbacks, autocommit switches and isolation queries. Each decision
 * is one call of its database routine, so hold, book, confirm, cancel, cancelSlot, a sweep batch and
 * availability cost at most 2, schedule at most 3 whatever the capacity. Lessons alike: a package grant,
 * a paid hold, a check-in, a series scheduled, cancelled, or its occurrences read, each at most 2; a
 * series booked (its occurrences read, then all held in one call) at most 3.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class RoundTripBudgetTests {
    static final int BUDGET = 2;
    static final int SCHEDULE_BUDGET = 3;
    static final int SERIES_BOOKING_BUDGET = 3;

    private TestDatabase db;
    private CountingDataSource counting;
    private BookingEngine engine;
    private final Map<String, Integer> measured = new LinkedHashMap<>();

    protected abstract TestDatabase openDatabase();

    @BeforeAll
    void open() {
        db = openDatabase();
        counting = new CountingDataSource(db.dataSource());
        JdbcStore store = JdbcStore.builder(counting).tablePrefix(db.prefix()).dialect(db.dialect()).build();
        engine = BookingEngine.builder().store(store).holdPolicy(HoldPolicy.ofMinutes(10)).build();
    }

    @AfterAll
    void close() {
        System.out.println("[round trips] " + db + ": " + measured);
        if (db != null) {
            db.close();
        }
    }

    private Object within(int budget, String what, Supplier<?> operation, Class<?> expected) {
        counting.reset();
        Object result = operation.get();
        int used = counting.roundTrips();
        measured.put(what, used);
        assertThat(result).as(what).isInstanceOf(expected);
        assertThat(used).as("round trips of %s on %s", what, db).isLessThanOrEqualTo(budget);
        return result;
    }

    @Test
    void everyOperationStaysWithinItsBudget() {
        TenantId t = TenantId.of("budget-" + UUID.randomUUID());
        Instant start = Instant.now().plus(Duration.ofDays(1)).truncatedTo(ChronoUnit.HOURS);
        SlotSpec yoga = new SlotSpec(SlotId.of("yoga"), CoachId.of("ana"), RoomId.of("r1"),
                TimeRange.of(start, Duration.ofHours(1)), 2);
        SlotSpec big = new SlotSpec(SlotId.of("big"), CoachId.of("bo"), RoomId.of("hall"),
                TimeRange.of(start.plus(Duration.ofHours(3)), Duration.ofHours(1)), 5_000);
        SlotSpec clash = new SlotSpec(SlotId.of("clash"), CoachId.of("cy"), RoomId.of("r3"),
                TimeRange.of(start.plusSeconds(1800), Duration.ofHours(1)), 5);
        within(SCHEDULE_BUDGET, "schedule 2 seats", () -> engine.schedule(t, yoga), Scheduled.class);
        within(SCHEDULE_BUDGET, "schedule 5000 seats", () -> engine.schedule(t, big), Scheduled.class);
        within(SCHEDULE_BUDGET, "schedule again", () -> engine.schedule(t, big), Scheduled.class);
        within(SCHEDULE_BUDGET, "schedule clash", () -> engine.schedule(t,
                new SlotSpec(SlotId.of("x"), CoachId.of("ana"), RoomId.of("r9"), yoga.time(), 1)), Conflict.class);
        engine.schedule(t, clash);

        HoldRequest first = HoldRequest.of(RequestId.random(), yoga.slotId(), StudentId.of("new-student"));
        Held held = (Held) within(BUDGET, "hold, first-time student", () -> engine.hold(t, first), Held.class);
        within(BUDGET, "hold, replay", () -> engine.hold(t, first), Held.class);
        within(BUDGET, "hold, already booked", () -> engine.hold(t,
                HoldRequest.of(RequestId.random(), yoga.slotId(), StudentId.of("new-student"))), AlreadyBooked.class);
        within(BUDGET, "hold, student conflict", () -> engine.hold(t,
                HoldRequest.of(RequestId.random(), clash.slotId(), StudentId.of("new-student"))), Conflict.class);
        within(BUDGET, "hold, returning student", () -> engine.hold(t,
                HoldRequest.of(RequestId.random(), big.slotId(), StudentId.of("other"))), Held.class);
        within(BUDGET, "book", () -> engine.book(t,
                HoldRequest.of(RequestId.random(), yoga.slotId(), StudentId.of("other"))), Held.class);
        within(BUDGET, "hold, full", () -> engine.hold(t,
                HoldRequest.of(RequestId.random(), yoga.slotId(), StudentId.of("late"))), Full.class);
        within(BUDGET, "hold, joins the waitlist", () -> engine.hold(t,
                HoldRequest.of(RequestId.random(), yoga.slotId(), StudentId.of("waiter")).orWaitlist()),
                org.slotbook.core.Waitlisted.class);
        HoldRequest leaver = HoldRequest.of(RequestId.random(), yoga.slotId(), StudentId.of("leaver")).orWaitlist();
        engine.hold(t, leaver);
        within(BUDGET, "leave the waitlist", () -> engine.leaveWaitlist(t, leaver.requestId(), leaver.studentId()),
                org.slotbook.core.LeftWaitlist.class);
        SlotSpec later = new SlotSpec(SlotId.of("later"), CoachId.of("dee"), RoomId.of("r4"),
                TimeRange.of(start.plus(Duration.ofHours(6)), Duration.ofHours(1)), 3)
                .opensAt(Instant.now().plus(Duration.ofHours(2)));
        engine.schedule(t, later);
        within(BUDGET, "hold, not open yet", () -> engine.hold(t,
                HoldRequest.of(RequestId.random(), later.slotId(), StudentId.of("early"))),
                org.slotbook.core.NotOpenYet.class);
        within(BUDGET, "hold, no such slot", () -> engine.hold(t,
                HoldRequest.of(RequestId.random(), SlotId.of("nope"), StudentId.of("late"))), NotFound.class);
        Booking booking = held.booking();
        within(BUDGET, "confirm", () -> engine.confirm(t, booking.bookingId(), booking.studentId()), Confirmed.class);
        within(BUDGET, "availability", () -> engine.availability(t, yoga.slotId()), Availability.class);
        within(BUDGET, "cancel, promoting a waiter", () -> engine.cancel(t, booking.bookingId(),
                booking.studentId()), Cancelled.class);
        assertThat(engine.roster(t, yoga.slotId(), 0, 10)).extracting(b -> b.studentId().value())
                .as("the waiter was promoted").contains("waiter");
        Booking booked = engine.roster(t, yoga.slotId(), 0, 10).stream()
                .filter(b -> b.studentId().value().equals("other")).findFirst().orElseThrow();
        within(BUDGET, "staff cancel", () -> engine.cancelByStaff(t, booked.bookingId()), Cancelled.class);
        within(BUDGET, "second cancel", () -> engine.cancel(t, booking.bookingId(), booking.studentId()),
                AlreadyCancelled.class);
        within(BUDGET, "sweep (one batch)", () -> engine.sweepExpired(t, 100), Integer.class);
        within(BUDGET, "cancel slot", () -> engine.cancelSlot(t, big.slotId()), SlotCancelled.class);
        within(BUDGET, "hold, slot not open", () -> engine.hold(t,
                HoldRequest.of(RequestId.random(), big.slotId(), StudentId.of("late"))), SlotNotOpen.class);
        // lessons
        Instant now = Instant.now();
        PackageGrant grant = PackageGrant.of(PackageId.of("pack"), StudentId.of("pupil"), 10,
                now.minus(Duration.ofDays(1)).truncatedTo(ChronoUnit.SECONDS),
                now.plus(Duration.ofDays(60)).truncatedTo(ChronoUnit.SECONDS));
        within(BUDGET, "grant a package", () -> engine.grantPackage(t, grant), LessonPackage.class);
        within(BUDGET, "grant it again", () -> engine.grantPackage(t, grant), LessonPackage.class);
        within(BUDGET, "packages", () -> engine.packages(t, StudentId.of("pupil"), 0, 10), List.class);
        SlotSpec paid = new SlotSpec(SlotId.of("paid"), CoachId.of("eve"), RoomId.of("r5"),
                TimeRange.of(now.plusSeconds(600).truncatedTo(ChronoUnit.SECONDS), Duration.ofHours(1)), 3)
                .withCost(2);
        engine.schedule(t, paid);
        Held paidHold = (Held) within(BUDGET, "book, drawing credits", () -> engine.book(t,
                HoldRequest.of(RequestId.random(), paid.slotId(), StudentId.of("pupil"))), Held.class);
        within(BUDGET, "hold, insufficient credits", () -> engine.hold(t,
                HoldRequest.of(RequestId.random(), paid.slotId(), StudentId.of("broke"))), InsufficientCredits.class);
        within(BUDGET, "credit journal", () -> engine.creditJournal(t, PackageId.of("pack"), 0, 10), List.class);
        within(BUDGET, "check in", () -> engine.checkIn(t, paidHold.booking().bookingId(), StudentId.of("pupil")),
                CheckedIn.class);
        LocalDate monday = LocalDate.now(ZoneOffset.UTC).plusWeeks(1)
                .with(TemporalAdjusters.previousOrSame(DayOfWeek.MONDAY));
        SeriesSpec weekly = SeriesSpec.weekly(SeriesId.of("weekly"), CoachId.of("fay"), RoomId.of("r6"), 4)
                .on(DayOfWeek.MONDAY, DayOfWeek.THURSDAY).at(LocalTime.of(18, 0), Duration.ofHours(1), ZoneOffset.UTC)
                .from(monday).forWeeks(6).withCost(1);
        within(BUDGET, "schedule a series of 12", () -> engine.scheduleSeries(t, weekly, SeriesMode.ALL_OR_NOTHING),
                SeriesResult.class);
        within(BUDGET, "schedule it again", () -> engine.scheduleSeries(t, weekly, SeriesMode.ALL_OR_NOTHING),
                SeriesResult.class);
        SeriesBooking series = (SeriesBooking) within(SERIES_BOOKING_BUDGET, "book a series of 12",
                () -> engine.bookSeries(t, RequestId.of("series-" + UUID.randomUUID().toString().substring(0, 8)),
                        weekly.seriesId(), StudentId.of("pupil"), SeriesMode.ALL_OR_NOTHING), SeriesBooking.class);
        assertThat(series.lines()).hasSize(12);
        within(BUDGET, "cancel the series", () -> engine.cancelSeries(t, weekly.seriesId(), now),
                SeriesCancelled.class);
    }
}
