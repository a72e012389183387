package org.slotbook.examples;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.DayOfWeek;
import java.time.LocalDate;
import java.time.temporal.TemporalAdjusters;
import java.util.ArrayList;
import java.util.List;
import org.slotbook.core.Booking;
import org.slotbook.core.BookingEngine;
import org.slotbook.core.BookingListener;
import org.slotbook.core.BookingRules;
import org.slotbook.core.CancelResult;
import org.slotbook.core.CancellationPolicy;
import org.slotbook.core.Cancelled;
import org.slotbook.core.CoachId;
import org.slotbook.core.Conflict;
import org.slotbook.core.Held;
import org.slotbook.core.HoldPolicy;
import org.slotbook.core.HoldRequest;
import org.slotbook.core.HoldResult;
import org.slotbook.core.LimitReached;
import org.slotbook.core.NotOpenYet;
import org.slotbook.core.RequestId;
import org.slotbook.core.ResourceRef;
import org.slotbook.core.RoomId;
import org.slotbook.core.ScheduleResult;
import org.slotbook.core.Slot;
import org.slotbook.core.SlotId;
import org.slotbook.core.SlotSpec;
import org.slotbook.core.StudentId;
import org.slotbook.core.TenantId;
import org.slotbook.core.TimeRange;
import org.slotbook.core.TooLateToCancel;
import org.slotbook.core.WaitlistEntry;
import org.slotbook.core.Waitlisted;
import org.slotbook.core.memory.InMemorySeatReservation;
import org.slotbook.core.memory.InMemoryStore;

/**
 * The booking rules of docs/guides/booking-rules.md, one region each (booking window, cancellation policy, buffers,
 * limits, waitlist, reads), run in order on an in-memory store behind the in-memory gate. Between
 * regions the example moves its own clock, so that the run shows each rule at work; a real service
 * leaves the clock to the database.
 */
public final class Rules {
    private Rules() {
    }

