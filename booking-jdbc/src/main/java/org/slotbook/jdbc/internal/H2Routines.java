package org.slotbook.jdbc.internal;

import static org.slotbook.jdbc.internal.H2Arguments.cancellation;
import static org.slotbook.jdbc.internal.H2Arguments.clock;
import static org.slotbook.jdbc.internal.H2Arguments.command;
import static org.slotbook.jdbc.internal.H2Arguments.emptyToNull;
import static org.slotbook.jdbc.internal.H2Arguments.epochMicros;
import static org.slotbook.jdbc.internal.H2Arguments.instant;
import static org.slotbook.jdbc.internal.H2Arguments.integer;
import static org.slotbook.jdbc.internal.H2Arguments.invalid;
import static org.slotbook.jdbc.internal.H2Arguments.longOrNull;
import static org.slotbook.jdbc.internal.H2Arguments.micros;
import static org.slotbook.jdbc.internal.H2Arguments.mode;
import static org.slotbook.jdbc.internal.H2Arguments.records;
import static org.slotbook.jdbc.internal.H2Arguments.required;
import static org.slotbook.jdbc.internal.H2Arguments.slot;
import static org.slotbook.jdbc.internal.H2Arguments.terms;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slotbook.core.Booking;
import org.slotbook.core.BookingId;
import org.slotbook.core.CancellationPolicy;
import org.slotbook.core.Conflict;
import org.slotbook.core.Held;
import org.slotbook.core.HoldResult;
import org.slotbook.core.LessonPackage;
import org.slotbook.core.PackageGrant;
import org.slotbook.core.PackageId;
import org.slotbook.core.RequestId;
import org.slotbook.core.Scheduled;
import org.slotbook.core.ScheduleResult;
import org.slotbook.core.SeriesCancelled;
import org.slotbook.core.SeriesId;
import org.slotbook.core.SeriesMode;
import org.slotbook.core.SeriesResult;
import org.slotbook.core.Slot;
import org.slotbook.core.SlotId;
import org.slotbook.core.StudentId;
import org.slotbook.core.TenantId;
import org.slotbook.core.Waitlisted;
import org.slotbook.core.internal.rules.Rules;
import org.slotbook.core.rules.StoredSlot;
import org.slotbook.core.spi.HoldCommand;
import org.slotbook.core.spi.StoreOutcome;
import org.slotbook.core.spi.Terms;

/**
 * The one-call routines of the store on H2 ({@code docs}: the one-call contract): the booking rules
 * ({@link Rules}) run inside the database, as Java static methods that {@code routines-h2.sql}
 * registers per table prefix:
 * <pre>{@code
 * CREATE ALIAS IF NOT EXISTS ${prefix}hold DETERMINISTIC FOR 'org.slotbook.jdbc.internal.H2Routines.hold'
 * SELECT * FROM ${prefix}hold('${prefix}', ?, ?, ...)  -- as the store calls it; CALL works too, parsed twice
 * }</pre>
 * H2 passes its nested connection first (the caller's session and transaction); the table prefix is
 * the first SQL argument, since one method serves every prefix. Each routine checks its arguments
 * (SQLState 22023 naming the parameter), runs its decision over {@link H2Tx} and answers the fact rows of
 * the 20 contract columns ({@link H2Answers}).
 *
 * <p>Atomicity: H2 does not undo the writes of a table function whose call fails (the call is a query
 * to H2, and an autocommitted session then commits what the function had written). So each routine
 * sets a savepoint on the nested connection and rolls back to it when it fails; it never commits, rolls
 * back the transaction, or closes the connection. A unique violation propagates as it came (SQLState
 * 23505), as do lock timeouts and deadlocks (50200, 40001); rows that disagree with each other are
 * XX000.
 */
public final class H2Routines {
    /** The contract's fact columns, in order. */
    public static final List<String> FACT_COLUMNS = H2Answers.FACT_COLUMNS;

