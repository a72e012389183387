package org.slotbook.examples;

import java.time.DayOfWeek;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.temporal.TemporalAdjusters;
import java.util.ArrayList;
import java.util.List;
import org.slotbook.core.Booking;
import org.slotbook.core.BookingEngine;
import org.slotbook.core.BookingListener;
import org.slotbook.core.BookingRules;
import org.slotbook.core.CancellationPolicy;
import org.slotbook.core.CheckInResult;
import org.slotbook.core.CheckedIn;
import org.slotbook.core.CoachId;
import org.slotbook.core.CreditEntry;
import org.slotbook.core.CreditPolicy;
import org.slotbook.core.Held;
import org.slotbook.core.HoldPolicy;
import org.slotbook.core.HoldRequest;
import org.slotbook.core.HoldResult;
import org.slotbook.core.InsufficientCredits;
import org.slotbook.core.LessonPackage;
import org.slotbook.core.PackageGrant;
import org.slotbook.core.PackageId;
import org.slotbook.core.RequestId;
import org.slotbook.core.RoomId;
import org.slotbook.core.SeriesBooking;
import org.slotbook.core.SeriesCancelled;
import org.slotbook.core.SeriesId;
import org.slotbook.core.SeriesMode;
import org.slotbook.core.SeriesResult;
import org.slotbook.core.SeriesSpec;
import org.slotbook.core.SlotId;
import org.slotbook.core.SlotSpec;
import org.slotbook.core.StudentId;
import org.slotbook.core.TenantId;
import org.slotbook.core.TimeRange;
import org.slotbook.core.memory.InMemorySeatReservation;
import org.slotbook.core.memory.InMemoryStore;

/**
 * Lesson packages, attendance and weekly series, the regions of docs/guides/lessons.md run in order on an in-memory
 * store behind the in-memory gate. The example moves its own clock between regions; a real service
 * leaves the clock to the database.
 */
public final class Lessons {
    private Lessons() {
    }

