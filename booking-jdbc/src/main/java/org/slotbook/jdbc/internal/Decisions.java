package org.slotbook.jdbc.internal;

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
import org.slotbook.core.ConfirmResult;
import org.slotbook.core.CreditEntry;
import org.slotbook.core.HoldResult;
import org.slotbook.core.LeaveResult;
import org.slotbook.core.LessonPackage;
import org.slotbook.core.PackageGrant;
import org.slotbook.core.PackageId;
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
import org.slotbook.core.spi.BookingStore;
import org.slotbook.core.spi.HoldCommand;
import org.slotbook.core.spi.LiveSlot;
import org.slotbook.core.spi.StoreOutcome;
import org.slotbook.core.spi.Terms;

/**
 * The {@link BookingStore} over JDBC: each decision is one call of its database routine (a PL/pgSQL
 * function, a MariaDB procedure, an H2 Java alias), whose fact rows become answers; each read is one
 * statement. The rules themselves live in the routines, not here. This class hands each call to the
 * family that makes it: {@link ScheduleDecisions} (schedule, schedule_series), {@link HoldDecisions}
 * (hold, hold_batch, hold_all), {@link CancelDecisions} (confirm, cancel, cancel_slot, cancel_series),
 * {@link LessonDecisions} (expire_due, check_in, leave_waitlist, grant_package) and {@link Reads}; the
 * checks and encodings they share are in {@link Params}.
 *
 * <h2>The routines</h2>
 * Every routine answers the 20 fact columns of {@link Facts} (the answer row first, then the events in
 * the order they happened). Parameters in this order (H2 aliases take the table prefix first);
 * {@code now} NULL means the database clock, read once per call; durations are BIGINT microseconds
 * unless named {@code _seconds}. The promotion terms {@code TERMS} are the six parameters
 * {@code hold_micros, longest_micros, max_upcoming INT, max_week INT, waitlist_cutoff_micros,
 * credit_policy VARCHAR} ({@code 'AT_BOOKING'} or {@code 'AT_CHECK_IN'}).
 *
 * <h3>Credits (every routine that seats, frees or checks in)</h3>
 * A slot with {@code cost > 0} is paid by the student's {@code lesson_package} that covers it
 * ({@code valid_from <= slot.starts_at < valid_until}; {@code class_types = ''} or the slot's
 * {@code class_type} is one of its comma-separated types) and has {@code remaining >= cost}: the one
 * with the earliest {@code valid_until}, then the lowest {@code package_id}. Drawing: lock that package
 * row, re-check {@code remaining >= cost} under the lock, {@code remaining -= cost}, insert a
 * credit_entry (reason DRAW or FORFEIT, delta {@code -cost}, the booking's id and request id, at = now)
 * and set the booking's {@code package_id, credits = cost}. Refund (a booking with {@code credits > 0}
 * that ends by a timely cancel, a staff cancel, a cancelled slot or an expired hold): package
 * {@code remaining += credits}, entry REFUND {@code +credits}, booking {@code package_id = NULL,
 * credits = 0}. A unique key on (tenant_id, booking_id, reason) refuses a second entry of a reason.
 * <ul>
 *   <li>AT_BOOKING: the step that gives a seat (hold, promotion) draws (DRAW); no payer: hold answers
 *       INSUFFICIENT_CREDITS (slot_id, seat = cost; nothing written but what retiring dead holds wrote
 *       before, whose events follow), a waiter is SKIPPED with reason NO_CREDITS. A late cancel by the
 *       student and a no-show keep the credits.</li>
 *   <li>AT_CHECK_IN: hold and promotion only require a payer (same answers without one) and draw
 *       nothing; check_in draws (DRAW); a late cancel by the student and a no-show draw a FORFEIT when
 *       the booking holds no credits and a payer exists (else nothing).</li>
 *   <li>The payer check of hold comes after the dead holds of the student are retired (step 10 of
 *       hold) and before the seat claim and the waitlist: a waitlist place needs a payer too.</li>
 *   <li>Dead holds: wherever no package can pay (hold, promotion, check_in, forfeit), the credits the
 *       student's dead holds (HELD, {@code held_until <= now}, any slot) hold are refunded first, each
 *       under its seat row's lock and checked again there (REFUND entry; the hold stays HELD holding
 *       none, for the sweep or a takeover to expire), and the payer is looked for once more.</li>
 *   <li>Cancel: only a CONFIRMED booking can be late (or refused as too late); a HELD one is cancelled
 *       in time and refunded.</li>
 * </ul>
 *
 * <h3>Changed routines</h3>
 * <ul>
 *   <li>{@code schedule(tenant, slot, coach, room, start, end, capacity INT, longest_micros, opens_at,
 *       closes_at, buffer_seconds INT, cancel_policy, cancel_cutoff_seconds INT, week_start, week_end,
 *       buffer_students BOOLEAN, class_type VARCHAR, cost INT, series_id VARCHAR)}: 19 parameters (three
 *       new at the end, stored in slot.class_type, cost, series_id). Answers as before (SCHEDULED, EXISTS,
 *       CONFLICT rows); slot rows carry ref_id = class_type, amount = cost, note = series_id.</li>
 *   <li>{@code hold(tenant, booking, request, slot, student, status, now, hold_micros, longest_micros,
 *       gate_held, waitlist, max_upcoming, max_week, waitlist_cutoff_micros, credit_policy)}: 15
 *       parameters; new answer INSUFFICIENT_CREDITS; draws under AT_BOOKING (the new booking's row and
 *       EV_HELD/EV_CONFIRMED show package_id and credits); a dead hold it retires or takes over is
 *       refunded; its promotions pay as above.</li>
 *   <li>{@code confirm(tenant, booking, student, now, TERMS)}: 10 parameters; an expired hold is refunded.</li>
 *   <li>{@code cancel(tenant, booking, student, now, cancel_policy, cancel_cutoff_micros, TERMS)}: 12
 *       parameters. A student's (student not NULL) cancel of a booking whose attendance is not NONE
 *       answers TOO_LATE with held_until = the slot's start, changing nothing. A late cancel by the
 *       student keeps the credits (AT_BOOKING) or forfeits (AT_CHECK_IN); any other cancel and a retired
 *       expired hold refund.</li>
 *   <li>{@code cancel_slot(tenant, slot, now)}: unchanged parameters; every booking it cancels is
 *       refunded (EV_CANCELLED rows show the booking after the refund).</li>
 *   <li>{@code expire_due(tenant, now, limit, TERMS, marks_no_shows BOOLEAN, check_in_closes_micros)}:
 *       11 parameters. First expires up to {@code limit} dead holds as before (refunded). Then, when
 *       marks_no_shows, marks with what is left of {@code limit} the tenant's CONFIRMED bookings with
 *       attendance NONE whose slot has {@code ends_at + check_in_closes_micros <= now}: attendance
 *       NO_SHOW, updated_at = now, the AT_CHECK_IN forfeit, one EV_NO_SHOW row each (booking after the
 *       change). Safe with concurrent sweepers: lock the booking's seat row (after its slot row), then
 *       re-check status CONFIRMED and attendance NONE.</li>
 *   <li>{@code leave_waitlist(tenant, request, student, now)}: unchanged but for the 20 columns.</li>
 *   <li>promotion (inside hold, confirm, cancel, expire_due): a waiter whose student has no payer is
 *       SKIPPED with reason NO_CREDITS (checked after ALREADY_BOOKED, CONFLICT, LIMIT); under
 *       AT_BOOKING the promoted booking draws (EV_PROMOTED shows it paid).</li>
 * </ul>
 *
 * <h3>New routines</h3>
 * <ul>
 *   <li>{@code grant_package(tenant, package, student, credits INT, valid_from, valid_until,
 *       class_types VARCHAR, now)}: class_types sorted, joined by ',' ('' for any session). A package id
 *       the tenant has: PACKAGE_EXISTS with the stored package, nothing written. Else inserts the package
 *       with remaining = credits, granted_at = now, and the GRANT entry (delta +credits, booking and
 *       request NULL, at = now); answers GRANTED with it (a concurrent grant of the same id that won:
 *       PACKAGE_EXISTS).</li>
 *   <li>{@code check_in(tenant, booking, student, now, opens_before_micros, closes_after_micros,
 *       credit_policy)}: NOT_FOUND (no booking, or another student's when student is not NULL);
 *       NOT_CONFIRMED (the booking, status not CONFIRMED); CHECKED_IN_REPLAY (the booking, attendance
 *       CHECKED_IN already); CHECK_IN_CLOSED (booking_id, held_until = end + closes_after) when marked
 *       NO_SHOW or {@code now >= end + closes_after}; CHECK_IN_NOT_OPEN (booking_id, held_until = start -
 *       opens_before) when {@code now < start - opens_before}; under AT_CHECK_IN with cost &gt; 0 and
 *       booking credits 0: draws (DRAW) or answers INSUFFICIENT_CREDITS (slot_id, seat = cost) changing
 *       nothing; then attendance CHECKED_IN, updated_at = now: CHECKED_IN plus one EV_CHECKED_IN (both
 *       the booking after it). Lock order: the student's lock, then the booking's seat row, then the
 *       package; the checks are made after the locks.</li>
 *   <li>{@code schedule_series(tenant, series, mode, longest_micros, occurrences TEXT)}: mode
 *       'ALL_OR_NOTHING' or 'BEST_EFFORT'. occurrences: records separated by U+001E, fields by U+001F,
 *       16 fields each: slot_id, coach_id, room_id, start, end, capacity, opens_at, closes_at,
 *       buffer_seconds, cancel_policy, cancel_cutoff_seconds, week_start, week_end, buffer_students
 *       ('1' or '0'), class_type, cost; instants as microseconds since the epoch (UTC), an empty field is
 *       NULL. Schedules each occurrence in order exactly as schedule (with series_id = series), answering
 *       its rows: SCHEDULED or EXISTS (slot row), or its CONFLICT rows with request_id = the occurrence's
 *       slot id. ALL_OR_NOTHING and one occurrence CONFLICT: every write of the call is undone (the rows
 *       answered stay as they were; the caller reports the others ROLLED_BACK).</li>
 *   <li>{@code cancel_series(tenant, series, from, now)}: every OPEN slot of the series with
 *       {@code starts_at >= from}, by start then slot id, cancelled as cancel_slot does: per slot a
 *       SLOT_CANCELLED slot row (status CANCELLED) followed by its EV_CANCELLED rows (refunded). None: no
 *       rows.</li>
 *   <li>{@code hold_all(tenant, mode, commands TEXT)}: commands encoded like occurrences, 14 fields each:
 *       booking_id, request_id, slot_id, student_id, status, now (empty: the database clock, read per
 *       command), hold_micros, longest_micros, gate_held ('1'/'0'), waitlist ('1'/'0'), max_upcoming,
 *       max_week, waitlist_cutoff_micros, credit_policy. Runs hold for each command in order; every row
 *       of command n (1-based) has capacity = n. A command succeeds when it answers HELD, or REPLAY of a
 *       HELD or CONFIRMED booking. ALL_OR_NOTHING and one does not succeed: every write of the call is
 *       undone (rows answered as attempted). A unique violation fails the whole call.</li>
 * </ul>
 * Reads (one statement each, {@link SqlDialect}): packages, credit journal, series slots.
 */
