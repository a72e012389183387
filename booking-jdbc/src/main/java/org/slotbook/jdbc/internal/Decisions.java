package org.slotbook.jdbc.internal;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.slotbook.core.AlreadyBooked;
import org.slotbook.core.AlreadyCancelled;
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

    public Decisions(StoreCore core) {
        this.core = core;
        this.sql = core.sql();
        this.schedule = sql.call("schedule", 8);
        this.hold = sql.call("hold", 10);
        this.confirm = sql.call("confirm", 4);
        this.cancel = sql.call("cancel", 4);
        this.cancelSlot = sql.call("cancel_slot", 3);
        this.expireDue = sql.call("expire_due", 3);
    }

    private static long micros(Duration d) {
        return d.truncatedTo(ChronoUnit.MICROS).toNanos() / 1000;
    }

    @Override
    public ScheduleResult schedule(TenantId tenantId, Slot slot, Duration longestSession) {
        notNull("tenantId", tenantId);
        notNull("slot", slot);
        Facts facts = core.run(tenantId, "schedule slot " + slot.slotId(), schedule, ps -> {
            int i = sql.bindPrefix(ps);
            ps.setString(i++, tenantId.value());
            ps.setString(i++, slot.slotId().value());
            ps.setString(i++, slot.coachId().value());
            ps.setString(i++, slot.roomId().value());
            sql.bindInstant(ps, i++, slot.time().start());
            sql.bindInstant(ps, i++, slot.time().end());
            ps.setInt(i++, slot.capacity());
            ps.setLong(i, micros(longestSession));
        }, rs -> Facts.read(rs, sql, tenantId), false);
        Fact answer = facts.answer("schedule");
        return switch (answer.tag()) {
            case "SCHEDULED", "EXISTS" -> new Scheduled(answer.slot());
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
            ps.setBoolean(i, cmd.gateHeld());
        }, rs -> Facts.read(rs, sql, tenantId), true);
        Fact answer = facts.answer("hold");
        HoldResult result = switch (answer.tag()) {
            case "HELD" -> new Held(answer.booking(), false);
            case "REPLAY" -> new Held(answer.booking(), true);
            case "ALREADY" -> new AlreadyBooked(answer.booking());
            case "CONFLICT" -> new Conflict(facts.conflicts());
            case "FULL" -> new Full(cmd.request().slotId());
            case "NOT_OPEN" -> new SlotNotOpen(cmd.request().slotId(), SlotStatus.valueOf(answer.status()));
            case "NOT_FOUND" -> new NotFound();
            default -> throw unexpected("hold", answer);
        };
        return StoreOutcome.of(result, facts.events());
    }

    @Override
    public StoreOutcome<ConfirmResult> confirm(TenantId tenantId, BookingId bookingId, StudentId studentId,
                                               Instant now) {
        Facts facts = transition("confirm", confirm, tenantId, bookingId, studentId, now);
        Fact answer = facts.answer("confirm");
        ConfirmResult result = switch (answer.tag()) {
            case "CONFIRMED" -> new Confirmed(answer.booking());
            case "HOLD_EXPIRED" -> new HoldExpired(answer.booking());
            case "ALREADY_CANCELLED" -> new AlreadyCancelled();
            case "NOT_FOUND" -> new NotFound();
            default -> throw unexpected("confirm", answer);
        };
        return StoreOutcome.of(result, facts.events());
    }

    @Override
    public StoreOutcome<CancelResult> cancel(TenantId tenantId, BookingId bookingId, StudentId studentId,
                                             Instant now) {
        Facts facts = transition("cancel", cancel, tenantId, bookingId, studentId, now);
        Fact answer = facts.answer("cancel");
        return switch (answer.tag()) {
            case "CANCELLED" -> StoreOutcome.of(new Cancelled(answer.booking()), facts.events());
            case "ALREADY_CANCELLED" -> new StoreOutcome<>(new AlreadyCancelled(), facts.events(), answer.booking());
            case "NOT_FOUND" -> StoreOutcome.of(new NotFound());
            default -> throw unexpected("cancel", answer);
        };
    }

    private Facts transition(String verb, String statement, TenantId tenantId, BookingId bookingId,
                             StudentId studentId, Instant now) {
        notNull("tenantId", tenantId);
        notNull("bookingId", bookingId);
        notNull("studentId", studentId);
        return core.run(tenantId, verb + " booking " + bookingId, statement, ps -> {
            int i = sql.bindPrefix(ps);
            ps.setString(i++, tenantId.value());
            ps.setString(i++, bookingId.value());
            ps.setString(i++, studentId.value());
            sql.bindInstant(ps, i, now);
        }, rs -> Facts.read(rs, sql, tenantId), false);
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
                yield StoreOutcome.of(new SlotCancelled(answer.slot(), events.size()), events);
            }
            case "ALREADY_CANCELLED" -> StoreOutcome.of(new AlreadyCancelled());
            case "NOT_FOUND" -> StoreOutcome.of(new NotFound());
            default -> throw unexpected("cancel_slot", answer);
        };
    }

    @Override
    public List<Booking> expireDue(TenantId tenantId, Instant now, int limit) {
        notNull("tenantId", tenantId);
        if (limit <= 0) {
            throw new IllegalArgumentException("limit must be positive, got " + limit);
        }
        Facts facts = core.run(tenantId, "expire due holds", expireDue, ps -> {
            int i = sql.bindPrefix(ps);
            ps.setString(i++, tenantId.value());
            sql.bindInstant(ps, i++, now);
            ps.setInt(i, limit);
        }, rs -> Facts.read(rs, sql, tenantId), false);
        List<Booking> expired = new ArrayList<>();
        for (BookingEvent e : facts.events()) {
            expired.add(e.booking());
        }
        return expired;
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
            int held = rs.getInt(8);
            int confirmed = rs.getInt(9);
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
                String bookingId = rs.getString(8);
                if (bookingId != null) {
                    live.add(new Booking(tenantId, BookingId.of(bookingId), RequestId.of(rs.getString(9)), slotId,
                            StudentId.of(rs.getString(10)), rs.getInt(11), BookingStatus.valueOf(rs.getString(12)),
                            sql.readInstant(rs, 13), sql.readInstant(rs, 14), sql.readInstant(rs, 15)));
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

    /** Columns 1-7: slot_id, coach_id, room_id, starts_at, ends_at, capacity, status. */
    private Slot slot(TenantId tenantId, ResultSet rs) throws SQLException {
        return new Slot(tenantId, SlotId.of(rs.getString(1)), CoachId.of(rs.getString(2)), RoomId.of(rs.getString(3)),
                TimeRange.of(sql.readInstant(rs, 4), sql.readInstant(rs, 5)), rs.getInt(6),
                SlotStatus.valueOf(rs.getString(7)));
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
