package org.slotbook.core.spi;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
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
import org.slotbook.core.CreditEntry;
import org.slotbook.core.LessonPackage;
import org.slotbook.core.PackageGrant;
import org.slotbook.core.PackageId;
import org.slotbook.core.ConfirmResult;
import org.slotbook.core.HoldResult;
import org.slotbook.core.LeaveResult;
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
import org.slotbook.core.TenantId;
import org.slotbook.core.TimeRange;
import org.slotbook.core.WaitlistEntry;

/**
 * The source of truth for slots, seats, bookings and who is busy when: the seat ledger and the
 * conflict check of one store, as one unit. Every decision is one atomic step of the store, and on a
 * database one call into it: the rules (the student's lock, the replay, the overlap check, the seat
 * claim, the booking and occupation writes) run where the data lives, and nothing the answer depends
 * on is checked beforehand by the caller.
 *
 * <p>Whatever a gate said, a seat is sold only when {@link #hold} commits. Every method is scoped to
 * its tenant: nothing of another tenant is ever read or changed.
 *
 * <h2>Time</h2>
 * A {@code now} of {@code null} asks the store to use its own clock (the database's, read once in the
 * call that acts on it); a non-null {@code now} is used as given (tests, and an engine built with an
 * explicit {@link java.time.Clock}). A HELD booking is live while {@code now < heldUntil}.
 *
 * <h2>Faults</h2>
 * Infrastructure failures surface as {@link org.slotbook.core.BookingStoreException}, never as a raw
 * driver exception, and leave nothing half-written. A store may run a call again after a deadlock
 * or serialization failure (bounded).
 *
 * <h2>Credits</h2>
 * A slot with a {@link Slot#cost() cost} is paid from the student's {@link LessonPackage} that covers
 * it ({@link LessonPackage#covers}) and still holds the cost, the one with the earliest
 * {@code validUntil} first (then the lowest package id); one package pays the whole cost. Under
 * {@link org.slotbook.core.CreditPolicy#AT_BOOKING} the step that gives a booking its seat (hold,
 * promotion) draws it (DRAW) or refuses ({@link org.slotbook.core.InsufficientCredits}; a waiter is
 * SKIPPED with NO_CREDITS); under AT_CHECK_IN it only requires such a package. A booking that holds
 * credits gives them back (REFUND) when it ends by a cancel before the cutoff, a staff cancel, a
 * cancelled slot or an expired hold; a late cancel by the student and a no-show keep them. Under
 * AT_CHECK_IN a late cancel by the student and a no-show draw the cost as a FORFEIT when a package can
 * still pay. Every movement is one journal entry, at most one of each reason per booking, and
 * {@code remaining} never goes below 0.
 *
 * <p>Implementations: {@code InMemoryStore} (booking-core), {@code JdbcStore} (booking-jdbc). A
 * third-party store passes {@code BookingStoreContract} and {@code BookingEngineContract} of the
 * core test-jar.
 */
public interface BookingStore {

    /**
     * Locks the slot's coach and room, and stores the slot with {@code capacity} free seats unless
     * one of them is busy in an overlapping session ({@link org.slotbook.core.Conflict}, nothing
     * written). A slot with this id that already exists is answered as {@link org.slotbook.core.Scheduled}
     * with the stored slot, and nothing is written: the caller compares it with what it asked for.
     *
     * The coach and the room are taken over {@link Slot#paddedTime()} (the session and its buffer), and
     * checked against the padded times of their other sessions.
     *
     * @param longestSession no stored occupation (session plus buffer) is longer than this; the overlap
     *                       search starts at {@code start - longestSession}
     * @param weekZone       the zone of the calendar week the slot counts in for
     *                       {@link org.slotbook.core.BookingRules#maxPerWeek()} (Monday 00:00 to Monday 00:00)
     * @param tenantId the tenant whose data the call reads or changes
     * @param slot the slot to store, OPEN, with its coach, room, time and capacity
     * @return {@link org.slotbook.core.Scheduled}, or the conflicts that refused it
     */
    ScheduleResult schedule(TenantId tenantId, Slot slot, Duration longestSession, ZoneId weekZone);

