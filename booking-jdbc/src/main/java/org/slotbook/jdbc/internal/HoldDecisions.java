package org.slotbook.jdbc.internal;

import static org.slotbook.jdbc.internal.Params.FIELD;
import static org.slotbook.jdbc.internal.Params.RECORD;
import static org.slotbook.jdbc.internal.Params.epochMicros;
import static org.slotbook.jdbc.internal.Params.micros;
import static org.slotbook.jdbc.internal.Params.notNull;
import static org.slotbook.jdbc.internal.Params.record;
import static org.slotbook.jdbc.internal.Params.unexpected;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slotbook.core.AlreadyBooked;
import org.slotbook.core.BookingClosed;
import org.slotbook.core.BookingStoreException;
import org.slotbook.core.Conflict;
import org.slotbook.core.Full;
import org.slotbook.core.Held;
import org.slotbook.core.HoldResult;
import org.slotbook.core.InsufficientCredits;
import org.slotbook.core.InvalidInputException;
import org.slotbook.core.LimitReached;
import org.slotbook.core.NotFound;
import org.slotbook.core.NotOpenYet;
import org.slotbook.core.SeriesMode;
import org.slotbook.core.SlotId;
import org.slotbook.core.SlotNotOpen;
import org.slotbook.core.SlotStatus;
import org.slotbook.core.StoreUnreachableException;
import org.slotbook.core.StudentId;
import org.slotbook.core.TenantId;
import org.slotbook.core.WaitlistEntry;
import org.slotbook.core.Waitlisted;
import org.slotbook.core.internal.CallCombiner;
import org.slotbook.core.spi.BookingEvent;
import org.slotbook.core.spi.DuplicateBookingException;
import org.slotbook.core.spi.HoldCommand;
import org.slotbook.core.spi.StoreOutcome;
import org.slotbook.jdbc.JdbcDialect;
import org.slotbook.jdbc.internal.Facts.Fact;

/**
 * The decisions that seat a student: {@code hold} (alone, or combined with concurrent holds into one
 * {@code hold_batch} call on PostgreSQL and MariaDB) and {@code hold_all} (a student's seats of several
 * slots in one call). See {@link Decisions} for the routines.
 */
final class HoldDecisions {
    private static final Logger LOG = LoggerFactory.getLogger(Decisions.class);
    /** The most holds one {@code hold_batch} call carries. */
    static final int HOLD_BATCH = 16;
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
    private final String hold;
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
    HoldDecisions(StoreCore core, int holdLanes) {
        this.core = core;
        this.sql = core.sql();
        this.hold = sql.call("hold", 15);
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

    /**
     * One hold ({@link org.slotbook.core.spi.BookingStore#hold}). With hold lanes (PostgreSQL, MariaDB), a hold that finds its lane busy queues, and the queued holds go
     * to the database together as one {@code hold_batch} call (see {@link #sendHolds}); a hold that joins
     * the waitlist is always a call of its own.
     */
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
}