    /** The URL of the connection H2 passes when it only asks a table function for its columns. */
    private static final String COLUMN_LIST_URL = "jdbc:columnlist:connection";
    private static final String INCONSISTENT = "XX000";

    private H2Routines() {
    }

    /** Schedules a slot: SCHEDULED, EXISTS (the stored slot of its id) or CONFLICT rows. */
    public static ResultSet schedule(Connection connection, String prefix, String tenant, String slotId,
                                     String coach, String room, OffsetDateTime start, OffsetDateTime end,
                                     Integer capacity, Long longestMicros, OffsetDateTime opensAt,
                                     OffsetDateTime closesAt, Integer bufferSeconds, String cancelPolicy,
                                     Integer cancelCutoffSeconds, OffsetDateTime weekStart, OffsetDateTime weekEnd,
                                     Boolean bufferStudents, String classType, Integer cost, String seriesId)
            throws SQLException {
        return run(connection, prefix, tenant, (tx, out) -> {
            StoredSlot slot = slot(tx.tenantId(), slotId, coach, room, start, end, capacity, opensAt, closesAt,
                    bufferSeconds, cancelPolicy, cancelCutoffSeconds, weekStart, weekEnd, bufferStudents, classType,
                    cost, seriesId);
            tx.longest(micros("p_longest_micros", longestMicros));
            ScheduleResult result = Rules.schedule(tx, slot);
            if (result instanceof Scheduled s) {
                out.slot(tx.wrote() ? "SCHEDULED" : "EXISTS", s.slot());
            } else {
                out.conflicts(((Conflict) result).conflicts(), null);
            }
        });
    }

    /** Holds (p_status HELD) or books (CONFIRMED) a seat for the student, or puts him on the slot's waitlist. */
    public static ResultSet hold(Connection connection, String prefix, String tenant, String bookingId,
                                 String requestId, String slotId, String student, String status, OffsetDateTime now,
                                 Long holdMicros, Long longestMicros, Boolean gateHeld, Boolean waitlist,
                                 Integer maxUpcoming, Integer maxWeek, Long waitlistCutoffMicros,
                                 String creditPolicy)
            throws SQLException {
        return run(connection, prefix, tenant, (tx, out) -> {
            HoldCommand cmd = command(bookingId, requestId, slotId, student, status, now, holdMicros, longestMicros,
                    gateHeld, waitlist, maxUpcoming, maxWeek, waitlistCutoffMicros, creditPolicy);
            tx.longest(cmd.longestSession()).expect(cmd.request(), cmd.now());
            StoreOutcome<HoldResult> outcome = Rules.hold(tx, cmd, cmd.now());
            if (outcome.result() instanceof Held h && h.replayed()
                    || outcome.result() instanceof Waitlisted w && w.replayed()) {
                tx.undoNewLocks();
            }
            out.answer(outcome.result(), null);
            out.events(outcome);
        });
    }

    /** Confirms the student's live hold; a hold that ran out expires here instead, its seat offered to a waiter. */
    public static ResultSet confirm(Connection connection, String prefix, String tenant, String bookingId,
                                    String student, OffsetDateTime now, Long holdMicros, Long longestMicros,
                                    Integer maxUpcoming, Integer maxWeek, Long waitlistCutoffMicros,
                                    String creditPolicy)
            throws SQLException {
        return run(connection, prefix, tenant, (tx, out) -> {
            BookingId booking = BookingId.of(required("p_booking", bookingId));
            StudentId studentId = StudentId.of(required("p_student", student));
            Terms terms = terms(null, holdMicros, longestMicros, maxUpcoming, maxWeek, waitlistCutoffMicros,
                    creditPolicy, null, null, null);
            answer(out, Rules.confirm(tx.longest(terms.longestSession()), booking, studentId, clock(now), terms));
        });
    }

