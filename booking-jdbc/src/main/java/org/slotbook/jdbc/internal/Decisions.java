package org.slotbook.jdbc.internal;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.sql.Types;
import java.time.DayOfWeek;
import java.time.LocalDate;
import java.time.ZoneId;
import java.time.temporal.ChronoUnit;
import java.time.temporal.TemporalAdjusters;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.slotbook.core.AlreadyBooked;
import org.slotbook.core.Attendance;
import org.slotbook.core.CheckInClosed;
import org.slotbook.core.CheckInNotOpen;
import org.slotbook.core.CheckInResult;
import org.slotbook.core.CheckedIn;
import org.slotbook.core.CreditEntry;
import org.slotbook.core.InsufficientCredits;
import org.slotbook.core.InvalidInputException;
import org.slotbook.core.LessonPackage;
import org.slotbook.core.NotConfirmed;
import org.slotbook.core.PackageGrant;
import org.slotbook.core.PackageId;
import org.slotbook.core.SeriesCancelled;
import org.slotbook.core.SeriesId;
import org.slotbook.core.SeriesMode;
import org.slotbook.core.SeriesResult;
import org.slotbook.core.AlreadyCancelled;
import org.slotbook.core.BookedSession;
import org.slotbook.core.BookingClosed;
import org.slotbook.core.CancellationPolicy;
import org.slotbook.core.LeaveResult;
import org.slotbook.core.LeftWaitlist;
import org.slotbook.core.LimitReached;
import org.slotbook.core.NotOpenYet;
import org.slotbook.core.NotWaiting;
import org.slotbook.core.ResourceKind;
import org.slotbook.core.ResourceRef;
import org.slotbook.core.TooLateToCancel;
import org.slotbook.core.WaitlistEntry;
import org.slotbook.core.Waitlisted;
import org.slotbook.core.spi.Terms;
import org.slotbook.core.Availability;
import org.slotbook.core.Booking;
import org.slotbook.core.BookingId;
import org.slotbook.core.BookingStatus;
import org.slotbook.core.BookingStoreException;
import org.slotbook.core.StoreUnreachableException;
import org.slotbook.core.CancelResult;
import org.slotbook.core.CancelSlotResult;
import org.slotbook.core.Cancelled;
import org.slotbook.core.CoachId;
import org.slotbook.core.ConfirmResult;
import org.slotbook.core.Confirmed;
import org.slotbook.core.Conflict;
import org.slotbook.core.Full;
import org.slotbook.core.Held;
import org.slotbook.core.HoldExpired;
import org.slotbook.core.HoldResult;
import org.slotbook.core.NotFound;
import org.slotbook.core.RequestId;
import org.slotbook.core.RoomId;
import org.slotbook.core.ScheduleResult;
import org.slotbook.core.Scheduled;
import org.slotbook.core.Slot;
import org.slotbook.core.SlotCancelled;
import org.slotbook.core.SlotId;
import org.slotbook.core.SlotNotOpen;
import org.slotbook.core.SlotStatus;
import org.slotbook.core.StudentId;
import org.slotbook.core.TenantId;
import org.slotbook.core.TimeRange;
import org.slotbook.core.spi.BookingEvent;
import org.slotbook.core.internal.CallCombiner;
import org.slotbook.core.spi.BookingStore;
import org.slotbook.core.spi.DuplicateBookingException;
import org.slotbook.core.spi.HoldCommand;
import org.slotbook.core.spi.LiveSlot;
import org.slotbook.core.spi.StoreOutcome;
import org.slotbook.jdbc.JdbcDialect;
import org.slotbook.jdbc.internal.Facts.Fact;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link BookingStore} over JDBC: each decision is one call of its database routine (a PL/pgSQL
 * function, a MariaDB procedure, an H2 Java alias), whose fact rows this class turns into answers;
 * each read is one statement. The rules themselves live in the routines, not here.
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
    private static final Logger LOG = LoggerFactory.getLogger(Decisions.class);
    /** The most holds one {@code hold_batch} call carries. */
    public static final int HOLD_BATCH = 16;
    /**
     * A batch's holds in the order their locks are taken: by tenant, then student (stable otherwise), each
     * in code point order as the ids compare (the order of the database's lock rows).
     */
    private static final Comparator<CallCombiner.Call<HoldJob, StoreOutcome<HoldResult>>> LOCK_ORDER =
            Comparator.comparing((CallCombiner.Call<HoldJob, StoreOutcome<HoldResult>> c) -> c.request().tenantId())
                    .thenComparing(c -> c.request().cmd().request().studentId());

    /** A hold as queued on the combiner. */
    private record HoldJob(TenantId tenantId, HoldCommand cmd) {
    }

    private final StoreCore core;
    private final SqlDialect sql;
    private final String schedule;
    private final String hold;
    private final String confirm;
    private final String cancel;
    private final String cancelSlot;
    private final String expireDue;
    private final String leaveWaitlist;
    private final String grantPackage;
    private final String checkIn;
    private final String scheduleSeries;
    private final String cancelSeries;
    private final String holdAll;
    private final String holdBatch;
    /** Concurrent holds sent together (PostgreSQL and MariaDB, lanes > 0), or null: each hold is a call of its own. */
    private final @Nullable CallCombiner<HoldJob, StoreOutcome<HoldResult>> holds;
    /**
     * Set when the database refused a batch as a feature it lacks: Citus, for a store that did not ask at its build
     * (its dialect was set) or whose tables were distributed since.
     */
    private volatile boolean batchesRefused;

    /**
     * @param holdLanes how many {@code hold_batch} calls of concurrent holds may run at once (PostgreSQL, MariaDB);
     *                  0, or another dialect: each hold is a call of its own
     */
    public Decisions(StoreCore core, int holdLanes) {
        this.core = core;
        this.sql = core.sql();
        this.schedule = sql.call("schedule", 19);
        this.hold = sql.call("hold", 15);
        this.confirm = sql.call("confirm", 10);
        this.cancel = sql.call("cancel", 12);
        this.cancelSlot = sql.call("cancel_slot", 3);
        this.expireDue = sql.call("expire_due", 11);
        this.leaveWaitlist = sql.call("leave_waitlist", 4);
        this.grantPackage = sql.call("grant_package", 8);
        this.checkIn = sql.call("check_in", 7);
        this.scheduleSeries = sql.call("schedule_series", 5);
        this.cancelSeries = sql.call("cancel_series", 4);
        this.holdAll = sql.call("hold_all", 3);
        // PostgreSQL: one array per field; MariaDB: the holds as records in one text
        this.holdBatch = sql.call("hold_batch", core.dialect() == JdbcDialect.MARIADB ? 1 : 14);
        this.holds = holdLanes > 0 && core.dialect() != JdbcDialect.H2
                ? new CallCombiner<>(this::sendHolds, holdLanes, HOLD_BATCH) : null;
    }

    /** How many batches of concurrent holds may run at once; 0 when each hold is a call of its own. */
    public int holdLanes() {
        return holds == null || batchesRefused ? 0 : holds.lanes();
    }

    /** Microseconds since the epoch, as text (the record encodings of schedule_series and hold_all). */
    private static String epochMicros(Instant instant) {
        return instant == null ? "" : Long.toString(ChronoUnit.MICROS.between(Instant.EPOCH, instant));
    }

    private static long micros(Duration d) {
        return d.truncatedTo(ChronoUnit.MICROS).toNanos() / 1000;
    }

    @Override
    public ScheduleResult schedule(TenantId tenantId, Slot slot, Duration longestSession, ZoneId weekZone) {
        notNull("tenantId", tenantId);
        notNull("slot", slot);
        notNull("weekZone", weekZone);
        LocalDate monday = slot.time().start().atZone(weekZone).toLocalDate()
                .with(TemporalAdjusters.previousOrSame(DayOfWeek.MONDAY));
        Facts facts = core.run(tenantId, "schedule slot " + slot.slotId(), schedule, ps -> {
            int i = sql.bindPrefix(ps);
            ps.setString(i++, tenantId.value());
            ps.setString(i++, slot.slotId().value());
            ps.setString(i++, slot.coachId().value());
            ps.setString(i++, slot.roomId().value());
            sql.bindInstant(ps, i++, slot.time().start());
            sql.bindInstant(ps, i++, slot.time().end());
            ps.setInt(i++, slot.capacity());
            ps.setLong(i++, micros(longestSession));
            sql.bindInstant(ps, i++, slot.opensAt());
            sql.bindInstant(ps, i++, slot.closesAt());
            ps.setInt(i++, (int) slot.buffer().toSeconds());
            ps.setString(i++, Facts.policyName(slot.cancellation()));
            if (slot.cancellation() == null || slot.cancellation().cutoff() == null) {
                ps.setNull(i++, Types.INTEGER);
            } else {
                ps.setInt(i++, (int) slot.cancellation().cutoff().toSeconds());
            }
            sql.bindInstant(ps, i++, monday.atStartOfDay(weekZone).toInstant());
            sql.bindInstant(ps, i++, monday.plusWeeks(1).atStartOfDay(weekZone).toInstant());
            ps.setBoolean(i++, slot.bufferStudents());
            ps.setString(i++, slot.classType());
            ps.setInt(i++, slot.cost());
            ps.setString(i, slot.seriesId() == null ? null : slot.seriesId().value());
        }, rs -> Facts.read(rs, sql, tenantId), false);
        Fact answer = facts.answer("schedule");
        return switch (answer.tag()) {
            case "SCHEDULED", "EXISTS" -> new Scheduled(facts.slot(answer));
            case "CONFLICT" -> new Conflict(facts.conflicts());
            default -> throw unexpected("schedule", answer);
        };
    }

    /**
     * {@inheritDoc}
     *
     * <p>With hold lanes (PostgreSQL, MariaDB), a hold that finds its lane busy queues, and the queued holds go
     * to the database together as one {@code hold_batch} call (see {@link #sendHolds}); a hold that joins
     * the waitlist is always a call of its own.
     */
    @Override
    public StoreOutcome<HoldResult> hold(TenantId tenantId, HoldCommand cmd) {
        notNull("tenantId", tenantId);
        notNull("command", cmd);
        if (holds == null || batchesRefused || cmd.request().waitlist()) {
            return holdAlone(tenantId, cmd);
        }
        StoreOutcome<HoldResult> outcome = holds.run(new HoldJob(tenantId, cmd));
        // null: the batch did not decide this hold (RETRY, or the batch failed as a whole); its own caller
        // sends it alone, so that the batch's leader is not kept waiting for it
        return outcome != null ? outcome : holdAlone(tenantId, cmd);
    }

    /**
     * Sends a batch of the combiner: one hold alone; more as one {@code hold_batch} call, the holds
     * ordered by tenant and student so that concurrent batches take the students' locks in one order.
     * A hold the batch answered RETRY (it would have had to wait for a lock, or do more than take a free
     * seat), and every hold of a batch the database refused or rolled back, is answered null: its own
     * caller then sends it again on its own (see {@link #hold}), outside the lane. A batch whose outcome
     * is unknown (the connection broke after it was sent) fails each of its holds as a hold of its own
     * would fail, and so does a batch that got no connection within the pool's timeout (the holds queued
     * behind it then fail too, see {@link CallCombiner}): no hold waits for a connection twice.
     */
    private void sendHolds(CallCombiner.Call<HoldJob, StoreOutcome<HoldResult>>[] calls, int count) {
        if (count == 1) {
            answerAlone(calls[0]);
            return;
        }
        CallCombiner.Call<HoldJob, StoreOutcome<HoldResult>>[] sorted = Arrays.copyOf(calls, count);
        Arrays.sort(sorted, LOCK_ORDER);
        sendBatch(sorted, count);
    }

    private void answerAlone(CallCombiner.Call<HoldJob, StoreOutcome<HoldResult>> call) {
        try {
            call.complete(holdAlone(call.request().tenantId(), call.request().cmd()));
        } catch (RuntimeException e) {
            call.fail(e);
        }
    }

    /** One hold_batch call for the holds {@code calls[0..n)}. */
    private void sendBatch(CallCombiner.Call<HoldJob, StoreOutcome<HoldResult>>[] calls, int n) {
        TenantId first = calls[0].request().tenantId();
        // the failures of a batch reach the callers of every tenant in it: they name none (null tenant)
        Facts facts;
        try {
            facts = core.run(null, "hold " + n + " seats", holdBatch, ps -> {
                if (core.dialect() == JdbcDialect.MARIADB) {
                    bindRecords(ps, calls, n);
                    return;
                }
                String[] tenants = new String[n];
                String[] bookings = new String[n];
                String[] requests = new String[n];
                String[] slots = new String[n];
                String[] students = new String[n];
                String[] statuses = new String[n];
                Long[] nows = new Long[n];
                Long[] holdMicros = new Long[n];
                Long[] longestMicros = new Long[n];
                Boolean[] gateHeld = new Boolean[n];
                Integer[] maxUpcoming = new Integer[n];
                Integer[] maxWeek = new Integer[n];
                Long[] cutoffMicros = new Long[n];
                String[] creditPolicies = new String[n];
                for (int k = 0; k < n; k++) {
                    tenants[k] = calls[k].request().tenantId().value();
                    HoldCommand cmd = calls[k].request().cmd();
                    bookings[k] = cmd.bookingId().value();
                    requests[k] = cmd.request().requestId().value();
                    slots[k] = cmd.request().slotId().value();
                    students[k] = cmd.request().studentId().value();
                    statuses[k] = cmd.status().name();
                    nows[k] = cmd.now() == null ? null : ChronoUnit.MICROS.between(Instant.EPOCH, cmd.now());
                    holdMicros[k] = micros(cmd.holdTtl());
                    longestMicros[k] = micros(cmd.longestSession());
                    gateHeld[k] = cmd.gateHeld();
                    maxUpcoming[k] = cmd.rules().maxUpcoming();
                    maxWeek[k] = cmd.rules().maxPerWeek();
                    cutoffMicros[k] = micros(cmd.rules().waitlistCutoff());
                    creditPolicies[k] = cmd.rules().credits().name();
                }
                Connection c = ps.getConnection();
                int i = sql.bindPrefix(ps);
                ps.setArray(i++, c.createArrayOf("varchar", tenants));
                ps.setArray(i++, c.createArrayOf("varchar", bookings));
                ps.setArray(i++, c.createArrayOf("varchar", requests));
                ps.setArray(i++, c.createArrayOf("varchar", slots));
                ps.setArray(i++, c.createArrayOf("varchar", students));
                ps.setArray(i++, c.createArrayOf("varchar", statuses));
                ps.setArray(i++, c.createArrayOf("int8", nows));
                ps.setArray(i++, c.createArrayOf("int8", holdMicros));
                ps.setArray(i++, c.createArrayOf("int8", longestMicros));
                ps.setArray(i++, c.createArrayOf("bool", gateHeld));
                ps.setArray(i++, c.createArrayOf("int4", maxUpcoming));
                ps.setArray(i++, c.createArrayOf("int4", maxWeek));
                ps.setArray(i++, c.createArrayOf("int8", cutoffMicros));
                ps.setArray(i, c.createArrayOf("varchar", creditPolicies));
            }, rs -> Facts.read(rs, sql, first), true);
        } catch (BookingStoreException | DuplicateBookingException e) {
            if (e instanceof StoreUnreachableException failure) {
                // no connection within the pool's timeout: sending each hold again would wait a second
                // timeout for a connection the first could not get
                for (int k = 0; k < n; k++) {
                    calls[k].fail(new StoreUnreachableException("could not hold a seat of slot "
                            + calls[k].request().cmd().request().slotId() + ": " + failure.getMessage(), failure));
                }
                return;
            }
            if (e instanceof BookingStoreException failure && failure.outcomeUnknown()) {
                for (int k = 0; k < n; k++) {
                    calls[k].fail(new BookingStoreException("could not hold a seat of slot "
                            + calls[k].request().cmd().request().slotId() + ": " + failure.getMessage(), failure,
                            failure.retryable(), true));
                }
                return;
            }
            // refused or rolled back (a unique key among them): nothing of the batch stands
            LOG.debug("a batch of {} holds failed, each is sent on its own: {}", n, e.getMessage());
            if (SqlErrors.isUnsupported(core.dialect(), e) && !batchesRefused) {
                // Citus: no later batch would fare better
                batchesRefused = true;
                LOG.warn("the database cannot run a batch of holds ({}): each hold is sent on its own from now on",
                        e.getMessage());
            }
            for (int k = 0; k < n; k++) {
                calls[k].complete(null);
            }
            return;
        }
        for (int k = 0; k < n; k++) {
            CallCombiner.Call<HoldJob, StoreOutcome<HoldResult>> call = calls[k];
            try {
                Facts part = facts.part(k + 1, call.request().tenantId()).withTakenSpelledOut(call.request().cmd());
                if ("RETRY".equals(part.answer("hold_batch").tag())) {
                    call.complete(null);
                } else {
                    call.complete(outcome(part, call.request().cmd()));
                }
            } catch (RuntimeException e) {
                call.fail(e);
            }
        }
    }

    /** MariaDB's hold_batch: the holds as hold_all's records, each with its tenant as a 15th field. */
    private void bindRecords(PreparedStatement ps, CallCombiner.Call<HoldJob, StoreOutcome<HoldResult>>[] calls, int n)
            throws SQLException {
        StringBuilder records = new StringBuilder();
        for (int k = 0; k < n; k++) {
            HoldCommand cmd = calls[k].request().cmd();
            if (k > 0) {
                records.append(RECORD);
            }
            holdRecord(records, cmd);
            records.append(FIELD).append(calls[k].request().tenantId().value());
        }
        ps.setString(sql.bindPrefix(ps), records.toString());
    }

    private StoreOutcome<HoldResult> outcome(Facts facts, HoldCommand cmd) {
        return new StoreOutcome<>(holdResult(facts, cmd), facts.events(), null, facts.skipped());
    }

    /** One hold, one call of {@code hold}. */
    private StoreOutcome<HoldResult> holdAlone(TenantId tenantId, HoldCommand cmd) {
        Facts facts = core.run(tenantId, "hold a seat of slot " + cmd.request().slotId(), hold, ps -> {
            int i = sql.bindPrefix(ps);
            ps.setString(i++, tenantId.value());
            ps.setString(i++, cmd.bookingId().value());
            ps.setString(i++, cmd.request().requestId().value());
            ps.setString(i++, cmd.request().slotId().value());
            ps.setString(i++, cmd.request().studentId().value());
            ps.setString(i++, cmd.status().name());
            sql.bindInstant(ps, i++, cmd.now());
            ps.setLong(i++, micros(cmd.holdTtl()));
            ps.setLong(i++, micros(cmd.longestSession()));
            ps.setBoolean(i++, cmd.gateHeld());
            ps.setBoolean(i++, cmd.request().waitlist());
            ps.setInt(i++, cmd.rules().maxUpcoming());
            ps.setInt(i++, cmd.rules().maxPerWeek());
            ps.setLong(i++, micros(cmd.rules().waitlistCutoff()));
            ps.setString(i, cmd.rules().credits().name());
        }, rs -> Facts.read(rs, sql, tenantId), true);
        return outcome(facts, cmd);
    }

    private HoldResult holdResult(Facts facts, HoldCommand cmd) {
        Fact answer = facts.answer("hold");
        SlotId slotId = cmd.request().slotId();
        return switch (answer.tag()) {
            case "HELD" -> new Held(facts.booking(answer), false);
            case "REPLAY" -> new Held(facts.booking(answer), true);
            case "ALREADY" -> new AlreadyBooked(facts.booking(answer));
            case "CONFLICT" -> new Conflict(facts.conflicts());
            case "FULL" -> new Full(slotId);
            case "WAITLISTED" -> new Waitlisted(facts.waiter(answer), false);
            case "WAITLISTED_REPLAY" -> new Waitlisted(facts.waiter(answer), true);
            case "LIMIT" -> new LimitReached(LimitReached.Limit.valueOf(answer.resKind()), answer.seat());
            case "NOT_OPEN_YET" -> new NotOpenYet(slotId, answer.heldUntil());
            case "BOOKING_CLOSED" -> new BookingClosed(slotId, answer.heldUntil());
            case "NOT_OPEN" -> new SlotNotOpen(slotId, SlotStatus.valueOf(answer.status()));
            case "NOT_FOUND" -> new NotFound();
            case "INSUFFICIENT_CREDITS" -> new InsufficientCredits(slotId, answer.seat());
            default -> throw unexpected("hold", answer);
        };
    }

    @Override
    public StoreOutcome<ConfirmResult> confirm(TenantId tenantId, BookingId bookingId, StudentId studentId,
                                               @Nullable Instant now, Terms terms) {
        notNull("studentId", studentId);
        Facts facts = transition("confirm", confirm, tenantId, bookingId, studentId, now, terms, false);
        Fact answer = facts.answer("confirm");
        ConfirmResult result = switch (answer.tag()) {
            case "CONFIRMED" -> new Confirmed(facts.booking(answer));
            case "HOLD_EXPIRED" -> new HoldExpired(facts.booking(answer));
            case "ALREADY_CANCELLED" -> new AlreadyCancelled();
            case "NOT_FOUND" -> new NotFound();
            default -> throw unexpected("confirm", answer);
        };
        return new StoreOutcome<>(result, facts.events(), null, facts.skipped());
    }

    @Override
    public StoreOutcome<CancelResult> cancel(TenantId tenantId, BookingId bookingId, @Nullable StudentId studentId,
                                             @Nullable Instant now, Terms terms) {
        Facts facts = transition("cancel", cancel, tenantId, bookingId, studentId, now, terms, true);
        Fact answer = facts.answer("cancel");
        return switch (answer.tag()) {
            case "CANCELLED" -> new StoreOutcome<>(new Cancelled(facts.booking(answer), "LATE".equals(answer.resKind())),
                    facts.events(), null, facts.skipped());
            case "ALREADY_CANCELLED" -> new StoreOutcome<>(new AlreadyCancelled(), facts.events(),
                    facts.booking(answer), facts.skipped());
            case "TOO_LATE" -> StoreOutcome.of(new TooLateToCancel(bookingId, answer.heldUntil()));
            case "NOT_FOUND" -> StoreOutcome.of(new NotFound());
            default -> throw unexpected("cancel", answer);
        };
    }

    /**
     * Binds a confirm or cancel: tenant, booking, student (null: staff), now, [cancel policy, cutoff
     * micros,] then the promotion terms (hold micros, longest micros, max upcoming, max per week,
     * waitlist cutoff micros).
     */
    private Facts transition(String verb, String statement, TenantId tenantId, BookingId bookingId,
                             StudentId studentId, Instant now, Terms terms, boolean withPolicy) {
        notNull("tenantId", tenantId);
        notNull("bookingId", bookingId);
        notNull("terms", terms);
        inRange("now", now);
        return core.run(tenantId, verb + " booking " + bookingId, statement, ps -> {
            int i = sql.bindPrefix(ps);
            ps.setString(i++, tenantId.value());
            ps.setString(i++, bookingId.value());
            ps.setString(i++, studentId == null ? null : studentId.value());
            sql.bindInstant(ps, i++, now);
            if (withPolicy) {
                CancellationPolicy policy = terms.rules().cancellation();
                ps.setString(i++, Facts.policyName(policy));
                if (policy.cutoff() == null) {
                    ps.setNull(i++, Types.BIGINT);
                } else {
                    ps.setLong(i++, micros(policy.cutoff()));
                }
            }
            bindTerms(ps, i, terms);
        }, rs -> Facts.read(rs, sql, tenantId), false);
    }

    /** Binds the promotion terms at {@code i} (6 parameters); answers the next index. */
    private static int bindTerms(PreparedStatement ps, int i, Terms terms) throws SQLException {
        ps.setLong(i++, micros(terms.holdTtl()));
        ps.setLong(i++, micros(terms.longestSession()));
        ps.setInt(i++, terms.rules().maxUpcoming());
        ps.setInt(i++, terms.rules().maxPerWeek());
        ps.setLong(i++, micros(terms.rules().waitlistCutoff()));
        ps.setString(i++, terms.rules().credits().name());
        return i;
    }

    @Override
    public StoreOutcome<CancelSlotResult> cancelSlot(TenantId tenantId, SlotId slotId, @Nullable Instant now) {
        notNull("tenantId", tenantId);
        notNull("slotId", slotId);
        inRange("now", now);
        Facts facts = core.run(tenantId, "cancel slot " + slotId, cancelSlot, ps -> {
            int i = sql.bindPrefix(ps);
            ps.setString(i++, tenantId.value());
            ps.setString(i++, slotId.value());
            sql.bindInstant(ps, i, now);
        }, rs -> Facts.read(rs, sql, tenantId), false);
        Fact answer = facts.answer("cancel_slot");
        return switch (answer.tag()) {
            case "SLOT_CANCELLED" -> {
                List<BookingEvent> events = facts.events();
                yield StoreOutcome.of(new SlotCancelled(facts.slot(answer), events.size()), events);
            }
            case "ALREADY_CANCELLED" -> StoreOutcome.of(new AlreadyCancelled());
            case "NOT_FOUND" -> StoreOutcome.of(new NotFound());
            default -> throw unexpected("cancel_slot", answer);
        };
    }

    @Override
    public StoreOutcome<Integer> expireDue(TenantId tenantId, @Nullable Instant now, int limit, Terms terms) {
        notNull("tenantId", tenantId);
        notNull("terms", terms);
        if (limit <= 0) {
            throw new InvalidInputException("limit must be positive, got " + limit);
        }
        inRange("now", now);
        Facts facts = core.run(tenantId, "expire due holds", expireDue, ps -> {
            int i = sql.bindPrefix(ps);
            ps.setString(i++, tenantId.value());
            sql.bindInstant(ps, i++, now);
            ps.setInt(i++, limit);
            i = bindTerms(ps, i, terms);
            ps.setBoolean(i++, terms.rules().marksNoShows());
            ps.setLong(i, micros(terms.rules().checkInClosesAfterEnd()));
        }, rs -> Facts.read(rs, sql, tenantId), false);
        List<BookingEvent> events = facts.events();
        int done = (int) events.stream()
                .filter(e -> e.kind() == BookingEvent.Kind.EXPIRED || e.kind() == BookingEvent.Kind.NO_SHOW).count();
        return new StoreOutcome<>(done, events, null, facts.skipped());
    }

    @Override
    public StoreOutcome<LeaveResult> leaveWaitlist(TenantId tenantId, RequestId requestId, StudentId studentId,
                                                   @Nullable Instant now) {
        notNull("tenantId", tenantId);
        notNull("requestId", requestId);
        notNull("studentId", studentId);
        inRange("now", now);
        Facts facts = core.run(tenantId, "leave the waitlist of request " + requestId, leaveWaitlist, ps -> {
            int i = sql.bindPrefix(ps);
            ps.setString(i++, tenantId.value());
            ps.setString(i++, requestId.value());
            ps.setString(i++, studentId.value());
            sql.bindInstant(ps, i, now);
        }, rs -> Facts.read(rs, sql, tenantId), false);
        Fact answer = facts.answer("leave_waitlist");
        LeaveResult result = switch (answer.tag()) {
            case "LEFT" -> new LeftWaitlist(facts.waiter(answer));
            case "NOT_WAITING" -> new NotWaiting(facts.waiter(answer));
            case "NOT_FOUND" -> new NotFound();
            default -> throw unexpected("leave_waitlist", answer);
        };
        return StoreOutcome.of(result);
    }

    @Override
    public Optional<WaitlistEntry> findWaiter(TenantId tenantId, RequestId requestId) {
        notNull("tenantId", tenantId);
        notNull("requestId", requestId);
        return core.run(tenantId, "read the waitlist entry of request " + requestId, sql.findWaiter(), ps -> {
            ps.setString(1, tenantId.value());
            ps.setString(2, requestId.value());
        }, rs -> rs.next() ? Optional.of(waiter(tenantId, rs, rs.getInt(8))) : Optional.<WaitlistEntry>empty(),
                false);
    }

    @Override
    public List<WaitlistEntry> waitlist(TenantId tenantId, SlotId slotId, int offset, int limit) {
        notNull("tenantId", tenantId);
        notNull("slotId", slotId);
        return readPage(tenantId, "read the waitlist of slot " + slotId, sql.waitlist(), slotId.value(), offset,
                limit, (rs, index) -> waiter(tenantId, rs, offset + index + 1));
    }

    @Override
    public List<Booking> roster(TenantId tenantId, SlotId slotId, @Nullable Instant now, int offset, int limit) {
        notNull("tenantId", tenantId);
        notNull("slotId", slotId);
        return core.run(tenantId, "read the roster of slot " + slotId, sql.roster(), ps -> {
            ps.setString(1, tenantId.value());
            ps.setString(2, slotId.value());
            sql.bindInstant(ps, 3, now);
            ps.setInt(4, limit);
            ps.setInt(5, offset);
        }, rs -> {
            List<Booking> out = new ArrayList<>();
            while (rs.next()) {
                out.add(booking(tenantId, rs));
            }
            return out;
        }, false);
    }

    @Override
    public List<BookedSession> studentBookings(TenantId tenantId, StudentId studentId, @Nullable Instant now,
                                               boolean upcoming, int offset, int limit) {
        notNull("tenantId", tenantId);
        notNull("studentId", studentId);
        return core.run(tenantId, "read a student's bookings", sql.studentBookings(upcoming), ps -> {
            int i = 1;
            ps.setString(i++, tenantId.value());
            ps.setString(i++, studentId.value());
            sql.bindInstant(ps, i++, now);
            if (upcoming) {
                sql.bindInstant(ps, i++, now);
            }
            ps.setInt(i++, limit);
            ps.setInt(i, offset);
        }, rs -> {
            List<BookedSession> out = new ArrayList<>();
            while (rs.next()) {
                out.add(new BookedSession(booking(tenantId, rs), slot(tenantId, rs, 12)));
            }
            return out;
        }, false);
    }

    @Override
    public List<Slot> timetable(TenantId tenantId, ResourceRef resource, TimeRange range, int offset, int limit) {
        notNull("tenantId", tenantId);
        notNull("resource", resource);
        notNull("range", range);
        if (resource.kind() == ResourceKind.STUDENT) {
            throw new InvalidInputException("resource must be a COACH or a ROOM, got " + resource.kind());
        }
        return core.run(tenantId, "read a timetable", sql.timetable(), ps -> {
            ps.setString(1, tenantId.value());
            ps.setString(2, resource.kind().name());
            ps.setString(3, resource.id());
            sql.bindInstant(ps, 4, range.end());
            sql.bindInstant(ps, 5, range.start());
            ps.setInt(6, limit);
            ps.setInt(7, offset);
        }, rs -> {
            List<Slot> out = new ArrayList<>();
            while (rs.next()) {
                out.add(slot(tenantId, rs));
            }
            return out;
        }, false);
    }

    // ---------------------------------------------------------------- reads

    @Override
    public Optional<Availability> availability(TenantId tenantId, SlotId slotId, @Nullable Instant now) {
        notNull("tenantId", tenantId);
        notNull("slotId", slotId);
        return core.run(tenantId, "read the seats of slot " + slotId, sql.availability(), ps -> {
            sql.bindInstant(ps, 1, now);
            ps.setString(2, tenantId.value());
            ps.setString(3, slotId.value());
        }, rs -> {
            if (!rs.next()) {
                return Optional.<Availability>empty();
            }
            Slot slot = slot(tenantId, rs);
            if (slot.status() == SlotStatus.CANCELLED) {
                return Optional.of(new Availability(slotId, slot.status(), slot.capacity(), 0, 0, 0));
            }
            int held = rs.getInt(17);
            int confirmed = rs.getInt(18);
            return Optional.of(new Availability(slotId, slot.status(), slot.capacity(), held, confirmed,
                    Math.max(0, slot.capacity() - held - confirmed)));
        }, false);
    }

    @Override
    public Optional<LiveSlot> liveSlot(TenantId tenantId, SlotId slotId, @Nullable Instant now) {
        notNull("tenantId", tenantId);
        notNull("slotId", slotId);
        return core.run(tenantId, "read the live bookings of slot " + slotId, sql.liveSlot(), ps -> {
            sql.bindInstant(ps, 1, now);
            ps.setString(2, tenantId.value());
            ps.setString(3, slotId.value());
        }, rs -> {
            Slot slot = null;
            List<Booking> live = new ArrayList<>();
            while (rs.next()) {
                if (slot == null) {
                    slot = slot(tenantId, rs);
                }
                String bookingId = rs.getString(17);
                if (bookingId != null) {
                    String packageId = rs.getString(25);
                    live.add(new Booking(tenantId, BookingId.of(bookingId), RequestId.of(rs.getString(18)), slotId,
                            StudentId.of(rs.getString(19)), rs.getInt(20), BookingStatus.valueOf(rs.getString(21)),
                            sql.readInstant(rs, 22), sql.readInstant(rs, 23), sql.readInstant(rs, 24),
                            packageId == null ? null : PackageId.of(packageId), rs.getInt(26),
                            Attendance.valueOf(rs.getString(27))));
                }
            }
            if (slot == null) {
                return Optional.<LiveSlot>empty();
            }
            return Optional.of(new LiveSlot(slot, slot.status() == SlotStatus.OPEN ? live : List.of()));
        }, false);
    }

    @Override
    public Optional<Booking> findBooking(TenantId tenantId, BookingId bookingId) {
        notNull("tenantId", tenantId);
        notNull("bookingId", bookingId);
        return booking(tenantId, "read booking " + bookingId, sql.findBooking(), bookingId.value());
    }

    @Override
    public Optional<Booking> findByRequest(TenantId tenantId, RequestId requestId) {
        notNull("tenantId", tenantId);
        notNull("requestId", requestId);
        return booking(tenantId, "read the booking of request " + requestId, sql.findByRequest(), requestId.value());
    }

    private Optional<Booking> booking(TenantId tenantId, String what, String statement, String key) {
        return core.run(tenantId, what, statement, ps -> {
            ps.setString(1, tenantId.value());
            ps.setString(2, key);
        }, rs -> rs.next() ? Optional.of(booking(tenantId, rs)) : Optional.<Booking>empty(), false);
    }

    @Override
    public List<Slot> slots(TenantId tenantId, @Nullable SlotId after, int limit) {
        notNull("tenantId", tenantId);
        if (limit <= 0) {
            throw new InvalidInputException("limit must be positive, got " + limit);
        }
        return core.run(tenantId, "list slots", sql.slots(after != null), ps -> {
            int i = 1;
            ps.setString(i++, tenantId.value());
            if (after != null) {
                ps.setString(i++, after.value());
            }
            ps.setInt(i, limit);
        }, rs -> {
            List<Slot> slots = new ArrayList<>();
            while (rs.next()) {
                slots.add(slot(tenantId, rs));
            }
            return slots;
        }, false);
    }

    @Override
    public List<TenantId> tenants(@Nullable TenantId after, int limit) {
        if (limit <= 0) {
            throw new InvalidInputException("limit must be positive, got " + limit);
        }
        return core.run(null, "list tenants", sql.tenants(after != null), ps -> {
            int i = 1;
            if (after != null) {
                ps.setString(i++, after.value());
            }
            ps.setInt(i, limit);
        }, rs -> {
            List<TenantId> tenants = new ArrayList<>();
            while (rs.next()) {
                tenants.add(TenantId.of(rs.getString(1)));
            }
            return tenants;
        }, false);
    }

    // ---------------------------------------------------------------- lessons

    @Override
    public LessonPackage grantPackage(TenantId tenantId, PackageGrant grant, @Nullable Instant now) {
        notNull("tenantId", tenantId);
        notNull("grant", grant);
        inRange("now", now);
        Facts facts = core.run(tenantId, "grant package " + grant.packageId(), grantPackage, ps -> {
            int i = sql.bindPrefix(ps);
            ps.setString(i++, tenantId.value());
            ps.setString(i++, grant.packageId().value());
            ps.setString(i++, grant.studentId().value());
            ps.setInt(i++, grant.credits());
            sql.bindInstant(ps, i++, grant.validFrom());
            sql.bindInstant(ps, i++, grant.validUntil());
            ps.setString(i++, Facts.classTypes(grant.classTypes()));
            sql.bindInstant(ps, i, now);
        }, rs -> Facts.read(rs, sql, tenantId), false);
        Fact answer = facts.answer("grant_package");
        return switch (answer.tag()) {
            case "GRANTED", "PACKAGE_EXISTS" -> facts.lessonPackage(answer);
            default -> throw unexpected("grant_package", answer);
        };
    }

    @Override
    public List<LessonPackage> packages(TenantId tenantId, StudentId studentId, int offset, int limit) {
        notNull("tenantId", tenantId);
        notNull("studentId", studentId);
        page(offset, limit);
        return readPage(tenantId, "read the packages of student " + studentId, sql.packages(), studentId.value(),
                offset, limit, (rs, index) -> new LessonPackage(tenantId, PackageId.of(rs.getString(1)),
                        StudentId.of(rs.getString(2)), rs.getInt(3), rs.getInt(4), sql.readInstant(rs, 5),
                        sql.readInstant(rs, 6), Facts.classTypes(rs.getString(7)), sql.readInstant(rs, 8)));
    }

    @Override
    public List<CreditEntry> creditJournal(TenantId tenantId, PackageId packageId, int offset, int limit) {
        notNull("tenantId", tenantId);
        notNull("packageId", packageId);
        page(offset, limit);
        return readPage(tenantId, "read the journal of package " + packageId, sql.creditJournal(), packageId.value(),
                offset, limit, (rs, index) -> {
                    String bookingId = rs.getString(5);
                    String requestId = rs.getString(6);
                    return new CreditEntry(tenantId, PackageId.of(rs.getString(2)), rs.getLong(1),
                            CreditEntry.Reason.valueOf(rs.getString(3)), rs.getInt(4),
                            bookingId == null ? null : BookingId.of(bookingId),
                            requestId == null ? null : RequestId.of(requestId), sql.readInstant(rs, 7));
                });
    }

    /** Reads one row of a page; {@code index} counts the page's rows from 0. */
    @FunctionalInterface
    private interface PageRow<T> {
        T read(ResultSet rs, int index) throws SQLException;
    }

    /** One page of a read whose statement takes (tenant, key, limit, offset). */
    private <T> List<T> readPage(TenantId tenantId, String what, String statement, String key, int offset,
                                 int limit, PageRow<T> row) {
        return core.run(tenantId, what, statement, ps -> {
            ps.setString(1, tenantId.value());
            ps.setString(2, key);
            ps.setInt(3, limit);
            ps.setInt(4, offset);
        }, rs -> {
            List<T> out = new ArrayList<>();
            while (rs.next()) {
                out.add(row.read(rs, out.size()));
            }
            return out;
        }, false);
    }

    @Override
    public StoreOutcome<CheckInResult> checkIn(TenantId tenantId, BookingId bookingId, @Nullable StudentId studentId,
                                               @Nullable Instant now, Terms terms) {
        notNull("tenantId", tenantId);
        notNull("bookingId", bookingId);
        notNull("terms", terms);
        inRange("now", now);
        Facts facts = core.run(tenantId, "check in booking " + bookingId, checkIn, ps -> {
            int i = sql.bindPrefix(ps);
            ps.setString(i++, tenantId.value());
            ps.setString(i++, bookingId.value());
            ps.setString(i++, studentId == null ? null : studentId.value());
            sql.bindInstant(ps, i++, now);
            ps.setLong(i++, micros(terms.rules().checkInOpensBefore()));
            ps.setLong(i++, micros(terms.rules().checkInClosesAfterEnd()));
            ps.setString(i, terms.rules().credits().name());
        }, rs -> Facts.read(rs, sql, tenantId), false);
        Fact answer = facts.answer("check_in");
        CheckInResult result = switch (answer.tag()) {
            case "CHECKED_IN" -> new CheckedIn(facts.booking(answer), false);
            case "CHECKED_IN_REPLAY" -> new CheckedIn(facts.booking(answer), true);
            case "NOT_CONFIRMED" -> new NotConfirmed(facts.booking(answer));
            case "CHECK_IN_NOT_OPEN" -> new CheckInNotOpen(bookingId, answer.heldUntil());
            case "CHECK_IN_CLOSED" -> new CheckInClosed(bookingId, answer.heldUntil());
            case "INSUFFICIENT_CREDITS" -> new InsufficientCredits(SlotId.of(answer.slotId()), answer.seat());
            case "NOT_FOUND" -> new NotFound();
            default -> throw unexpected("check_in", answer);
        };
        return StoreOutcome.of(result, facts.events());
    }

    @Override
    public SeriesResult scheduleSeries(TenantId tenantId, SeriesId seriesId, SeriesMode mode, List<Slot> occurrences,
                                       Duration longestSession, ZoneId weekZone) {
        notNull("tenantId", tenantId);
        notNull("seriesId", seriesId);
        notNull("mode", mode);
        notNull("occurrences", occurrences);
        notNull("longestSession", longestSession);
        notNull("weekZone", weekZone);
        StringBuilder records = new StringBuilder();
        for (int n = 0; n < occurrences.size(); n++) {
            Slot slot = notNull("occurrences[" + n + "]", occurrences.get(n));
            if (!seriesId.equals(slot.seriesId())) {
                throw new InvalidInputException("occurrences[" + n + "] (slot '" + slot.slotId()
                        + "') must be of series '" + seriesId + "', got " + (slot.seriesId() == null ? "none"
                        : "'" + slot.seriesId() + "'"));
            }
            LocalDate monday = slot.time().start().atZone(weekZone).toLocalDate()
                    .with(TemporalAdjusters.previousOrSame(DayOfWeek.MONDAY));
            CancellationPolicy policy = slot.cancellation();
            if (n > 0) {
                records.append(RECORD);
            }
            record(records, slot.slotId().value(), slot.coachId().value(), slot.roomId().value(),
                    epochMicros(slot.time().start()), epochMicros(slot.time().end()),
                    Integer.toString(slot.capacity()), epochMicros(slot.opensAt()), epochMicros(slot.closesAt()),
                    Long.toString(slot.buffer().toSeconds()), nullToEmpty(Facts.policyName(policy)),
                    policy == null || policy.cutoff() == null ? "" : Long.toString(policy.cutoff().toSeconds()),
                    epochMicros(monday.atStartOfDay(weekZone).toInstant()),
                    epochMicros(monday.plusWeeks(1).atStartOfDay(weekZone).toInstant()),
                    slot.bufferStudents() ? "1" : "0", nullToEmpty(slot.classType()), Integer.toString(slot.cost()));
        }
        if (occurrences.isEmpty()) {
            return new SeriesResult(seriesId, mode, List.of());
        }
        Facts facts = core.run(tenantId, "schedule series " + seriesId, scheduleSeries, ps -> {
            int i = sql.bindPrefix(ps);
            ps.setString(i++, tenantId.value());
            ps.setString(i++, seriesId.value());
            ps.setString(i++, mode.name());
            ps.setLong(i++, micros(longestSession));
            ps.setString(i, records.toString());
        }, rs -> Facts.read(rs, sql, tenantId), false);
        boolean anyConflict = false;
        for (Slot slot : occurrences) {
            anyConflict |= !facts.conflicts(slot.slotId().value()).isEmpty();
        }
        boolean rolledBack = anyConflict && mode == SeriesMode.ALL_OR_NOTHING;
        List<SeriesResult.Occurrence> answer = new ArrayList<>(occurrences.size());
        for (Slot slot : occurrences) {
            List<org.slotbook.core.ResourceConflict> conflicts = facts.conflicts(slot.slotId().value());
            if (!conflicts.isEmpty()) {
                answer.add(new SeriesResult.Occurrence(slot, SeriesResult.Occurrence.Status.CONFLICT, conflicts));
            } else if (rolledBack) {
                answer.add(new SeriesResult.Occurrence(slot, SeriesResult.Occurrence.Status.ROLLED_BACK, List.of()));
            } else {
                Fact stored = facts.rows().stream()
                        .filter(f -> ("SCHEDULED".equals(f.tag()) || "EXISTS".equals(f.tag()))
                                && slot.slotId().value().equals(f.slotId()))
                        .findFirst()
                        .orElseThrow(() -> new BookingStoreException("routine schedule_series answered nothing for"
                                + " occurrence '" + slot.slotId() + "'"));
                answer.add(new SeriesResult.Occurrence(facts.slot(stored), SeriesResult.Occurrence.Status.SCHEDULED,
                        List.of()));
            }
        }
        return new SeriesResult(seriesId, mode, answer);
    }

    @Override
    public StoreOutcome<SeriesCancelled> cancelSeries(TenantId tenantId, SeriesId seriesId, Instant from,
                                                      @Nullable Instant now) {
        notNull("tenantId", tenantId);
        notNull("seriesId", seriesId);
        inRange("from", notNull("from", from));
        inRange("now", now);
        Facts facts = core.run(tenantId, "cancel series " + seriesId, cancelSeries, ps -> {
            int i = sql.bindPrefix(ps);
            ps.setString(i++, tenantId.value());
            ps.setString(i++, seriesId.value());
            sql.bindInstant(ps, i++, from);
            sql.bindInstant(ps, i, now);
        }, rs -> Facts.read(rs, sql, tenantId), false);
        List<Slot> slots = new ArrayList<>();
        for (Fact f : facts.rows()) {
            if ("SLOT_CANCELLED".equals(f.tag())) {
                slots.add(facts.slot(f));
            }
        }
        List<BookingEvent> events = facts.events();
        int released = (int) events.stream().filter(e -> e.kind() == BookingEvent.Kind.CANCELLED).count();
        return StoreOutcome.of(new SeriesCancelled(seriesId, slots, released), events);
    }

    @Override
    public List<Slot> seriesSlots(TenantId tenantId, SeriesId seriesId, @Nullable Instant after, int limit) {
        notNull("tenantId", tenantId);
        notNull("seriesId", seriesId);
        if (limit <= 0) {
            throw new InvalidInputException("limit must be positive, got " + limit);
        }
        return core.run(tenantId, "read the occurrences of series " + seriesId, sql.seriesSlots(), ps -> {
            ps.setString(1, tenantId.value());
            ps.setString(2, seriesId.value());
            sql.bindInstant(ps, 3, after);
            ps.setInt(4, limit);
        }, rs -> {
            List<Slot> out = new ArrayList<>();
            while (rs.next()) {
                out.add(slot(tenantId, rs));
            }
            return out;
        }, false);
    }

    @Override
    public StoreOutcome<List<HoldResult>> holdAll(TenantId tenantId, List<HoldCommand> commands, SeriesMode mode) {
        notNull("tenantId", tenantId);
        notNull("commands", commands);
        notNull("mode", mode);
        StringBuilder records = new StringBuilder();
        for (int n = 0; n < commands.size(); n++) {
            HoldCommand cmd = notNull("commands[" + n + "]", commands.get(n));
            StudentId first = commands.get(0).request().studentId();
            if (!cmd.request().studentId().equals(first)) {
                throw new InvalidInputException("commands must all be of one student: commands[" + n
                        + "] is of '" + cmd.request().studentId() + "', commands[0] of '" + first + "'");
            }
            if (n > 0) {
                records.append(RECORD);
            }
            holdRecord(records, cmd);
        }
        if (commands.isEmpty()) {
            return StoreOutcome.of(List.of());
        }
        Facts facts = core.run(tenantId, "hold " + commands.size() + " seats of student "
                + commands.get(0).request().studentId(), holdAll, ps -> {
            int i = sql.bindPrefix(ps);
            ps.setString(i++, tenantId.value());
            ps.setString(i++, mode.name());
            ps.setString(i, records.toString());
        }, rs -> Facts.read(rs, sql, tenantId), true);
        List<HoldResult> results = new ArrayList<>(commands.size());
        List<BookingEvent> events = new ArrayList<>();
        List<WaitlistEntry> skipped = new ArrayList<>();
        boolean allHeld = true;
        for (int n = 0; n < commands.size(); n++) {
            Facts part = facts.part(n + 1);
            HoldResult result = holdResult(part, commands.get(n));
            results.add(result);
            events.addAll(part.events());
            skipped.addAll(part.skipped());
            allHeld &= result instanceof Held held && held.booking().status().isActive();
        }
        if (!allHeld && mode == SeriesMode.ALL_OR_NOTHING) {
            return new StoreOutcome<>(results, List.of(), null, List.of());
        }
        return new StoreOutcome<>(results, events, null, skipped);
    }

    /** Separates the records of schedule_series and hold_all (ids never hold control characters). */
    static final char RECORD = '\u001e';
    /** Separates the fields of one record. */
    static final char FIELD = '\u001f';

    /** A hold as one record of hold_all and MariaDB's hold_batch (the 14 fields their routines read). */
    private static void holdRecord(StringBuilder out, HoldCommand cmd) {
        record(out, cmd.bookingId().value(), cmd.request().requestId().value(),
                cmd.request().slotId().value(), cmd.request().studentId().value(), cmd.status().name(),
                epochMicros(cmd.now()), Long.toString(micros(cmd.holdTtl())),
                Long.toString(micros(cmd.longestSession())), cmd.gateHeld() ? "1" : "0",
                cmd.request().waitlist() ? "1" : "0", Integer.toString(cmd.rules().maxUpcoming()),
                Integer.toString(cmd.rules().maxPerWeek()), Long.toString(micros(cmd.rules().waitlistCutoff())),
                cmd.rules().credits().name());
    }

    private static void record(StringBuilder out, String... fields) {
        for (int f = 0; f < fields.length; f++) {
            if (f > 0) {
                out.append(FIELD);
            }
            out.append(fields[f]);
        }
    }

    private static String nullToEmpty(String value) {
        return value == null ? "" : value;
    }

    private static void page(int offset, int limit) {
        if (offset < 0) {
            throw new InvalidInputException("offset must be at least 0, got " + offset);
        }
        if (limit <= 0) {
            throw new InvalidInputException("limit must be positive, got " + limit);
        }
    }

    // ---------------------------------------------------------------- mapping

    /** Columns 1-16 in {@link SqlDialect#SLOT_COLUMNS} order. */
    private Slot slot(TenantId tenantId, ResultSet rs) throws SQLException {
        return slot(tenantId, rs, 0);
    }

    /** The 16 {@link SqlDialect#SLOT_COLUMNS} from column {@code from + 1} on. */
    private Slot slot(TenantId tenantId, ResultSet rs, int from) throws SQLException {
        long cutoff = rs.getLong(from + 12);
        Long cutoffSeconds = rs.wasNull() ? null : cutoff;
        return new Slot(tenantId, SlotId.of(rs.getString(from + 1)), CoachId.of(rs.getString(from + 2)),
                RoomId.of(rs.getString(from + 3)),
                TimeRange.of(sql.readInstant(rs, from + 4), sql.readInstant(rs, from + 5)), rs.getInt(from + 6),
                SlotStatus.valueOf(rs.getString(from + 7)), sql.readInstant(rs, from + 8),
                sql.readInstant(rs, from + 9), Duration.ofSeconds(rs.getInt(from + 10)),
                Facts.cancellation(rs.getString(from + 11), cutoffSeconds), rs.getBoolean(from + 13),
                rs.getString(from + 14), rs.getInt(from + 15),
                rs.getString(from + 16) == null ? null : SeriesId.of(rs.getString(from + 16)));
    }

    /** Columns 1-7 in {@link SqlDialect#WAITER_COLUMNS} order. */
    private WaitlistEntry waiter(TenantId tenantId, ResultSet rs, int position) throws SQLException {
        String status = rs.getString(5);
        String reason = rs.getString(6);
        return new WaitlistEntry(tenantId, SlotId.of(rs.getString(3)), RequestId.of(rs.getString(2)),
                StudentId.of(rs.getString(4)), "WAITING".equals(status) ? position : 0,
                WaitlistEntry.Status.valueOf(status), reason == null ? null : WaitlistEntry.SkipReason.valueOf(reason),
                BookingId.of(rs.getString(1)), sql.readInstant(rs, 7));
    }

    /** Columns 1-12 in {@link SqlDialect#BOOKING_COLUMNS} order. */
    private Booking booking(TenantId tenantId, ResultSet rs) throws SQLException {
        String packageId = rs.getString(10);
        return new Booking(tenantId, BookingId.of(rs.getString(1)), RequestId.of(rs.getString(2)),
                SlotId.of(rs.getString(3)), StudentId.of(rs.getString(4)), rs.getInt(5),
                BookingStatus.valueOf(rs.getString(6)), sql.readInstant(rs, 7), sql.readInstant(rs, 8),
                sql.readInstant(rs, 9), packageId == null ? null : PackageId.of(packageId), rs.getInt(11),
                Attendance.valueOf(rs.getString(12)));
    }

    private static BookingStoreException unexpected(String routine, Fact answer) {
        return new BookingStoreException("routine " + routine + " answered an unknown tag '" + answer.tag() + "'");
    }

    /**
     * A caller's {@code now} (null: the database's clock) within the range every database stores (see
     * {@link org.slotbook.core.TimeRange}), refused by name and value before the call is sent.
     */
    private static void inRange(String field, @Nullable Instant now) {
        if (now != null) {
            org.slotbook.core.internal.Checks.micros(field, now);
        }
    }

    private static <T> T notNull(String field, T value) {
        if (value == null) {
            throw new InvalidInputException(field, field + " must not be null");
        }
        return value;
    }
}
