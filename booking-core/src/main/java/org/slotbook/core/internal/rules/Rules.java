package org.slotbook.core.internal.rules;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.stream.IntStream;
import org.jspecify.annotations.Nullable;
import org.slotbook.core.Availability;
import org.slotbook.core.BookedSession;
import org.slotbook.core.Booking;
import org.slotbook.core.BookingId;
import org.slotbook.core.BookingStatus;
import org.slotbook.core.CancelResult;
import org.slotbook.core.CancelSlotResult;
import org.slotbook.core.CheckInResult;
import org.slotbook.core.ConfirmResult;
import org.slotbook.core.HoldResult;
import org.slotbook.core.LeaveResult;
import org.slotbook.core.LessonPackage;
import org.slotbook.core.PackageGrant;
import org.slotbook.core.RequestId;
import org.slotbook.core.ResourceRef;
import org.slotbook.core.ScheduleResult;
import org.slotbook.core.SeriesCancelled;
import org.slotbook.core.SeriesId;
import org.slotbook.core.SeriesMode;
import org.slotbook.core.SeriesResult;
import org.slotbook.core.Slot;
import org.slotbook.core.SlotId;
import org.slotbook.core.SlotStatus;
import org.slotbook.core.StudentId;
import org.slotbook.core.TimeRange;
import org.slotbook.core.WaitlistEntry;
import org.slotbook.core.rules.Occupancy;
import org.slotbook.core.rules.RuleTx;
import org.slotbook.core.rules.StoredSlot;
import org.slotbook.core.rules.Waiter;
import org.slotbook.core.spi.HoldCommand;
import org.slotbook.core.spi.LiveSlot;
import org.slotbook.core.spi.StoreOutcome;
import org.slotbook.core.spi.Terms;

/**
 * The booking rules: every decision of a {@link org.slotbook.core.spi.BookingStore}, stated once over
 * the reads and writes of one transaction ({@link RuleTx}). The caller runs each call in one
 * transaction of the tenant and has checked the arguments; {@code now} is at microsecond precision.
 * The answers are those of {@code BookingStore}'s methods of the same name.
 *
 * <p>Locks are asked for before what they guard is read, in one order: coaches and rooms (sorted),
 * a student, then slots, then a booking or package row; a promotion locks each waiter's student after
 * the slot (the one exception: a deadlock it causes is retried by the caller). A request refused
 * before any write (an unknown slot or booking, a replay, a slot not open) takes no lock.
 */
public final class Rules {
    private static final Comparator<Slot> BY_START =
            Comparator.comparing((Slot s) -> s.time().start()).thenComparing(Slot::slotId);

    private Rules() {
    }

    // ---- decisions

    /** Schedules a slot: its coach and room locked, then taken over its padded session. */
    public static ScheduleResult schedule(RuleTx tx, StoredSlot slot) {
        return Scheduling.schedule(tx, slot);
    }

    /** Schedules a series' occurrences in order; ALL_OR_NOTHING rolls back when one conflicts. */
    public static SeriesResult scheduleSeries(RuleTx tx, SeriesId seriesId, SeriesMode mode,
                                              List<StoredSlot> occurrences) {
        return Scheduling.scheduleSeries(tx, seriesId, mode, occurrences);
    }

    /** Holds or books a seat, or puts the student on the waitlist. */
    public static StoreOutcome<HoldResult> hold(RuleTx tx, HoldCommand cmd, Instant now) {
        return written(tx, Holds.hold(tx, cmd, now));
    }

    /** Holds a seat per command (one student's), in order; ALL_OR_NOTHING rolls back unless all hold. */
    public static StoreOutcome<List<HoldResult>> holdAll(RuleTx tx, List<HoldCommand> commands, SeriesMode mode,
                                                         Instant now) {
        return written(tx, Holds.holdAll(tx, commands, mode, now));
    }

    /** Confirms the student's live hold; a hold that ran out expires instead, its seat offered to a waiter. */
    public static StoreOutcome<ConfirmResult> confirm(RuleTx tx, BookingId bookingId, StudentId studentId,
                                                      Instant now, Terms terms) {
        return written(tx, Endings.confirm(tx, bookingId, studentId, now, terms));
    }

    /** Cancels a booking (the student's, or with no student any: staff) and offers its seat to a waiter. */
    public static StoreOutcome<CancelResult> cancel(RuleTx tx, BookingId bookingId, @Nullable StudentId studentId,
                                                    Instant now, Terms terms) {
        return written(tx, Endings.cancel(tx, bookingId, studentId, now, terms));
    }

    /** Calls a slot off: every booking cancelled and refunded, every seat and occupation released. */
    public static StoreOutcome<CancelSlotResult> cancelSlot(RuleTx tx, SlotId slotId, Instant now) {
        return written(tx, Endings.cancelSlot(tx, slotId, now));
    }

    /** Calls off the open occurrences of a series that start at or after {@code from}. */
    public static StoreOutcome<SeriesCancelled> cancelSeries(RuleTx tx, SeriesId seriesId, Instant from,
                                                             Instant now) {
        return written(tx, Endings.cancelSeries(tx, seriesId, from, now));
    }

    /** Expires holds that ran out (each seat offered to a waiter), then marks no-shows when the rules do. */
    public static StoreOutcome<Integer> expireDue(RuleTx tx, Instant now, int limit, Terms terms) {
        return written(tx, Endings.expireDue(tx, now, limit, terms));
    }

    /** Checks a CONFIRMED booking in within its window (paying then under AT_CHECK_IN). */
    public static StoreOutcome<CheckInResult> checkIn(RuleTx tx, BookingId bookingId, @Nullable StudentId studentId,
                                                      Instant now, Terms terms) {
        return written(tx, CheckIns.checkIn(tx, bookingId, studentId, now, terms));
    }

