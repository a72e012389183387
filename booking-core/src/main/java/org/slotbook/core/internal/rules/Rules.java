package org.slotbook.core.internal.rules;

import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.slotbook.core.Availability;
import org.slotbook.core.BookedSession;
import org.slotbook.core.Booking;
import org.slotbook.core.BookingId;
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
import org.slotbook.core.StudentId;
import org.slotbook.core.TimeRange;
import org.slotbook.core.WaitlistEntry;
import org.slotbook.core.rules.RuleTx;
import org.slotbook.core.rules.StoredSlot;
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
    private Rules() {
    }

    // ---- decisions

    /**
     * Schedules a slot: its coach and room locked, then taken over its padded session.
     *
     * @param tx   the transaction
     * @param slot the slot and its week (computed by the caller)
     * @return Scheduled (the stored slot when its id is taken already), or Conflict
     */
    public static ScheduleResult schedule(RuleTx tx, StoredSlot slot) {
        return Scheduling.schedule(tx, slot);
    }

    /**
     * Schedules a series' occurrences in order; ALL_OR_NOTHING rolls all back ({@link RuleTx#rollback})
     * when one conflicts.
     *
     * @param tx          the transaction
     * @param seriesId    the series
     * @param mode        all or nothing, or what fits
     * @param occurrences the occurrences and their weeks, in order
     * @return each occurrence's fate
     */
    public static SeriesResult scheduleSeries(RuleTx tx, SeriesId seriesId, SeriesMode mode,
                                              List<StoredSlot> occurrences) {
        return Scheduling.scheduleSeries(tx, seriesId, mode, occurrences);
    }

    /**
     * Holds or books a seat, or puts the student on the waitlist.
     *
     * @param tx  the transaction
     * @param cmd the hold
     * @param now the time of the decision
     * @return the answer, with the events of dead holds retired on the way
     */
    public static StoreOutcome<HoldResult> hold(RuleTx tx, HoldCommand cmd, Instant now) {
        return Holds.hold(tx, cmd, now);
    }

    /**
     * Holds a seat for each command (one student's), in order; ALL_OR_NOTHING rolls all back
     * ({@link RuleTx#rollback}) unless every one holds a seat.
     *
     * @param tx       the transaction
     * @param commands the holds, all of one student
     * @param mode     all or nothing, or what fits
     * @param now      the time of a command whose own {@code now} is null
     * @return one answer per command, in order
     */
    public static StoreOutcome<List<HoldResult>> holdAll(RuleTx tx, List<HoldCommand> commands, SeriesMode mode,
                                                         Instant now) {
        return Holds.holdAll(tx, commands, mode, now);
    }

    /**
     * Confirms the student's live hold; a hold that ran out expires instead, its seat offered to a waiter.
     *
     * @param tx        the transaction
     * @param bookingId the booking
     * @param studentId its student
     * @param now       the time of the decision
     * @param terms     the terms a freed seat is promoted under
     * @return the answer
     */
    public static StoreOutcome<ConfirmResult> confirm(RuleTx tx, BookingId bookingId, StudentId studentId,
                                                      Instant now, Terms terms) {
        return Endings.confirm(tx, bookingId, studentId, now, terms);
    }

    /**
     * Cancels a booking (the student's, or with no student any: staff) and offers its seat to a waiter.
     *
     * @param tx        the transaction
     * @param bookingId the booking
     * @param studentId its student, or null for staff
     * @param now       the time of the decision
     * @param terms     the cancellation policy and the terms a freed seat is promoted under
     * @return the answer
     */
    public static StoreOutcome<CancelResult> cancel(RuleTx tx, BookingId bookingId, @Nullable StudentId studentId,
                                                    Instant now, Terms terms) {
        return Endings.cancel(tx, bookingId, studentId, now, terms);
    }

    /**
     * Calls a slot off: every booking cancelled and refunded, every seat and occupation released.
     *
     * @param tx     the transaction
     * @param slotId the slot
     * @param now    the time of the decision
     * @return the answer
     */
    public static StoreOutcome<CancelSlotResult> cancelSlot(RuleTx tx, SlotId slotId, Instant now) {
        return Endings.cancelSlot(tx, slotId, now);
    }

    /**
     * Calls off the open occurrences of a series that start at or after {@code from}.
     *
     * @param tx       the transaction
     * @param seriesId the series
     * @param from     the earliest start called off
     * @param now      the time of the decision
     * @return the answer
     */
    public static StoreOutcome<SeriesCancelled> cancelSeries(RuleTx tx, SeriesId seriesId, Instant from,
                                                             Instant now) {
        return Endings.cancelSeries(tx, seriesId, from, now);
    }

    /**
     * Expires holds that ran out (each seat offered to a waiter), then marks no-shows when the rules do.
     *
     * @param tx    the transaction
     * @param now   the time of the sweep
     * @param limit the most bookings to change
     * @param terms the rules and the terms a freed seat is promoted under
     * @return how many bookings changed
     */
    public static StoreOutcome<Integer> expireDue(RuleTx tx, Instant now, int limit, Terms terms) {
        return Endings.expireDue(tx, now, limit, terms);
    }

    /**
     * Checks a CONFIRMED booking in within its window (paying then under AT_CHECK_IN).
     *
     * @param tx        the transaction
     * @param bookingId the booking
     * @param studentId its student, or null for staff
     * @param now       the time of the decision
     * @param terms     the rules
     * @return the answer
     */
    public static StoreOutcome<CheckInResult> checkIn(RuleTx tx, BookingId bookingId, @Nullable StudentId studentId,
                                                      Instant now, Terms terms) {
        return CheckIns.checkIn(tx, bookingId, studentId, now, terms);
    }

    /**
     * Takes the student's waiting entry off its slot's waitlist.
     *
     * @param tx        the transaction
     * @param requestId the waitlist request
     * @param studentId its student
     * @param now       the time of the decision
     * @return the answer
     */
    public static StoreOutcome<LeaveResult> leaveWaitlist(RuleTx tx, RequestId requestId, StudentId studentId,
                                                          Instant now) {
        return Endings.leaveWaitlist(tx, requestId, studentId, now);
    }

    /**
     * Grants a package under its student's lock, or answers the stored one of its id.
     *
     * @param tx    the transaction
     * @param grant the grant
     * @param now   the time of the grant
     * @return the package
     */
    public static LessonPackage grantPackage(RuleTx tx, PackageGrant grant, Instant now) {
        return Credits.grant(tx, grant, now);
    }

    // ---- reads

    /**
     * {@return the waitlist entry of a request, with its position}
     *
     * @param tx        the transaction
     * @param requestId the waitlist request
     */
    public static Optional<WaitlistEntry> findWaiter(RuleTx tx, RequestId requestId) {
        return Reads.waiter(tx, requestId);
    }

    /**
     * {@return a page of the slot's WAITING entries, in order}
     *
     * @param tx     the transaction
     * @param slotId the slot
     * @param offset how many to skip
     * @param limit  the most to answer
     */
    public static List<WaitlistEntry> waitlist(RuleTx tx, SlotId slotId, int offset, int limit) {
        return Reads.waitlist(tx, slotId, offset, limit);
    }

    /**
     * {@return a page of the slot's live bookings, by seat}
     *
     * @param tx     the transaction
     * @param slotId the slot
     * @param now    the time they are live at
     * @param offset how many to skip
     * @param limit  the most to answer
     */
    public static List<Booking> roster(RuleTx tx, SlotId slotId, Instant now, int offset, int limit) {
        return Reads.roster(tx, slotId, now, offset, limit);
    }

    /**
     * {@return a page of the student's upcoming live bookings (soonest first) or past confirmed ones (latest first)}
     *
     * @param tx        the transaction
     * @param studentId the student
     * @param now       the time that splits upcoming from past
     * @param upcoming  which of the two
     * @param offset    how many to skip
     * @param limit     the most to answer
     */
    public static List<BookedSession> studentBookings(RuleTx tx, StudentId studentId, Instant now, boolean upcoming,
                                                      int offset, int limit) {
        return Reads.studentBookings(tx, studentId, now, upcoming, offset, limit);
    }

    /**
     * {@return a page of the open slots of a coach or room overlapping the range, by start}
     *
     * @param tx       the transaction
     * @param resource the coach or room
     * @param range    the time range
     * @param offset   how many to skip
     * @param limit    the most to answer
     */
    public static List<Slot> timetable(RuleTx tx, ResourceRef resource, TimeRange range, int offset, int limit) {
        return Reads.timetable(tx, resource, range, offset, limit);
    }

    /**
     * {@return the slot's seats: held, confirmed, free}
     *
     * @param tx     the transaction
     * @param slotId the slot
     * @param now    the time holds are live at
     */
    public static Optional<Availability> availability(RuleTx tx, SlotId slotId, Instant now) {
        return Reads.availability(tx, slotId, now);
    }

    /**
     * {@return the slot and its live bookings (none when it is not open)}
     *
     * @param tx     the transaction
     * @param slotId the slot
     * @param now    the time holds are live at
     */
    public static Optional<LiveSlot> liveSlot(RuleTx tx, SlotId slotId, Instant now) {
        return Reads.liveSlot(tx, slotId, now);
    }

    /**
     * {@return the series' open occurrences starting after {@code after}, by start}
     *
     * @param tx       the transaction
     * @param seriesId the series
     * @param after    the start they come after
     * @param limit    the most to answer
     */
    public static List<Slot> seriesSlots(RuleTx tx, SeriesId seriesId, Instant after, int limit) {
        return Reads.seriesSlots(tx, seriesId, after, limit);
    }

    /**
     * {@return a page of the student's packages, the one that runs out first first}
     *
     * @param tx        the transaction
     * @param studentId the student
     * @param offset    how many to skip
     * @param limit     the most to answer
     */
    public static List<LessonPackage> packages(RuleTx tx, StudentId studentId, int offset, int limit) {
        return Reads.packages(tx, studentId, offset, limit);
    }
}