public final class Decisions implements BookingStore {
    private final ScheduleDecisions schedules;
    private final HoldDecisions holds;
    private final CancelDecisions cancels;
    private final LessonDecisions lessons;
    private final Reads reads;

    /**
     * @param holdLanes how many {@code hold_batch} calls of concurrent holds may run at once (PostgreSQL, MariaDB);
     *                  0, or another dialect: each hold is a call of its own
     */
    public Decisions(StoreCore core, int holdLanes) {
        this.schedules = new ScheduleDecisions(core);
        this.holds = new HoldDecisions(core, holdLanes);
        this.cancels = new CancelDecisions(core);
        this.lessons = new LessonDecisions(core);
        this.reads = new Reads(core);
    }

    /** How many batches of concurrent holds may run at once; 0 when each hold is a call of its own. */
    public int holdLanes() {
        return holds.holdLanes();
    }

    @Override
    public ScheduleResult schedule(TenantId tenantId, Slot slot, Duration longestSession, ZoneId weekZone) {
        return schedules.schedule(tenantId, slot, longestSession, weekZone);
    }

    @Override
    public StoreOutcome<HoldResult> hold(TenantId tenantId, HoldCommand cmd) {
        return holds.hold(tenantId, cmd);
    }

    @Override
    public StoreOutcome<ConfirmResult> confirm(TenantId tenantId, BookingId bookingId, StudentId studentId,
                                               @Nullable Instant now, Terms terms) {
        return cancels.confirm(tenantId, bookingId, studentId, now, terms);
    }

