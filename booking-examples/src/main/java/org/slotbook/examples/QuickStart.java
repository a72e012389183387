package org.slotbook.examples;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import org.slotbook.core.AlreadyCancelled;
import org.slotbook.core.Availability;
import org.slotbook.core.Booking;
import org.slotbook.core.BookingEngine;
import org.slotbook.core.CancelResult;
import org.slotbook.core.CoachId;
import org.slotbook.core.CreditEntry;
import org.slotbook.core.Conflict;
import org.slotbook.core.Held;
import org.slotbook.core.HoldPolicy;
import org.slotbook.core.HoldRequest;
import org.slotbook.core.HoldResult;
import org.slotbook.core.PackageGrant;
import org.slotbook.core.PackageId;
import org.slotbook.core.RequestId;
import org.slotbook.core.RoomId;
import org.slotbook.core.SlotId;
import org.slotbook.core.SlotSpec;
import org.slotbook.core.StudentId;
import org.slotbook.core.TenantId;
import org.slotbook.core.TimeRange;
import org.slotbook.core.Waitlisted;
import org.slotbook.core.memory.InMemorySeatReservation;
import org.slotbook.core.memory.InMemoryStore;

/**
 * The README's quick start, step by step: schedule, hold, confirm, a refused double booking, a
 * back-to-back booking that is allowed, a double cancel that gives back one seat, a waitlisted student
 * promoted when a seat comes free, a lesson package drawn by a booking and refunded by its cancel, a
 * reconcile.
 */
public final class QuickStart {
    private QuickStart() {
    }

