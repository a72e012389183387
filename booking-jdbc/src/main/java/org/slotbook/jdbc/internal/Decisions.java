package org.slotbook.jdbc.internal;

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
import java.util.List;
import java.util.Optional;
import org.slotbook.core.AlreadyBooked;
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
import org.slotbook.core.spi.BookingStore;
import org.slotbook.core.spi.HoldCommand;
import org.slotbook.core.spi.LiveSlot;
import org.slotbook.core.spi.StoreOutcome;
import org.slotbook.jdbc.internal.Facts.Fact;

/**
 * The {@link BookingStore} over JDBC: each decision is one call of its database routine (a PL/pgSQL
 * function, a MariaDB procedure, an H2 Java alias), whose fact rows this class turns into answers;
 * each read is one statement. The rules themselves live in the routines, not here.
 */
public final class Decisions implements BookingStore {
    private final StoreCore core;
    private final SqlDialect sql;
    private final String schedule;
    private final String hold;
    private final String confirm;
    private final String cancel;
    private final String cancelSlot;
    private final String expireDue;
    private final String leaveWaitlist;

    public Decisions(StoreCore core) {
        this.core = core;
        this.sql = core.sql();
        this.schedule = sql.call("schedule", 16);
        this.hold = sql.call("hold", 14);
        this.confirm = sql.call("confirm", 9);
        this.cancel = sql.call("cancel", 11);
        this.cancelSlot = sql.call("cancel_slot", 3);
        this.expireDue = sql.call("expire_due", 8);
        this.leaveWaitlist = sql.call("leave_waitlist", 4);
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
            ps.setBoolean(i, slot.bufferStudents());
        }, rs -> Facts.read(rs, sql, tenantId), false);
        Fact answer = facts.answer("schedule");
        return switch (answer.tag()) {
            case "SCHEDULED", "EXISTS" -> new Scheduled(facts.slot(answer));
            case "CONFLICT" -> new Conflict(facts.conflicts());
            default -> throw unexpected("schedule", answer);
        };
    }

    @Override
    public StoreOutcome<HoldResult> hold(TenantId tenantId, HoldCommand cmd) {
        notNull("tenantId", tenantId);
        notNull("command", cmd);
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
            ps.setLong(i, micros(cmd.rules().waitlistCutoff()));
        }, rs -> Facts.read(rs, sql, tenantId), true);
        Fact answer = facts.answer("hold");
        SlotId slotId = cmd.request().slotId();
        HoldResult result = switch (answer.tag()) {
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
            default -> throw unexpected("hold", answer);
        };
        return new StoreOutcome<>(result, facts.events(), null, facts.skipped());
    }

    @Override
    public StoreOutcome<ConfirmResult> confirm(TenantId tenantId, BookingId bookingId, StudentId studentId,
                                               Instant now, Terms terms) {
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
    public StoreOutcome<CancelResult> cancel(TenantId tenantId, BookingId bookingId, StudentId studentId,
                                             Instant now, Terms terms) {
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

    private static void bindTerms(PreparedStatement ps, int i, Terms terms) throws SQLException {
        ps.setLong(i++, micros(terms.holdTtl()));
        ps.setLong(i++, micros(terms.longestSession()));
        ps.setInt(i++, terms.rules().maxUpcoming());
        ps.setInt(i++, terms.rules().maxPerWeek());
        ps.setLong(i, micros(terms.rules().waitlistCutoff()));
    }

    @Override
    public StoreOutcome<CancelSlotResult> cancelSlot(TenantId tenantId, SlotId slotId, Instant now) {
        notNull("tenantId", tenantId);
        notNull("slotId", slotId);
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
    public StoreOutcome<Integer> expireDue(TenantId tenantId, Instant now, int limit, Terms terms) {
        notNull("tenantId", tenantId);
        if (limit <= 0) {
            throw new IllegalArgumentException("limit must be positive, got " + limit);
        }
        Facts facts = core.run(tenantId, "expire due holds", expireDue, ps -> {
            int i = sql.bindPrefix(ps);
            ps.setString(i++, tenantId.value());
            sql.bindInstant(ps, i++, now);
            ps.setInt(i++, limit);
            bindTerms(ps, i, terms);
        }, rs -> Facts.read(rs, sql, tenantId), false);
        List<BookingEvent> events = facts.events();
        int expired = (int) events.stream().filter(e -> e.kind() == BookingEvent.Kind.EXPIRED).count();
        return new StoreOutcome<>(expired, events, null, facts.skipped());
    }

    @Override
    public StoreOutcome<LeaveResult> leaveWaitlist(TenantId tenantId, RequestId requestId, StudentId studentId,
                                                   Instant now) {
        notNull("tenantId", tenantId);
        notNull("requestId", requestId);
        notNull("studentId", studentId);
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
        return core.run(tenantId, "read the waitlist of slot " + slotId, sql.waitlist(), ps -> {
            ps.setString(1, tenantId.value());
            ps.setString(2, slotId.value());
            ps.setInt(3, limit);
            ps.setInt(4, offset);
        }, rs -> {
            List<WaitlistEntry> out = new ArrayList<>();
            while (rs.next()) {
                out.add(waiter(tenantId, rs, offset + out.size() + 1));
            }
            return out;
        }, false);
    }

    @Override
    public List<Booking> roster(TenantId tenantId, SlotId slotId, Instant now, int offset, int limit) {
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
    public List<BookedSession> studentBookings(TenantId tenantId, StudentId studentId, Instant now, boolean upcoming,
                                               int offset, int limit) {
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
                out.add(new BookedSession(booking(tenantId, rs), slot(tenantId, rs, 9)));
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
            throw new IllegalArgumentException("resource must be a COACH or a ROOM, got " + resource.kind());
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
    public Optional<Availability> availability(TenantId tenantId, SlotId slotId, Instant now) {
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
            int held = rs.getInt(14);
            int confirmed = rs.getInt(15);
            return Optional.of(new Availability(slotId, slot.status(), slot.capacity(), held, confirmed,
                    Math.max(0, slot.capacity() - held - confirmed)));
        }, false);
    }

    @Override
    public Optional<LiveSlot> liveSlot(TenantId tenantId, SlotId slotId, Instant now) {
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
                String bookingId = rs.getString(14);
                if (bookingId != null) {
                    live.add(new Booking(tenantId, BookingId.of(bookingId), RequestId.of(rs.getString(15)), slotId,
                            StudentId.of(rs.getString(16)), rs.getInt(17), BookingStatus.valueOf(rs.getString(18)),
                            sql.readInstant(rs, 19), sql.readInstant(rs, 20), sql.readInstant(rs, 21)));
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
    public List<Slot> slots(TenantId tenantId, SlotId after, int limit) {
        notNull("tenantId", tenantId);
        if (limit <= 0) {
            throw new IllegalArgumentException("limit must be positive, got " + limit);
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
    public List<TenantId> tenants(TenantId after, int limit) {
        if (limit <= 0) {
            throw new IllegalArgumentException("limit must be positive, got " + limit);
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

    // ---------------------------------------------------------------- mapping

    /** Columns 1-13 in {@link SqlDialect#SLOT_COLUMNS} order. */
    private Slot slot(TenantId tenantId, ResultSet rs) throws SQLException {
        return slot(tenantId, rs, 0);
    }

    /** The 13 {@link SqlDialect#SLOT_COLUMNS} from column {@code from + 1} on. */
    private Slot slot(TenantId tenantId, ResultSet rs, int from) throws SQLException {
        long cutoff = rs.getLong(from + 12);
        Long cutoffSeconds = rs.wasNull() ? null : cutoff;
        return new Slot(tenantId, SlotId.of(rs.getString(from + 1)), CoachId.of(rs.getString(from + 2)),
                RoomId.of(rs.getString(from + 3)),
                TimeRange.of(sql.readInstant(rs, from + 4), sql.readInstant(rs, from + 5)), rs.getInt(from + 6),
                SlotStatus.valueOf(rs.getString(from + 7)), sql.readInstant(rs, from + 8),
                sql.readInstant(rs, from + 9), Duration.ofSeconds(rs.getInt(from + 10)),
                Facts.cancellation(rs.getString(from + 11), cutoffSeconds), rs.getBoolean(from + 13));
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

    /** Columns 1-9 in {@link SqlDialect#BOOKING_COLUMNS} order. */
    private Booking booking(TenantId tenantId, ResultSet rs) throws SQLException {
        return new Booking(tenantId, BookingId.of(rs.getString(1)), RequestId.of(rs.getString(2)),
                SlotId.of(rs.getString(3)), StudentId.of(rs.getString(4)), rs.getInt(5),
                BookingStatus.valueOf(rs.getString(6)), sql.readInstant(rs, 7), sql.readInstant(rs, 8),
                sql.readInstant(rs, 9));
    }

    private static BookingStoreException unexpected(String routine, Fact answer) {
        return new BookingStoreException("routine " + routine + " answered an unknown tag '" + answer.tag() + "'");
    }

    private static <T> T notNull(String field, T value) {
        if (value == null) {
            throw new IllegalArgumentException(field + " must not be null");
        }
        return value;
    }
}