    public static void main(String[] args) {
        LocalDate monday = LocalDate.now(ZoneOffset.UTC).with(TemporalAdjusters.next(DayOfWeek.MONDAY));
        Instant mondayMorning = monday.atTime(8, 0).toInstant(ZoneOffset.UTC);
        Rules.ManualClock clock = new Rules.ManualClock(mondayMorning.minus(Duration.ofDays(3)));
        Instant now = clock.instant();
        List<Booking> noShows = new ArrayList<>();
        BookingListener desk = new BookingListener() {
            @Override
            public void noShow(Booking booking) {
                noShows.add(booking);
            }
        };
        TenantId school = TenantId.of("bright-tutoring");
        List<String> failures = new ArrayList<>();

        // --- lessons: rules (README) ---
        BookingRules rules = BookingRules.defaults()
                .withCancellation(CancellationPolicy.lateWithin(Duration.ofHours(24)))  // later: the lesson is spent
                .withAttendance(Duration.ofMinutes(30), Duration.ofMinutes(15))         // check in 30 min before .. 15 after
                .withCreditsDrawn(CreditPolicy.AT_BOOKING);                             // or AT_CHECK_IN
        BookingEngine engine = BookingEngine.builder()
                .store(InMemoryStore.create())
                .reservation(InMemorySeatReservation.create(clock))
                .holdPolicy(HoldPolicy.ofMinutes(10))
                .rules(rules)
                .listener(desk)                        // noShow(booking), checkedIn(booking)
                .clock(clock)                          // this demo moves time; leave it to the database
                .build();
        // --- end ---

        // --- lessons: packages (README) ---
        engine.grantPackage(school, PackageGrant.of(PackageId.of("order-7731"), StudentId.of("xiaoming"), 10,
                now, now.plus(Duration.ofDays(180))).forClassTypes("math"));           // 10 math lessons, 6 months
        SlotSpec algebra = new SlotSpec(SlotId.of("algebra-mon-4pm"), CoachId.of("teacher-liu"),
                RoomId.of("room-3"), TimeRange.of(mondayMorning.plus(Duration.ofHours(8)), Duration.ofHours(1)), 6)
                .withCost(1).withClassType("math");                                    // one lesson per booking
        engine.schedule(school, algebra);
        HoldResult booked = engine.book(school, HoldRequest.of(RequestId.random(), algebra.slotId(),
                StudentId.of("xiaoming")));                                            // seat and lesson in one step
        HoldResult broke = engine.book(school, HoldRequest.of(RequestId.random(), algebra.slotId(),
                StudentId.of("xiaohong")));                                            // InsufficientCredits: no package
        List<LessonPackage> left = engine.packages(school, StudentId.of("xiaoming"), 0, 10);    // remaining 9
        // --- end ---
        check(failures, booked instanceof Held && broke instanceof InsufficientCredits
                && left.get(0).remaining() == 9, "packages: " + booked + " " + broke + " " + left);
        say("1. Packages: xiaoming's booking drew one lesson (" + left.get(0).remaining() + " of 10 left); "
                + "xiaohong, without a package: " + broke);

        clock.set(algebra.time().start().minus(Duration.ofMinutes(20)));
        // --- lessons: attendance (README) ---
        Booking lesson = ((Held) booked).booking();
        CheckInResult in = engine.checkIn(school, lesson.bookingId(), StudentId.of("xiaoming"));  // CheckedIn
        // engine.checkInByStaff(school, bookingId) at the front desk; a repeat answers CheckedIn(replayed)
        // after the window closes, the sweep marks confirmed bookings without a check-in as NO_SHOW:
        engine.sweepExpired(school, 500);
        // --- end ---
        clock.set(algebra.time().end().plus(Duration.ofMinutes(15)));
        engine.sweepExpired(school, 500);
        check(failures, in instanceof CheckedIn && noShows.isEmpty(), "attendance: " + in + " " + noShows);
        say("2. Attendance: xiaoming checks in 20 minutes early: " + in.getClass().getSimpleName()
                + "; no-shows after the lesson: " + noShows.size());

        // --- lessons: series (README) ---
        SeriesSpec term = SeriesSpec.weekly(SeriesId.of("piano-tue-thu"), CoachId.of("teacher-wu"),
                        RoomId.of("piano-room"), 1)
                .on(DayOfWeek.TUESDAY, DayOfWeek.THURSDAY)
                .at(LocalTime.of(18, 0), Duration.ofMinutes(45), ZoneId.of("Asia/Shanghai"))
                .from(monday.plusWeeks(1)).forWeeks(8)                                 // 16 lessons at 18:00 local
                .withCost(1).withClassType("music");
        SeriesResult timetable = engine.scheduleSeries(school, term, SeriesMode.ALL_OR_NOTHING);
        // every occurrence is SCHEDULED, or CONFLICT with the slot that holds its coach or room
        engine.grantPackage(school, PackageGrant.of(PackageId.of("order-7802"), StudentId.of("xiaoming"), 16,
                clock.instant(), clock.instant().plus(Duration.ofDays(120))).forClassTypes("music"));
        SeriesBooking all = engine.bookSeries(school, RequestId.of("enrol-7802"), term.seriesId(),
                StudentId.of("xiaoming"), SeriesMode.ALL_OR_NOTHING);                  // 16 seats, 16 lessons
        Instant summerBreak = ZonedDateTime.of(monday.plusWeeks(5), LocalTime.MIDNIGHT,
                ZoneId.of("Asia/Shanghai")).toInstant();
        SeriesCancelled off = engine.cancelSeries(school, term.seriesId(), summerBreak);  // 8 lessons refunded
        // --- end ---
        int music = engine.packages(school, StudentId.of("xiaoming"), 0, 10).stream()
                .filter(p -> p.packageId().equals(PackageId.of("order-7802"))).findFirst().orElseThrow().remaining();
        List<CreditEntry> journal = engine.creditJournal(school, PackageId.of("order-7802"), 0, 100);
        check(failures, timetable.complete() && timetable.occurrences().size() == 16 && all.complete()
                && off.slots().size() == 8 && off.bookings() == 8 && music == 8 && journal.size() == 25,
                "series: " + timetable.scheduled() + " " + all.booked() + " " + off + " " + music + " " + journal.size());
        say("3. Series: " + timetable.scheduled() + " piano lessons scheduled at 18:00 Shanghai time; xiaoming"
                + " booked " + all.booked() + "; the term is cut at week 5: " + off.slots().size()
                + " lessons called off, " + off.bookings() + " bookings released, " + music
                + " lessons back on the package (" + journal.size() + " journal entries)");

        say(failures.isEmpty() ? "Every lesson rule behaved." : "Something was off: " + failures);
    }

    private static void check(List<String> failures, boolean ok, String what) {
        if (!ok) {
            failures.add(what);
        }
    }

    private static void say(String line) {
        System.out.println(line);
    }
}