    @Override
    public StoreOutcome<CancelResult> cancel(TenantId tenantId, BookingId bookingId, @Nullable StudentId studentId,
                                             @Nullable Instant now, Terms terms) {
        return cancels.cancel(tenantId, bookingId, studentId, now, terms);
    }

    @Override
    public StoreOutcome<CancelSlotResult> cancelSlot(TenantId tenantId, SlotId slotId, @Nullable Instant now) {
        return cancels.cancelSlot(tenantId, slotId, now);
    }

    @Override
    public StoreOutcome<Integer> expireDue(TenantId tenantId, @Nullable Instant now, int limit, Terms terms) {
        return lessons.expireDue(tenantId, now, limit, terms);
    }

    @Override
    public StoreOutcome<LeaveResult> leaveWaitlist(TenantId tenantId, RequestId requestId, StudentId studentId,
                                                   @Nullable Instant now) {
        return lessons.leaveWaitlist(tenantId, requestId, studentId, now);
    }

    @Override
    public Optional<WaitlistEntry> findWaiter(TenantId tenantId, RequestId requestId) {
        return reads.findWaiter(tenantId, requestId);
    }

    @Override
    public List<WaitlistEntry> waitlist(TenantId tenantId, SlotId slotId, int offset, int limit) {
        return reads.waitlist(tenantId, slotId, offset, limit);
    }