    /**
     * Decides one hold (or book) in one atomic step; see {@link HoldCommand}. Answers
     * {@link org.slotbook.core.Held} (new, or {@code replayed} for a request id already stored, in
     * whatever state that booking is now; the caller checks that slot and student match),
     * {@link org.slotbook.core.Waitlisted} (new, or replayed), {@link org.slotbook.core.AlreadyBooked},
     * {@link org.slotbook.core.Conflict}, {@link org.slotbook.core.LimitReached},
     * {@link org.slotbook.core.Full}, {@link org.slotbook.core.NotOpenYet},
     * {@link org.slotbook.core.BookingClosed}, {@link org.slotbook.core.SlotNotOpen} or
     * {@link org.slotbook.core.NotFound}. The rules are checked in this order, all in the one step:
     * the slot exists; it is open and not over; the booking window (a replay of a stored request is
     * answered first); the student's lock; replay; the student's live booking of the slot; overlap;
     * limits; the seat claim (a free seat; an expired hold is taken over only while nobody waits for
     * the slot); and, when no seat is left and the request asks to wait, the waitlist (the slot's row is
     * locked and the claim tried once more first, so that a seat freed meanwhile is never missed).
     *
     * @param tenantId the tenant whose data the call reads or changes
     * @param command the hold to decide
     * @return the result and the events the store wrote with it
     * @throws DuplicateBookingException when a unique key refused the write (the request id is used
     *                                   by another student); nothing was written
     */
    StoreOutcome<HoldResult> hold(TenantId tenantId, HoldCommand command);

    /**
     * Confirms the student's HELD booking while {@code now < heldUntil}; at or after it, expires the
     * hold and frees its seat (which goes to the first eligible waiter). Another student's or tenant's
     * booking answers NotFound.
     *
     * @param tenantId the tenant whose data the call reads or changes
     * @param bookingId the booking, by its id within the tenant
     * @param studentId the student the booking or entry belongs to
     * @param now the time the decision is taken at; null: the store's own clock (the database's)
     * @param terms the booking rules and hold policy in force for the call
     * @return the result and the events the store wrote with it
     */
    StoreOutcome<ConfirmResult> confirm(TenantId tenantId, BookingId bookingId, StudentId studentId,
                                        @Nullable Instant now, Terms terms);

    /**
     * Cancels the student's HELD or CONFIRMED booking and frees its seat and occupation, once, unless
     * the cancellation policy (the slot's, else {@code terms.rules()}'s) refuses it
     * ({@link org.slotbook.core.TooLateToCancel}). A cancel after the cutoff that the policy accepts is
     * {@link org.slotbook.core.Cancelled#late() late}. The policy applies to CONFIRMED bookings only: a
     * HELD booking (a hold that never became a booking) is cancelled in time whenever it is cancelled,
     * and its credits are refunded, as when it expires. A repeat answers
     * {@link org.slotbook.core.AlreadyCancelled} with the booking as its {@link StoreOutcome#subject()
     * subject}.
     *
     * <p>A freed seat goes, in the same step, to the first waiter of the slot who can take it (no
     * overlap, within limits, no booking of the slot yet), as a HELD booking until
     * {@code now + terms.holdTtl()} (a PROMOTED event); waiters passed over are SKIPPED with their
     * reason ({@link StoreOutcome#skipped()}). No promotion at or after
     * {@code start - rules.waitlistCutoff()}.
     *
     * @param studentId the student the booking must belong to; null: staff acting for the tenant (any
     *                  booking of the tenant; never refused as too late, but marked late alike)
     * @param tenantId the tenant whose data the call reads or changes
     * @param bookingId the booking, by its id within the tenant
     * @param now the time the decision is taken at; null: the store's own clock (the database's)
     * @param terms the booking rules and hold policy in force for the call
     * @return the result and the events the store wrote with it
     */
    StoreOutcome<CancelResult> cancel(TenantId tenantId, BookingId bookingId, @Nullable StudentId studentId,
                                      @Nullable Instant now, Terms terms);

    /**
     * Calls the slot off: every booking cancelled (one CANCELLED event each), every seat and occupation
     * released. Nobody is promoted; the waitlist stays as it is.
     *
     * @param tenantId the tenant whose data the call reads or changes
     * @param slotId the slot, by its id within the tenant
     * @param now the time the decision is taken at; null: the store's own clock (the database's)
     * @return the result and the events the store wrote with it
     */
    StoreOutcome<CancelSlotResult> cancelSlot(TenantId tenantId, SlotId slotId, @Nullable Instant now);