    /**
     * Cancels a booking (the student's own, or any of the tenant's when p_student is NULL: staff) and frees
     * its seat for the first waiter who can take it; the slot's cancel policy, else the given one.
     */
    public static ResultSet cancel(Connection connection, String prefix, String tenant, String bookingId,
                                   String student, OffsetDateTime now, String cancelPolicy, Long cancelCutoffMicros,
                                   Long holdMicros, Long longestMicros, Integer maxUpcoming, Integer maxWeek,
                                   Long waitlistCutoffMicros, String creditPolicy) throws SQLException {
        return run(connection, prefix, tenant, (tx, out) -> {
            BookingId booking = BookingId.of(required("p_booking", bookingId));
            CancellationPolicy policy = cancellation("p_cancel_policy", cancelPolicy,
                    cancelCutoffMicros == null ? null : Duration.of(cancelCutoffMicros, ChronoUnit.MICROS));
            Terms terms = terms(policy, holdMicros, longestMicros, maxUpcoming, maxWeek, waitlistCutoffMicros,
                    creditPolicy, null, null, null);
            StoreOutcome<?> outcome = Rules.cancel(tx.longest(terms.longestSession()), booking,
                    student == null ? null : StudentId.of(student), clock(now), terms);
            if (outcome.result() instanceof org.slotbook.core.Cancelled c && c.late()) {
                tx.markLate(booking);
            }
            answer(out, outcome);
        });
    }

    /** Calls a slot off: every seat closed, every active booking refunded and cancelled, every occupation released. */
    public static ResultSet cancelSlot(Connection connection, String prefix, String tenant, String slotId,
                                       OffsetDateTime now) throws SQLException {
        return run(connection, prefix, tenant, (tx, out) ->
                answer(out, Rules.cancelSlot(tx, SlotId.of(required("p_slot", slotId)), clock(now))));
    }

    /**
     * Expires up to p_limit holds of the tenant that ran out, oldest deadline first, each freed seat offered
     * to its waiters; then, with p_marks_no_shows, marks the no-shows with what is left of p_limit.
     */
    public static ResultSet expireDue(Connection connection, String prefix, String tenant, OffsetDateTime now,
                                      Integer limit, Long holdMicros, Long longestMicros, Integer maxUpcoming,
                                      Integer maxWeek, Long waitlistCutoffMicros, String creditPolicy,
                                      Boolean marksNoShows, Long checkInClosesMicros) throws SQLException {
        return run(connection, prefix, tenant, (tx, out) -> {
            if (limit == null || limit <= 0) {
                throw invalid("p_limit must be positive, got " + limit);
            }
            Terms terms = terms(null, holdMicros, longestMicros, maxUpcoming, maxWeek, waitlistCutoffMicros,
                    creditPolicy, null, checkInClosesMicros, marksNoShows);
            out.events(Rules.expireDue(tx.longest(terms.longestSession()), clock(now), limit, terms));
        });
    }

    /** Takes the student's waiting entry of request p_request off the waitlist: LEFT, NOT_WAITING or NOT_FOUND. */
    public static ResultSet leaveWaitlist(Connection connection, String prefix, String tenant, String requestId,
                                          String student, OffsetDateTime now) throws SQLException {
        return run(connection, prefix, tenant, (tx, out) -> answer(out, Rules.leaveWaitlist(tx,
                RequestId.of(required("p_request", requestId)), StudentId.of(required("p_student", student)),
                clock(now))));
    }