    public static void main(String[] args) {
        Instant saturday8am = LocalDate.now(ZoneOffset.UTC).with(TemporalAdjusters.next(DayOfWeek.SATURDAY))
                .atTime(8, 0).toInstant(ZoneOffset.UTC);
        Instant saturday10am = saturday8am.plus(Duration.ofHours(2));
        Instant sunday10am = saturday10am.plus(Duration.ofDays(1));
        ManualClock clock = new ManualClock(saturday8am.minus(Duration.ofDays(1)));
        List<Booking> promotedToHost = new ArrayList<>();
        BookingListener notifyStudents = new BookingListener() {
            @Override
            public void promoted(Booking booking) {
                promotedToHost.add(booking);
            }
        };
        TenantId chain = TenantId.of("sunrise-fitness");
        List<String> failures = new ArrayList<>();

        // --- rules: engine (README) ---
        BookingRules rules = BookingRules.defaults()
                .withCancellation(CancellationPolicy.refuseWithin(Duration.ofHours(12)))  // free until 12 h before
                .withMaxUpcoming(5)                                                     // 5 upcoming bookings
                .withMaxPerWeek(3, ZoneId.of("Asia/Shanghai"))                          // 3 a week, local weeks
                .withWaitlistCutoff(Duration.ofHours(1));                               // no promotion in the last hour
        BookingEngine engine = BookingEngine.builder()
                .store(InMemoryStore.create())
                .reservation(InMemorySeatReservation.create(clock))
                .holdPolicy(HoldPolicy.ofMinutes(10))
                .rules(rules)                          // or .rules(tenant -> rulesOf(tenant))
                .listener(notifyStudents)              // promoted(booking): tell the student to confirm
                .clock(clock)                          // this demo moves time; leave it to the database
                .build();
        // --- end ---

        // --- rules: booking window (README) ---
        SlotSpec starClass = new SlotSpec(SlotId.of("li-sat-10am"), CoachId.of("li"), RoomId.of("hall-a"),
                TimeRange.of(sunday10am, Duration.ofHours(1)), 2)
                .withBookingWindow(saturday8am, sunday10am.minus(Duration.ofMinutes(30)));
        engine.schedule(chain, starClass);
        HoldResult early = engine.hold(chain, HoldRequest.of(RequestId.random(), starClass.slotId(),
                StudentId.of("wang")));
        // early is NotOpenYet(opensAt = Saturday 08:00): answered without a seat or a row
        // --- end ---
        check(failures, early instanceof NotOpenYet n && n.opensAt().equals(saturday8am), "window: " + early);
        say("1. Booking window: a hold a day early is " + early);

        clock.set(saturday8am);
        // --- rules: waitlist (README) ---
        HoldResult wang = engine.book(chain, HoldRequest.of(RequestId.random(), starClass.slotId(),
                StudentId.of("wang")));
        HoldResult zhao = engine.book(chain, HoldRequest.of(RequestId.random(), starClass.slotId(),
                StudentId.of("zhao")));
        HoldRequest chenAsks = HoldRequest.of(RequestId.random(), starClass.slotId(), StudentId.of("chen"))
                .orWaitlist();                                          // full? put me in line
        HoldResult chen = engine.hold(chain, chenAsks);                 // Waitlisted, position 1
        Booking wangs = ((Held) wang).booking();
        engine.cancel(chain, wangs.bookingId(), wangs.studentId());     // chen gets the seat in the same step:
        // a HELD booking under chenAsks' request id; the listener hears promoted(booking)
        // --- end ---
        Booking promoted = engine.hold(chain, chenAsks) instanceof Held h ? h.booking() : null;
        if (promoted != null) {
            engine.confirm(chain, promoted.bookingId(), promoted.studentId());
        }
        check(failures, zhao instanceof Held && chen instanceof Waitlisted w && w.entry().position() == 1
                && promoted != null && promotedToHost.size() == 1, "waitlist");
        say("2. Waitlist: chen waited at position " + ((Waitlisted) chen).entry().position()
                + "; wang cancelled and chen was promoted: " + (promoted == null ? "no" : promoted.status()
                + " until " + promoted.heldUntil()));

        clock.set(sunday10am.minus(Duration.ofHours(1)));
        // --- rules: cancellation (README) ---
        Booking zhaos = ((Held) zhao).booking();
        CancelResult tooLate = engine.cancel(chain, zhaos.bookingId(), zhaos.studentId());
        // tooLate is TooLateToCancel(cutoff = 22:00 the evening before); the seat stays zhao's
        CancelResult byDesk = engine.cancelByStaff(chain, zhaos.bookingId());
        // the front desk may still cancel: Cancelled with late() == true, so the host can charge for it
        // --- end ---
        check(failures, tooLate instanceof TooLateToCancel && byDesk instanceof Cancelled c && c.late(),
                "cancellation: " + tooLate + " / " + byDesk);
        say("3. Cancellation policy: zhao an hour before is " + tooLate.getClass().getSimpleName()
                + "; the front desk's cancel is late=" + ((Cancelled) byDesk).late());

        // --- rules: buffers (README) ---
        engine.schedule(chain, new SlotSpec(SlotId.of("hot-yoga-6pm"), CoachId.of("mei"), RoomId.of("hot-room"),
                TimeRange.of(saturday10am.plus(Duration.ofHours(8)), Duration.ofHours(1)), 12)
                .withBuffer(Duration.ofMinutes(15)));                   // the room needs 15 min to cool down
        ScheduleResult tooSoon = engine.schedule(chain, new SlotSpec(SlotId.of("hot-yoga-7pm"), CoachId.of("jun"),
                RoomId.of("hot-room"), TimeRange.of(saturday10am.plus(Duration.ofHours(9)), Duration.ofHours(1)), 12));
        // tooSoon is a Conflict on ROOM hot-room; at 19:15 it would be scheduled
        // --- end ---
        check(failures, tooSoon instanceof Conflict, "buffers: " + tooSoon);
        say("4. Buffers: a 19:00 class in the hot room after an 18:00 one with 15 minutes of turnover: "
                + tooSoon.getClass().getSimpleName());

        // --- rules: limits (README) ---
        HoldResult fourth = null;
        for (int day = 0; day < 4; day++) {
            SlotSpec morning = new SlotSpec(SlotId.of("spin-" + day), CoachId.of("kai"), RoomId.of("spin-room"),
                    TimeRange.of(saturday10am.plus(Duration.ofDays(2 + day)), Duration.ofHours(1)), 20);
            engine.schedule(chain, morning);
            fourth = engine.book(chain, HoldRequest.of(RequestId.random(), morning.slotId(), StudentId.of("liu")));
        }
        // Monday to Wednesday book; Thursday is LimitReached(WEEKLY, 3) (weeks in Asia/Shanghai)
        // --- end ---
        check(failures, fourth instanceof LimitReached l && l.limit() == LimitReached.Limit.WEEKLY, "limits: " + fourth);
        say("5. Limits: liu's fourth class in one week: " + fourth);

        // --- rules: reads (README) ---
        List<Booking> roster = engine.roster(chain, starClass.slotId(), 0, 50);            // who is in the class
        List<WaitlistEntry> line = engine.waitlist(chain, starClass.slotId(), 0, 50);      // and who waits
        var upcoming = engine.bookingsOf(chain, StudentId.of("liu"), true, 0, 20);         // liu's next classes
        List<Slot> kaisWeek = engine.timetable(chain, ResourceRef.of(CoachId.of("kai")),
                TimeRange.of(saturday10am, Duration.ofDays(7)), 0, 50);                    // kai's timetable
        // --- end ---
        check(failures, roster.size() == 1 && line.isEmpty() && upcoming.size() == 3 && kaisWeek.size() == 4,
                "reads: " + roster.size() + " " + line.size() + " " + upcoming.size() + " " + kaisWeek.size());
        say("6. Reads: the star class has " + roster.size() + " in it and " + line.size() + " waiting; liu has "
                + upcoming.size() + " upcoming; kai teaches " + kaisWeek.size() + " classes this week");

        say(failures.isEmpty() ? "Every rule behaved." : "Something was off: " + failures);
    }

    private static void check(List<String> failures, boolean ok, String what) {
        if (!ok) {
            failures.add(what);
        }
    }

    private static void say(String line) {
        System.out.println(line);
    }

    /** The demo's clock, moved by hand between the steps. */
    static final class ManualClock extends Clock {
        private volatile Instant now;

        ManualClock(Instant start) {
            this.now = start;
        }

        void set(Instant instant) {
            now = instant;
        }

        @Override
        public Instant instant() {
            return now;
        }

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }
    }
}