    /**
     * Expires up to {@code limit} HELD bookings of the tenant whose hold ran out and frees their seats
     * and occupations; each freed seat goes to the slot's first eligible waiter, as in {@link #cancel}.
     * Answers how many it expired, with an EXPIRED event per booking (as it is now) and a PROMOTED
     * event per promotion. Safe on several nodes at once: a booking is expired by exactly one caller.
     *
     * <p>When {@code terms.rules().marksNoShows()}, it then marks, with what is left of {@code limit},
     * CONFIRMED bookings not checked in whose check-in window closed ({@code end +
     * checkInClosesAfterEnd <= now}): attendance NO_SHOW and a NO_SHOW event (and a FORFEIT under
     * AT_CHECK_IN). The answer counts both.
     *
     * @param tenantId the tenant whose data the call reads or changes
     * @param now the time the decision is taken at; null: the store's own clock (the database's)
     * @param limit the most entries one page returns (1..1000)
     * @param terms the booking rules and hold policy in force for the call
     * @return how many holds expired, and the events written
     */
    StoreOutcome<Integer> expireDue(TenantId tenantId, @Nullable Instant now, int limit, Terms terms);

    /**
     * Takes the student's waitlist entry of this request id off the list: {@link org.slotbook.core.LeftWaitlist}
     * once, {@link org.slotbook.core.NotWaiting} when it is not waiting (any more),
     * {@link org.slotbook.core.NotFound} when there is no such entry of this student.
     *
     * @param tenantId the tenant whose data the call reads or changes
     * @param requestId the client's request id, which makes a repeat answer as the first call
     * @param studentId the student the booking or entry belongs to
     * @param now the time the decision is taken at; null: the store's own clock (the database's)
     * @return the result and the events the store wrote with it
     */
    StoreOutcome<LeaveResult> leaveWaitlist(TenantId tenantId, RequestId requestId, StudentId studentId,
                                            @Nullable Instant now);

    /**
     * {@return the waitlist entry of this request id, as it is now (its position among those waiting)}
     *
     * @param tenantId the tenant whose data the call reads or changes
     * @param requestId the client's request id, which makes a repeat answer as the first call
     */
    Optional<WaitlistEntry> findWaiter(TenantId tenantId, RequestId requestId);

    /**
     * {@return the slot's waiting entries in order, from position {@code offset + 1}, at most {@code limit}}
     *
     * @param tenantId the tenant whose data the call reads or changes
     * @param slotId the slot, by its id within the tenant
     * @param offset how many entries to skip before the page starts
     * @param limit the most entries one page returns (1..1000)
     */
    List<WaitlistEntry> waitlist(TenantId tenantId, SlotId slotId, int offset, int limit);

    /**
     * {@return the bookings holding a seat of the slot at {@code now} (CONFIRMED, and HELD with a live hold), by
     * seat, skipping {@code offset}, at most {@code limit}}
     *
     * @param tenantId the tenant whose data the call reads or changes
     * @param slotId the slot, by its id within the tenant
     * @param now the time the decision is taken at; null: the store's own clock (the database's)
     * @param offset how many entries to skip before the page starts
     * @param limit the most entries one page returns (1..1000)
     */
    List<Booking> roster(TenantId tenantId, SlotId slotId, @Nullable Instant now, int offset, int limit);

    /**
     * {@return the student's bookings with their slots} {@code upcoming}: live bookings (CONFIRMED, or HELD with
     * a live hold) of sessions that have not ended at {@code now}, soonest first; else CONFIRMED
     * bookings of sessions that ended, latest first. Skips {@code offset}, at most {@code limit}.
     *
     * @param tenantId the tenant whose data the call reads or changes
     * @param studentId the student the booking or entry belongs to
     * @param now the time the decision is taken at; null: the store's own clock (the database's)
     * @param upcoming true: live bookings of sessions not yet ended; false: confirmed bookings of past sessions
     * @param offset how many entries to skip before the page starts
     * @param limit the most entries one page returns (1..1000)
     */
    List<BookedSession> studentBookings(TenantId tenantId, StudentId studentId, @Nullable Instant now, boolean upcoming,
                                        int offset, int limit);

    /**
     * {@return the OPEN slots of a coach or room (kind COACH or ROOM) whose session overlaps {@code range}, by
     * start, skipping {@code offset}, at most {@code limit}}
     *
     * @param tenantId the tenant whose data the call reads or changes
     * @param resource the coach or room (kind COACH or ROOM)
     * @param range the time range the sessions must overlap
     * @param offset how many entries to skip before the page starts
     * @param limit the most entries one page returns (1..1000)
     */
    List<Slot> timetable(TenantId tenantId, ResourceRef resource, TimeRange range, int offset, int limit);