    @Override
    public List<Booking> roster(TenantId tenantId, SlotId slotId, @Nullable Instant now, int offset, int limit) {
        return reads.roster(tenantId, slotId, now, offset, limit);
    }

    @Override
    public List<BookedSession> studentBookings(TenantId tenantId, StudentId studentId, @Nullable Instant now,
                                               boolean upcoming, int offset, int limit) {
        return reads.studentBookings(tenantId, studentId, now, upcoming, offset, limit);
    }

    @Override
    public List<Slot> timetable(TenantId tenantId, ResourceRef resource, TimeRange range, int offset, int limit) {
        return reads.timetable(tenantId, resource, range, offset, limit);
    }

    @Override
    public Optional<Availability> availability(TenantId tenantId, SlotId slotId, @Nullable Instant now) {
        return reads.availability(tenantId, slotId, now);
    }

    @Override
    public Optional<LiveSlot> liveSlot(TenantId tenantId, SlotId slotId, @Nullable Instant now) {
        return reads.liveSlot(tenantId, slotId, now);
    }

    @Override
    public Optional<Booking> findBooking(TenantId tenantId, BookingId bookingId) {
        return reads.findBooking(tenantId, bookingId);
    }

    @Override
    public Optional<Booking> findByRequest(TenantId tenantId, RequestId requestId) {
        return reads.findByRequest(tenantId, requestId);
    }

    @Override
    public List<Slot> slots(TenantId tenantId, @Nullable SlotId after, int limit) {
        return reads.slots(tenantId, after, limit);
    }

    @Override
    public List<TenantId> tenants(@Nullable TenantId after, int limit) {
        return reads.tenants(after, limit);
    }

    @Override
    public LessonPackage grantPackage(TenantId tenantId, PackageGrant grant, @Nullable Instant now) {
        return lessons.grantPackage(tenantId, grant, now);
    }

    @Override
    public List<LessonPackage> packages(TenantId tenantId, StudentId studentId, int offset, int limit) {
        return reads.packages(tenantId, studentId, offset, limit);
    }

    @Override
    public List<CreditEntry> creditJournal(TenantId tenantId, PackageId packageId, int offset, int limit) {
        return reads.creditJournal(tenantId, packageId, offset, limit);
    }

    @Override
    public StoreOutcome<CheckInResult> checkIn(TenantId tenantId, BookingId bookingId, @Nullable StudentId studentId,
                                               @Nullable Instant now, Terms terms) {
        return lessons.checkIn(tenantId, bookingId, studentId, now, terms);
    }

    @Override
    public SeriesResult scheduleSeries(TenantId tenantId, SeriesId seriesId, SeriesMode mode, List<Slot> occurrences,
                                       Duration longestSession, ZoneId weekZone) {
        return schedules.scheduleSeries(tenantId, seriesId, mode, occurrences, longestSession, weekZone);
    }

    @Override
    public StoreOutcome<SeriesCancelled> cancelSeries(TenantId tenantId, SeriesId seriesId, Instant from,
                                                      @Nullable Instant now) {
        return cancels.cancelSeries(tenantId, seriesId, from, now);
    }

    @Override
    public List<Slot> seriesSlots(TenantId tenantId, SeriesId seriesId, @Nullable Instant after, int limit) {
        return reads.seriesSlots(tenantId, seriesId, after, limit);
    }

    @Override
    public StoreOutcome<List<HoldResult>> holdAll(TenantId tenantId, List<HoldCommand> commands, SeriesMode mode) {
        return holds.holdAll(tenantId, commands, mode);
    }
}