    /** Takes the student's waiting entry off its slot's waitlist. */
    public static StoreOutcome<LeaveResult> leaveWaitlist(RuleTx tx, RequestId requestId, StudentId studentId,
                                                          Instant now) {
        return written(tx, Endings.leaveWaitlist(tx, requestId, studentId, now));
    }

    /** Grants a package under its student's lock, or answers the stored one of its id. */
    public static LessonPackage grantPackage(RuleTx tx, PackageGrant grant, Instant now) {
        return Credits.grant(tx, grant, now);
    }

    // ---- reads: answered without deciding anything

    /** Answers the waitlist entry of a request, with its position. */
    public static Optional<WaitlistEntry> findWaiter(RuleTx tx, RequestId requestId) {
        return tx.waiter(requestId).map(w -> Students.entry(tx, w));
    }

    /** Answers a page of the slot's WAITING entries, in order. */
    public static List<WaitlistEntry> waitlist(RuleTx tx, SlotId slotId, int offset, int limit) {
        List<Waiter> page = tx.waiting(slotId).stream().skip(offset).limit(limit).toList();
        return IntStream.range(0, page.size()).mapToObj(i -> Students.entry(tx, page.get(i), offset + i + 1)).toList();
    }

    /** Answers a page of the slot's live bookings, by seat. */
    public static List<Booking> roster(RuleTx tx, SlotId slotId, Instant now, int offset, int limit) {
        return tx.seated(slotId).stream().filter(b -> b.isLive(now)).skip(offset).limit(limit).toList();
    }

    /** Answers a page of the student's upcoming live bookings or past confirmed ones. */
    public static List<BookedSession> studentBookings(RuleTx tx, StudentId studentId, Instant now, boolean upcoming,
                                                      int offset, int limit) {
        List<BookedSession> list = new ArrayList<>();
        for (Booking b : tx.bookingsOf(studentId)) {
            Slot slot = tx.slot(b.slotId(), false).orElseThrow(() -> Seating.missing(b)).slot();
            boolean over = !slot.time().end().isAfter(now);
            if (upcoming ? !over && b.isLive(now) : over && b.status() == BookingStatus.CONFIRMED) {
                list.add(new BookedSession(b, slot));
            }
        }
        Comparator<BookedSession> order = Comparator.comparing((BookedSession s) -> s.slot().time().start())
                .thenComparing(s -> s.booking().bookingId());
        list.sort(upcoming ? order : order.reversed());
        return list.stream().skip(offset).limit(limit).toList();
    }

    /** Answers a page of the open slots of a coach or room overlapping the range, by start. */
    public static List<Slot> timetable(RuleTx tx, ResourceRef resource, TimeRange range, int offset, int limit) {
        return tx.occupations(resource, range.start(), range.end()).stream().map(Occupancy::slotId).distinct()
                .flatMap(id -> tx.slot(id, false).stream()).map(StoredSlot::slot)
                .filter(s -> s.status() == SlotStatus.OPEN && s.time().overlaps(range))
                .sorted(BY_START).skip(offset).limit(limit).toList();
    }

    /** Answers the slot's seats: held, confirmed, free. */
    public static Optional<Availability> availability(RuleTx tx, SlotId slotId, Instant now) {
        Optional<StoredSlot> found = tx.slot(slotId, false);
        if (found.isEmpty()) {
            return Optional.empty();
        }
        Slot slot = found.get().slot();
        if (slot.status() == SlotStatus.CANCELLED) {
            return Optional.of(new Availability(slotId, SlotStatus.CANCELLED, slot.capacity(), 0, 0, 0));
        }
        List<Booking> seated = tx.seated(slotId);
        int confirmed = (int) seated.stream().filter(b -> b.status() == BookingStatus.CONFIRMED).count();
        int held = (int) seated.stream().filter(b -> b.status() != BookingStatus.CONFIRMED && b.isLive(now)).count();
        return Optional.of(new Availability(slotId, slot.status(), slot.capacity(), held, confirmed,
                Math.max(0, slot.capacity() - held - confirmed)));
    }

    /** Answers the slot and its live bookings (none when it is not open). */
    public static Optional<LiveSlot> liveSlot(RuleTx tx, SlotId slotId, Instant now) {
        return tx.slot(slotId, false).map(stored -> new LiveSlot(stored.slot(),
                stored.slot().status() == SlotStatus.OPEN
                        ? tx.seated(slotId).stream().filter(b -> b.isLive(now)).toList() : List.of()));
    }

    /** Answers the series' open occurrences starting after {@code after}, by start. */
    public static List<Slot> seriesSlots(RuleTx tx, SeriesId seriesId, Instant after, int limit) {
        return tx.seriesSlots(seriesId).stream()
                .filter(s -> s.status() == SlotStatus.OPEN && s.time().start().isAfter(after))
                .sorted(BY_START).limit(limit).toList();
    }

    /** Answers a page of the student's packages, the one that runs out first first. */
    public static List<LessonPackage> packages(RuleTx tx, StudentId studentId, int offset, int limit) {
        return tx.packagesOf(studentId).stream().sorted(Credits.PACKAGE_ORDER).skip(offset).limit(limit).toList();
    }

    /** Writes the decision's events into the tenant's outbox, in its transaction: one place for every decision. */
    private static <T> StoreOutcome<T> written(RuleTx tx, StoreOutcome<T> outcome) {
        if (!outcome.events().isEmpty()) {
            tx.recordEvents(outcome.events());
        }
        return outcome;
    }
}