    /**
     * {@return the slot's seats at {@code now}, or empty when the tenant has no such slot}
     *
     * @param tenantId the tenant whose data the call reads or changes
     * @param slotId the slot, by its id within the tenant
     * @param now the time the decision is taken at; null: the store's own clock (the database's)
     */
    Optional<Availability> availability(TenantId tenantId, SlotId slotId, @Nullable Instant now);

    /**
     * {@return the slot and the bookings holding a seat of it at {@code now} (CONFIRMED, and HELD with
     * {@code now < heldUntil}), read in one consistent step; empty when there is no such slot}
     *
     * @param tenantId the tenant whose data the call reads or changes
     * @param slotId the slot, by its id within the tenant
     * @param now the time the decision is taken at; null: the store's own clock (the database's)
     */
    Optional<LiveSlot> liveSlot(TenantId tenantId, SlotId slotId, @Nullable Instant now);

    /**
     * {@return the booking with this id, or empty}
     *
     * @param tenantId the tenant whose data the call reads or changes
     * @param bookingId the booking, by its id within the tenant
     */
    Optional<Booking> findBooking(TenantId tenantId, BookingId bookingId);

    /**
     * {@return the booking made under this request id, or empty}
     *
     * @param tenantId the tenant whose data the call reads or changes
     * @param requestId the client's request id, which makes a repeat answer as the first call
     */
    Optional<Booking> findByRequest(TenantId tenantId, RequestId requestId);

    /**
     * {@return up to {@code limit} slots of the tenant in slot id order, after {@code after} (null: from the
     * first)}
     *
     * @param tenantId the tenant whose data the call reads or changes
     * @param after the last entry of the page before (null: from the first)
     * @param limit the most entries one page returns (1..1000)
     */
    List<Slot> slots(TenantId tenantId, @Nullable SlotId after, int limit);

    /**
     * {@return up to {@code limit} tenants that have at least one slot, in tenant id order (the binary order
     * of the id's characters), after {@code after} (null: from the first)} The one read that spans
     * tenants: it names them and reads nothing else of theirs. Upkeep pages through it
     * ({@link org.slotbook.core.ReconciliationJob} without a tenant list); a page is read in one
     * step, and a tenant whose first slot commits after the page was read shows up on a later run.
     *
     * @param after the last entry of the page before (null: from the first)
     * @param limit the most entries one page returns (1..1000)
     */
    List<TenantId> tenants(@Nullable TenantId after, int limit);

    // ---------------------------------------------------------------------------------------------
    // lesson packages, attendance, weekly series. A store without them answers
    // UnsupportedOperationException (the defaults).

    /**
     * Grants the student a package: stores it with {@code remaining = credits} and its GRANT journal
     * entry, in one step. A package id that already exists is answered with the stored package and
     * nothing is written: the caller compares it with what it asked for.
     *
     * @param now the grant's instant, or null for the store's own clock
     * @param tenantId the tenant whose data the call reads or changes
     * @param grant the package to grant: its student, credits and validity
     * @return the package as stored
     */
    default LessonPackage grantPackage(TenantId tenantId, PackageGrant grant, @Nullable Instant now) {
        throw new UnsupportedOperationException(getClass().getSimpleName() + " does not keep lesson packages");
    }

    /**
     * {@return the student's packages, by {@code validUntil} then package id, skipping {@code offset}, at most
     * {@code limit}}
     *
     * @param tenantId the tenant whose data the call reads or changes
     * @param studentId the student the booking or entry belongs to
     * @param offset how many entries to skip before the page starts
     * @param limit the most entries one page returns (1..1000)
     */
    default List<LessonPackage> packages(TenantId tenantId, StudentId studentId, int offset, int limit) {
        throw new UnsupportedOperationException(getClass().getSimpleName() + " does not keep lesson packages");
    }

    /**
     * {@return the package's journal in the order it was written, skipping {@code offset}, at most {@code
     * limit}}
     *
     * @param tenantId the tenant whose data the call reads or changes
     * @param packageId the lesson package
     * @param offset how many entries to skip before the page starts
     * @param limit the most entries one page returns (1..1000)
     */
    default List<CreditEntry> creditJournal(TenantId tenantId, PackageId packageId, int offset, int limit) {
        throw new UnsupportedOperationException(getClass().getSimpleName() + " does not keep lesson packages");
    }