    /** Grants a package: GRANTED, or PACKAGE_EXISTS with the stored package of its id (nothing written). */
    public static ResultSet grantPackage(Connection connection, String prefix, String tenant, String packageId,
                                         String student, Integer credits, OffsetDateTime validFrom,
                                         OffsetDateTime validUntil, String classTypes, OffsetDateTime now)
            throws SQLException {
        return run(connection, prefix, tenant, (tx, out) -> {
            required("p_package", packageId);
            required("p_student", student);
            if (credits == null || credits <= 0) {
                throw invalid("p_credits must be positive, got " + credits);
            }
            Instant from = instant(required("p_valid_from", validFrom));
            Instant until = instant(required("p_valid_until", validUntil));
            if (!from.isBefore(until)) {
                throw invalid("p_valid_from must be before p_valid_until, got " + from + " and " + until);
            }
            PackageGrant grant = new PackageGrant(PackageId.of(packageId), StudentId.of(student), credits, from, until,
                    Set.copyOf(Facts.classTypes(classTypes)));
            LessonPackage granted = Rules.grantPackage(tx, grant, clock(now));
            out.lessonPackage(tx.wrote() ? "GRANTED" : "PACKAGE_EXISTS", granted);
        });
    }

    /** Checks a CONFIRMED booking in within [start - p_opens_before_micros, end + p_closes_after_micros). */
    public static ResultSet checkIn(Connection connection, String prefix, String tenant, String bookingId,
                                    String student, OffsetDateTime now, Long opensBeforeMicros,
                                    Long closesAfterMicros, String creditPolicy) throws SQLException {
        return run(connection, prefix, tenant, (tx, out) -> {
            BookingId booking = BookingId.of(required("p_booking", bookingId));
            Terms terms = terms(null, 1L, 1L, 0, 0, 0L, creditPolicy, opensBeforeMicros, closesAfterMicros, false);
            answer(out, Rules.checkIn(tx, booking, student == null ? null : StudentId.of(student), clock(now), terms));
        });
    }

    /**
     * Schedules the occurrences of a series in order, each as schedule does: SCHEDULED, or CONFLICT rows with
     * request_id = the occurrence's slot id. ALL_OR_NOTHING with a conflict: every write of the call is undone.
     */
    public static ResultSet scheduleSeries(Connection connection, String prefix, String tenant, String seriesId,
                                           String mode, Long longestMicros, String occurrences) throws SQLException {
        return run(connection, prefix, tenant, (tx, out) -> {
            required("p_series", seriesId);
            SeriesMode seriesMode = mode(mode);
            List<StoredSlot> slots = new ArrayList<>();
            for (String[] f : records(occurrences, 16)) {
                slots.add(slot(tx.tenantId(), f[0], f[1], f[2], epochMicros(f[3]), epochMicros(f[4]), integer(f[5]),
                        epochMicros(f[6]), epochMicros(f[7]), integer(f[8]), emptyToNull(f[9]), integer(f[10]),
                        epochMicros(f[11]), epochMicros(f[12]), "1".equals(f[13]), emptyToNull(f[14]),
                        integer(f[15]), seriesId));
            }
            tx.longest(micros("p_longest_micros", longestMicros));
            SeriesResult result = Rules.scheduleSeries(tx, SeriesId.of(seriesId), seriesMode, slots);
            for (SeriesResult.Occurrence o : result.occurrences()) {
                if (o.status() == SeriesResult.Occurrence.Status.CONFLICT) {
                    out.conflicts(o.conflicts(), o.slot().slotId().value());
                } else if (o.status() == SeriesResult.Occurrence.Status.SCHEDULED) {
                    out.slot("SCHEDULED", o.slot());
                }
            }
        });
    }

    /** Cancels, as cancel_slot does, every OPEN occurrence of the series starting at or after p_from. */
    public static ResultSet cancelSeries(Connection connection, String prefix, String tenant, String seriesId,
                                         OffsetDateTime from, OffsetDateTime now) throws SQLException {
        return run(connection, prefix, tenant, (tx, out) -> {
            SeriesId series = SeriesId.of(required("p_series", seriesId));
            StoreOutcome<SeriesCancelled> outcome = Rules.cancelSeries(tx, series, instant(required("p_from", from)),
                    clock(now));
            for (Slot slot : outcome.result().slots()) {
                out.slot("SLOT_CANCELLED", slot);
            }
            out.events(outcome);
        });
    }