    public static void main(String[] args) {
        // --- quick start (README) ---
        InMemoryStore store = InMemoryStore.create();            // or JdbcStore.create(dataSource)
        BookingEngine engine = BookingEngine.builder()
                .store(store)
                .reservation(InMemorySeatReservation.create())   // or RedisSeatReservation.create(jedis)
                .holdPolicy(HoldPolicy.ofMinutes(10))
                .build();

        TenantId gym = TenantId.of("downtown-gym");
        Instant nine = Instant.now().truncatedTo(ChronoUnit.DAYS).plus(Duration.ofDays(1)).plus(Duration.ofHours(9));
        engine.schedule(gym, new SlotSpec(SlotId.of("yoga-9am"), CoachId.of("ana"), RoomId.of("studio-1"),
                TimeRange.of(nine, Duration.ofHours(1)), 10));

        HoldResult result = engine.hold(gym, HoldRequest.of(RequestId.random(), SlotId.of("yoga-9am"),
                StudentId.of("sam")));
        if (result instanceof Held held) {
            engine.confirm(gym, held.booking().bookingId(), StudentId.of("sam"));
        }
        // --- end of quick start ---

        Booking sam = ((Held) result).booking();
        say("1. Scheduled yoga-9am (coach ana, studio-1, 10 seats); sam holds seat " + sam.seat()
                + " and confirms it: " + engine.availability(gym, SlotId.of("yoga-9am")));

        engine.schedule(gym, new SlotSpec(SlotId.of("pilates-930am"), CoachId.of("ben"), RoomId.of("studio-2"),
                TimeRange.of(nine.plus(Duration.ofMinutes(30)), Duration.ofHours(1)), 8));
        HoldResult clash = engine.hold(gym, HoldRequest.of(RequestId.random(), SlotId.of("pilates-930am"),
                StudentId.of("sam")));
        say("2. sam asks for pilates at 9:30, which overlaps his yoga: "
                + (clash instanceof Conflict c ? "refused, " + c.conflicts().get(0).kind() + " busy in slot "
                + c.conflicts().get(0).slotId() : "unexpected " + clash));

        engine.schedule(gym, new SlotSpec(SlotId.of("spin-10am"), CoachId.of("ana"), RoomId.of("studio-1"),
                TimeRange.of(nine.plus(Duration.ofHours(1)), Duration.ofHours(1)), 12));
        HoldResult next = engine.book(gym, HoldRequest.of(RequestId.random(), SlotId.of("spin-10am"),
                StudentId.of("sam")));
        say("3. spin at 10:00 starts when yoga ends (same coach, same room, same student): "
                + (next instanceof Held h ? "booked, seat " + h.booking().seat() : "unexpected " + next));

        CancelResult first = engine.cancel(gym, sam.bookingId(), StudentId.of("sam"));
        CancelResult second = engine.cancel(gym, sam.bookingId(), StudentId.of("sam"));
        say("4. sam cancels yoga twice: first " + first.getClass().getSimpleName() + ", then "
                + (second instanceof AlreadyCancelled ? "AlreadyCancelled" : second) + "; remaining "
                + (engine.availability(gym, SlotId.of("yoga-9am")) instanceof Availability seats
                        ? seats.remaining() + " of 10" : "unexpected: no such slot"));

        engine.schedule(gym, new SlotSpec(SlotId.of("boxing-6pm"), CoachId.of("max"), RoomId.of("ring"),
                TimeRange.of(nine.plus(Duration.ofHours(9)), Duration.ofHours(1)), 1));
        HoldResult kim = engine.book(gym, HoldRequest.of(RequestId.random(), SlotId.of("boxing-6pm"),
                StudentId.of("kim")));
        HoldRequest leeAsks = HoldRequest.of(RequestId.random(), SlotId.of("boxing-6pm"), StudentId.of("lee"))
                .orWaitlist();
        HoldResult lee = engine.hold(gym, leeAsks);
        Booking kims = ((Held) kim).booking();
        engine.cancel(gym, kims.bookingId(), kims.studentId());
        Booking promoted = engine.hold(gym, leeAsks) instanceof Held h ? h.booking() : null;
        say("5. boxing at 18:00 has one seat, kim has it; lee asks to wait: "
                + (lee instanceof Waitlisted w ? "waitlisted at position " + w.entry().position() : "unexpected " + lee)
                + "; kim cancels and lee is promoted in the same step: "
                + (promoted != null ? promoted.status() + ", to confirm before " + promoted.heldUntil() : "no"));

        engine.grantPackage(gym, PackageGrant.of(PackageId.of("order-1001"), StudentId.of("sam"), 10,
                nine.minus(Duration.ofDays(1)), nine.plus(Duration.ofDays(90))));     // 10 lessons, 90 days
        engine.schedule(gym, new SlotSpec(SlotId.of("crossfit-7pm"), CoachId.of("max"), RoomId.of("box"),
                TimeRange.of(nine.plus(Duration.ofHours(10)), Duration.ofHours(1)), 16).withCost(1));
        HoldResult paid = engine.book(gym, HoldRequest.of(RequestId.random(), SlotId.of("crossfit-7pm"),
                StudentId.of("sam")));
        int afterBooking = engine.packages(gym, StudentId.of("sam"), 0, 1).get(0).remaining();
        if (paid instanceof Held h) {
            engine.cancel(gym, h.booking().bookingId(), StudentId.of("sam"));
        }
        int afterCancel = engine.packages(gym, StudentId.of("sam"), 0, 1).get(0).remaining();
        List<CreditEntry> journal = engine.creditJournal(gym, PackageId.of("order-1001"), 0, 10);
        say("6. sam's package of 10 lessons pays for crossfit at 19:00 in the same step as the seat: "
                + afterBooking + " left; he cancels in time and the lesson comes back: " + afterCancel
                + " left; journal " + journal.stream().map(e -> e.reason() + " " + e.delta()).toList());

        say("7. Reconcile the gate with the ledger: " + engine.reconcileAll(gym));
        say("Done. " + (result instanceof Held && next instanceof Held && clash instanceof Conflict
                && second instanceof AlreadyCancelled && lee instanceof Waitlisted && promoted != null
                && afterBooking == 9 && afterCancel == 10 && journal.size() == 3
                ? "Every step behaved." : "Something was off."));
    }

    private static void say(String line) {
        System.out.println(line);
    }
}