    /**
     * Checks a CONFIRMED booking in, once, within {@code [start - rules.checkInOpensBefore, end +
     * rules.checkInClosesAfterEnd)}: attendance CHECKED_IN and a CHECKED_IN event. Under
     * {@link org.slotbook.core.CreditPolicy#AT_CHECK_IN}, a booking of a slot with a cost that holds no
     * credits draws them here (DRAW), or answers {@link org.slotbook.core.InsufficientCredits} and
     * changes nothing. A repeat answers {@code CheckedIn(replayed)}.
     *
     * @param studentId the student the booking must belong to; null: staff acting for the tenant
     * @param tenantId the tenant whose data the call reads or changes
     * @param bookingId the booking, by its id within the tenant
     * @param now the time the decision is taken at; null: the store's own clock (the database's)
     * @param terms the booking rules and hold policy in force for the call
     * @return the result and the events the store wrote with it
     */
    default StoreOutcome<CheckInResult> checkIn(TenantId tenantId, BookingId bookingId, @Nullable StudentId studentId,
                                                @Nullable Instant now, Terms terms) {
        throw new UnsupportedOperationException(getClass().getSimpleName() + " does not record attendance");
    }

    /**
     * Schedules the occurrences of a series (each with {@link Slot#seriesId()} set, in time order) in
     * one step, each as {@link #schedule} would, one after the other (so an occurrence may conflict
     * with an earlier one of the same call). ALL_OR_NOTHING writes nothing when one conflicts, and
     * answers the others ROLLED_BACK. An occurrence whose slot id exists is SCHEDULED with the stored
     * slot (the caller compares).
     *
     * @param tenantId the tenant whose data the call reads or changes
     * @param seriesId the weekly series
     * @param mode whether every part must succeed, or each that can
     * @param occurrences the slots of the series, one per occurrence
     * @param longestSession the longest session the store may hold, how far back the overlap check looks
     * @param weekZone the zone of the tenant's calendar weeks, for the weekly limit
     * @return the occurrences scheduled, and the conflicts
     */
    default SeriesResult scheduleSeries(TenantId tenantId, SeriesId seriesId, SeriesMode mode, List<Slot> occurrences,
                                        Duration longestSession, ZoneId weekZone) {
        throw new UnsupportedOperationException(getClass().getSimpleName() + " does not schedule series");
    }

    /**
     * Cancels, as {@link #cancelSlot} does, every OPEN occurrence of the series that starts at or after
     * {@code from}, in one step: one CANCELLED event per booking released (credits refunded).
     *
     * @param tenantId the tenant whose data the call reads or changes
     * @param seriesId the weekly series
     * @param from from this instant on
     * @param now the time the decision is taken at; null: the store's own clock (the database's)
     * @return the occurrences called off, and the events written
     */
    default StoreOutcome<SeriesCancelled> cancelSeries(TenantId tenantId, SeriesId seriesId, Instant from,
                                                       @Nullable Instant now) {
        throw new UnsupportedOperationException(getClass().getSimpleName() + " does not schedule series");
    }

    /**
     * {@return the OPEN occurrences of the series that start after {@code after} (null: the store's now), by
     * start, at most {@code limit}}
     *
     * @param tenantId the tenant whose data the call reads or changes
     * @param seriesId the weekly series
     * @param after the last entry of the page before (null: from the first)
     * @param limit the most entries one page returns (1..1000)
     */
    default List<Slot> seriesSlots(TenantId tenantId, SeriesId seriesId, @Nullable Instant after, int limit) {
        throw new UnsupportedOperationException(getClass().getSimpleName() + " does not schedule series");
    }

    /**
     * Decides several holds of one student in one atomic step, each as {@link #hold} would, one after
     * the other; answers one result per command, in order. A command succeeds when it answers
     * {@link org.slotbook.core.Held} with a HELD or CONFIRMED booking (new, or a replay). ALL_OR_NOTHING:
     * when one does not succeed, nothing is written and no event told; the results are those of the
     * attempt (the caller treats the successes as rolled back).
     *
     * @param tenantId the tenant whose data the call reads or changes
     * @param commands the holds, each as hold would decide it
     * @param mode whether every part must succeed, or each that can
     * @return each hold's result, and the events written
     */
    default StoreOutcome<List<HoldResult>> holdAll(TenantId tenantId, List<HoldCommand> commands, SeriesMode mode) {
        throw new UnsupportedOperationException(getClass().getSimpleName() + " does not book series");
    }

    /**
     * {@return the store's outbox: the events its decisions wrote with them, and their delivery; null
     * when the store keeps none (the engine then only tells the listener right after each commit)}
     */
    default @Nullable OutboxStore outbox() {
        return null;
    }
}