    /**
     * Runs hold for each command in order, every row of command n (from 1) with capacity = n. ALL_OR_NOTHING
     * and a command that does not hold a seat: every write of the call is undone.
     */
    public static ResultSet holdAll(Connection connection, String prefix, String tenant, String mode,
                                    String commands) throws SQLException {
        return run(connection, prefix, tenant, (tx, out) -> {
            SeriesMode seriesMode = mode(mode);
            List<HoldCommand> holds = new ArrayList<>();
            List<String> requests = new ArrayList<>();
            Duration longest = null;
            for (String[] f : records(commands, 14)) {
                HoldCommand cmd = command(f[0], f[1], f[2], f[3], f[4], epochMicros(f[5]), longOrNull(f[6]),
                        longOrNull(f[7]), "1".equals(f[8]), "1".equals(f[9]), integer(f[10]), integer(f[11]),
                        longOrNull(f[12]), emptyToNull(f[13]));
                holds.add(cmd);
                requests.add(cmd.request().requestId().value());
                longest = longest == null || longest.compareTo(cmd.longestSession()) < 0 ? cmd.longestSession() : longest;
            }
            StoreOutcome<List<HoldResult>> outcome = Rules.holdAll(tx.longest(longest), holds, seriesMode, clock(null));
            for (int n = 0; n < outcome.result().size(); n++) {
                int before = out.answers();
                out.answer(outcome.result().get(n), null);
                out.part(before, n + 1);
            }
            out.events(outcome).partEvents(requests);
        });
    }

    // ================================================================== one call

    @FunctionalInterface
    private interface Body {
        void run(H2Tx tx, H2Answers out) throws SQLException;
    }

    /** The answer and events of an outcome whose result is the answer row; a cancel's subject with it. */
    private static void answer(H2Answers out, StoreOutcome<?> outcome) {
        Booking subject = outcome.subject();
        out.answer(outcome.result(), subject);
        out.events(outcome);
    }

    /**
     * Runs a routine's body on the nested connection under a savepoint (see {@link H2Tx}), so that a failure
     * leaves nothing behind; answers the fact rows. H2's column-list probe gets the columns only.
     */
    private static ResultSet run(Connection connection, String prefix, String tenant, Body body) throws SQLException {
        if (COLUMN_LIST_URL.equals(connection.getMetaData().getURL())) {
            return H2Answers.columns();
        }
        H2Sql sql;
        try {
            sql = H2Sql.of(prefix);
        } catch (IllegalArgumentException e) {
            throw invalid(e.getMessage());
        }
        TenantId tenantId;
        try {
            tenantId = TenantId.of(required("p_tenant", tenant));
        } catch (IllegalArgumentException e) {
            throw invalid(e.getMessage());
        }
        H2Tx tx = new H2Tx(connection, sql, tenantId);
        H2Answers out = new H2Answers();
        try {
            // the fence is read with the call's first statement (H2Tx), or at its end when it ran none
            body.run(tx, out);
        } catch (SQLException | RuntimeException | Error e) {
            tx.abort(e);
            if (e instanceof H2Sql.Failure failure) {
                throw failure.sql();
            }
            if (e instanceof IllegalArgumentException) {
                throw invalid(e.getMessage());
            }
            if (e instanceof IllegalStateException) {
                throw new SQLException("ledger rows disagree, nothing was changed: " + e.getMessage(), INCONSISTENT, e);
            }
            throw e;
        }
        tx.finish();
        return out.done();
    }

    /**
     * The statements the routines run for {@code prefix}, by name (for plan checks; the routines are the
     * only callers that matter).
     *
     * @param prefix the table prefix
     * @return the statements by name
     * @throws SQLException when the prefix is not one
     */
    public static Map<String, String> statements(String prefix) throws SQLException {
        try {
            return H2Sql.of(prefix).byName;
        } catch (IllegalArgumentException e) {
            throw invalid(e.getMessage());
        }
    }
}
