package org.slotbook.jdbc.internal;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.JdbiException;
import org.jdbi.v3.core.statement.Query;
import org.jdbi.v3.core.statement.Update;
import org.slotbook.core.Booking;
import org.slotbook.core.BookingId;
import org.slotbook.core.BookingStatus;
import org.slotbook.core.BookingStoreException;
import org.slotbook.core.CoachId;
import org.slotbook.core.RequestId;
import org.slotbook.core.RoomId;
import org.slotbook.core.Slot;
import org.slotbook.core.SlotId;
import org.slotbook.core.SlotStatus;
import org.slotbook.core.StudentId;
import org.slotbook.core.TenantId;
import org.slotbook.core.TimeRange;
import org.slotbook.core.spi.DuplicateBookingException;
import org.slotbook.core.spi.NewBooking;
import org.slotbook.core.spi.SeatClaim;
import org.slotbook.core.spi.SeatCount;
import org.slotbook.core.spi.SeatLedger;
import org.slotbook.core.spi.StoreTransaction;
import org.slotbook.jdbc.JdbcDialect;

/**
 * Seats as rows. A seat row carries its owner (booking, student, status, deadline), so taking a free
 * seat, or one whose hold ran out, is one locked statement on one row; every other change of a seat
 * is an UPDATE conditioned on its owner and status, whose affected row count decides.
 *
 * <p>Lock order, the same in every primitive: slot row, then seat rows, then booking rows.
 */
public final class JdbcSeatLedger implements SeatLedger {
    private static final String BOOKING_COLUMNS =
            "booking_id, request_id, slot_id, student_id, seat, status, held_until, created_at, updated_at";
    private static final int SEAT_INSERT_CHUNK = 1000;
    private static final int CLAIM_ROUNDS = 8;

    private final StoreCore core;
    private final JdbcDialect dialect;
    private final Times times;
    private final String slot;
    private final String seat;
    private final String booking;

    public JdbcSeatLedger(StoreCore core) {
        this.core = core;
        this.dialect = core.dialect();
        this.times = core.times();
        this.slot = core.tables().slot();
        this.seat = core.tables().seat();
        this.booking = core.tables().booking();
    }

    @Override
    public <T> T inTransaction(TenantId tenantId, Function<StoreTransaction, T> work) {
        return core.inTransaction(tenantId, work);
    }

    // ---------------------------------------------------------------- slots

    @Override
    public boolean insertSlot(StoreTransaction t, Slot newSlot) {
        JdbcTx tx = core.tx(t);
        notNull("slot", newSlot);
        if (!newSlot.tenantId().equals(tx.tenantId())) {
            throw new IllegalArgumentException("slot.tenantId must be the transaction's tenant " + tx.tenantId()
                    + ", got " + newSlot.tenantId());
        }
        boolean inserted = core.step(tx, "insert slot " + newSlot.slotId(), h -> insertSlotRow(tx, h, newSlot));
        if (inserted) {
            core.step(tx, "insert the seats of slot " + newSlot.slotId(), h -> {
                insertSeats(tx, h, newSlot.slotId(), newSlot.capacity());
                return null;
            });
        }
        return inserted;
    }

    private boolean insertSlotRow(JdbcTx tx, Handle h, Slot s) {
        String sql = "INSERT INTO " + slot + " (tenant_id, slot_id, coach_id, room_id, starts_at, ends_at, capacity,"
                + " status) VALUES (:t, :slot, :coach, :room, :start, :end, :capacity, :status)";
        if (dialect == JdbcDialect.POSTGRESQL) {
            sql += " ON CONFLICT DO NOTHING";
        }
        Update insert = h.createUpdate(sql)
                .bind("t", tx.tenantId().value())
                .bind("slot", s.slotId().value())
                .bind("coach", s.coachId().value())
                .bind("room", s.roomId().value())
                .bind("start", times.arg(s.time().start()))
                .bind("end", times.arg(s.time().end()))
                .bind("capacity", s.capacity())
                .bind("status", s.status().name());
        if (dialect == JdbcDialect.POSTGRESQL) {
            return insert.execute() == 1;
        }
        try {
            return insert.execute() == 1;
        } catch (JdbiException e) {
            // MariaDB and H2 undo only the failed statement; the transaction goes on
            if (SqlErrors.isUniqueViolation(dialect, e)) {
                return false;
            }
            throw e;
        }
    }

    private void insertSeats(JdbcTx tx, Handle h, SlotId slotId, int capacity) {
        switch (dialect) {
            case POSTGRESQL -> h.createUpdate("INSERT INTO " + seat + " (tenant_id, slot_id, seq, status)"
                            + " SELECT :t, :slot, g, 'FREE' FROM generate_series(1, :capacity) AS g")
                    .bind("t", tx.tenantId().value()).bind("slot", slotId.value()).bind("capacity", capacity)
                    .execute();
            case H2 -> h.createUpdate("INSERT INTO " + seat + " (tenant_id, slot_id, seq, status)"
                            + " SELECT CAST(:t AS VARCHAR(64)), CAST(:slot AS VARCHAR(64)), CAST(X AS INTEGER), 'FREE'"
                            + " FROM SYSTEM_RANGE(1, :capacity)")
                    .bind("t", tx.tenantId().value()).bind("slot", slotId.value()).bind("capacity", capacity)
                    .execute();
            case MARIADB -> {
                for (int from = 1; from <= capacity; from += SEAT_INSERT_CHUNK) {
                    int to = Math.min(capacity, from + SEAT_INSERT_CHUNK - 1);
                    StringBuilder sql = new StringBuilder("INSERT INTO ").append(seat)
                            .append(" (tenant_id, slot_id, seq, status) VALUES ");
                    for (int seq = from; seq <= to; seq++) {
                        sql.append(seq == from ? "" : ", ").append("(:t, :slot, ").append(seq).append(", 'FREE')");
                    }
                    h.createUpdate(sql.toString())
                            .bind("t", tx.tenantId().value()).bind("slot", slotId.value())
                            .execute();
                }
            }
        }
    }

    @Override
    public Optional<Slot> findSlot(StoreTransaction t, SlotId slotId) {
        JdbcTx tx = core.tx(t);
        notNull("slotId", slotId);
        return core.step(tx, "read slot " + slotId, h -> h.createQuery(
                        "SELECT slot_id, coach_id, room_id, starts_at, ends_at, capacity, status FROM " + slot
                                + " WHERE tenant_id = :t AND slot_id = :slot")
                .bind("t", tx.tenantId().value())
                .bind("slot", slotId.value())
                .map((rs, ctx) -> slot(tx.tenantId(), rs))
                .findOne());
    }

    @Override
    public List<Slot> slots(StoreTransaction t, SlotId after, int limit) {
        JdbcTx tx = core.tx(t);
        positive("limit", limit);
        String sql = "SELECT slot_id, coach_id, room_id, starts_at, ends_at, capacity, status FROM " + slot
                + " WHERE tenant_id = :t" + (after == null ? "" : " AND slot_id > :after")
                + " ORDER BY slot_id LIMIT :limit";
        return core.step(tx, "list slots", h -> {
            Query query = h.createQuery(sql).bind("t", tx.tenantId().value()).bind("limit", limit);
            if (after != null) {
                query.bind("after", after.value());
            }
            return query.map((rs, ctx) -> slot(tx.tenantId(), rs)).list();
        });
    }

    @Override
    public List<BookingId> cancelSlot(StoreTransaction t, SlotId slotId, Instant now) {
        JdbcTx tx = core.tx(t);
        notNull("slotId", slotId);
        notNull("now", now);
        String what = "cancel slot " + slotId;
        int changed = core.step(tx, what, h -> h.createUpdate("UPDATE " + slot + " SET status = 'CANCELLED'"
                        + " WHERE tenant_id = :t AND slot_id = :slot AND status = 'OPEN'")
                .bind("t", tx.tenantId().value()).bind("slot", slotId.value())
                .execute());
        if (changed == 0) {
            return List.of();
        }
        // Close every seat, free ones included: a claim still in flight holds its seat's lock, so this
        // waits for it, and no claim can take a seat of this slot afterwards.
        core.step(tx, what, h -> h.createUpdate("UPDATE " + seat + " SET status = 'CLOSED', booking_id = NULL,"
                        + " student_id = NULL, held_until = NULL"
                        + " WHERE tenant_id = :t AND slot_id = :slot AND status <> 'CLOSED'")
                .bind("t", tx.tenantId().value()).bind("slot", slotId.value())
                .execute());
        List<BookingId> cancelled = core.step(tx, what, h -> h.createQuery("SELECT booking_id FROM " + booking
                        + " WHERE tenant_id = :t AND slot_id = :slot AND status IN ('HELD', 'CONFIRMED')"
                        + " ORDER BY seat")
                .bind("t", tx.tenantId().value()).bind("slot", slotId.value())
                .map((rs, ctx) -> BookingId.of(rs.getString(1)))
                .list());
        int updated = core.step(tx, what, h -> h.createUpdate("UPDATE " + booking
                        + " SET status = 'CANCELLED', updated_at = :now"
                        + " WHERE tenant_id = :t AND slot_id = :slot AND status IN ('HELD', 'CONFIRMED')")
                .bind("t", tx.tenantId().value()).bind("slot", slotId.value()).bind("now", times.arg(now))
                .execute());
        if (updated != cancelled.size()) {
            throw inconsistent(tx, what + ": " + cancelled.size() + " active bookings read, " + updated + " cancelled");
        }
        return cancelled;
    }

    // ---------------------------------------------------------------- bookings: reads

    @Override
    public Optional<Booking> findBooking(StoreTransaction t, BookingId bookingId) {
        JdbcTx tx = core.tx(t);
        notNull("bookingId", bookingId);
        return core.step(tx, "read booking " + bookingId, h -> h.createQuery("SELECT " + BOOKING_COLUMNS
                        + " FROM " + booking + " WHERE tenant_id = :t AND booking_id = :b")
                .bind("t", tx.tenantId().value()).bind("b", bookingId.value())
                .map((rs, ctx) -> booking(tx.tenantId(), rs))
                .findOne());
    }

    @Override
    public Optional<Booking> findByRequest(StoreTransaction t, RequestId requestId) {
        JdbcTx tx = core.tx(t);
        notNull("requestId", requestId);
        return core.step(tx, "read the booking of request " + requestId, h -> h.createQuery("SELECT "
                        + BOOKING_COLUMNS + " FROM " + booking + " WHERE tenant_id = :t AND request_id = :r")
                .bind("t", tx.tenantId().value()).bind("r", requestId.value())
                .map((rs, ctx) -> booking(tx.tenantId(), rs))
                .findOne());
    }

    @Override
    public Optional<Booking> findActive(StoreTransaction t, SlotId slotId, StudentId studentId) {
        JdbcTx tx = core.tx(t);
        notNull("slotId", slotId);
        notNull("studentId", studentId);
        return core.step(tx, "read the booking of student " + studentId, h -> h.createQuery("SELECT "
                        + BOOKING_COLUMNS + " FROM " + booking + " WHERE tenant_id = :t AND slot_id = :slot"
                        + " AND student_id = :student AND status IN ('HELD', 'CONFIRMED')")
                .bind("t", tx.tenantId().value()).bind("slot", slotId.value()).bind("student", studentId.value())
                .map((rs, ctx) -> booking(tx.tenantId(), rs))
                .findFirst());
    }

    @Override
    public boolean hasFreeSeat(StoreTransaction t, SlotId slotId, Instant now) {
        JdbcTx tx = core.tx(t);
        notNull("slotId", slotId);
        notNull("now", now);
        // Two EXISTS, each served by its own index (the free-seat one, the held-by-deadline one).
        return core.step(tx, "look for a free seat of slot " + slotId, h -> h.createQuery(
                        "SELECT CASE WHEN EXISTS (SELECT 1 FROM " + seat
                                + " WHERE tenant_id = :t AND slot_id = :slot AND status = 'FREE')"
                                + " OR EXISTS (SELECT 1 FROM " + seat
                                + " WHERE tenant_id = :t AND slot_id = :slot AND status = 'HELD'"
                                + " AND held_until <= :now) THEN 1 ELSE 0 END")
                .bind("t", tx.tenantId().value()).bind("slot", slotId.value()).bind("now", times.arg(now))
                .mapTo(Integer.class)
                .one()) == 1;
    }

    @Override
    public SeatCount count(StoreTransaction t, SlotId slotId, Instant now) {
        JdbcTx tx = core.tx(t);
        notNull("slotId", slotId);
        notNull("now", now);
        return core.step(tx, "count the seats of slot " + slotId, h -> h.createQuery(
                        "SELECT COALESCE(SUM(CASE WHEN status = 'HELD' AND held_until > :now THEN 1 ELSE 0 END), 0),"
                                + " COALESCE(SUM(CASE WHEN status = 'CONFIRMED' THEN 1 ELSE 0 END), 0)"
                                + " FROM " + seat + " WHERE tenant_id = :t AND slot_id = :slot"
                                + " AND status IN ('HELD', 'CONFIRMED')")
                .bind("t", tx.tenantId().value()).bind("slot", slotId.value()).bind("now", times.arg(now))
                .map((rs, ctx) -> new SeatCount((int) rs.getLong(1), (int) rs.getLong(2)))
                .one());
    }

    @Override
    public List<Booking> liveBookings(StoreTransaction t, SlotId slotId, Instant now) {
        JdbcTx tx = core.tx(t);
        notNull("slotId", slotId);
        notNull("now", now);
        return core.step(tx, "read the live bookings of slot " + slotId, h -> h.createQuery("SELECT "
                        + BOOKING_COLUMNS + " FROM " + booking + " WHERE tenant_id = :t AND slot_id = :slot"
                        + " AND (status = 'CONFIRMED' OR (status = 'HELD' AND held_until > :now)) ORDER BY seat")
                .bind("t", tx.tenantId().value()).bind("slot", slotId.value()).bind("now", times.arg(now))
                .map((rs, ctx) -> booking(tx.tenantId(), rs))
                .list());
    }

    // ---------------------------------------------------------------- the claim

    @Override
    public Optional<SeatClaim> claimSeat(StoreTransaction t, NewBooking nb, Instant now) {
        JdbcTx tx = core.tx(t);
        notNull("booking", nb);
        notNull("now", now);
        String what = "claim a seat of slot " + nb.slotId() + " for student " + nb.studentId();
        try {
            Taken taken = null;
            for (int round = 0; round < CLAIM_ROUNDS && taken == null; round++) {
                // First without waiting for seats other claims have locked; then, before answering
                // "no seat", once more waiting for them, since such a claim may yet roll back.
                Optional<Taken> attempt = takeSeat(tx, nb, now, true);
                if (attempt.isEmpty()) {
                    attempt = takeSeat(tx, nb, now, false);
                    if (attempt.isEmpty()) {
                        return Optional.empty();
                    }
                }
                taken = attempt.get().seq() > 0 ? attempt.get() : null;
            }
            if (taken == null) {
                throw new BookingStoreException("could not " + what + ": the seat rows kept changing under the claim");
            }
            Taken seatTaken = taken;
            if (seatTaken.displaced() != null) {
                int expired = core.step(tx, what, h -> h.createUpdate("UPDATE " + booking
                                + " SET status = 'EXPIRED', updated_at = :now"
                                + " WHERE tenant_id = :t AND booking_id = :b AND status = 'HELD'")
                        .bind("t", tx.tenantId().value()).bind("b", seatTaken.displaced()).bind("now", times.arg(now))
                        .execute());
                if (expired != 1) {
                    throw inconsistent(tx, what + ": displaced booking " + seatTaken.displaced() + " was not HELD");
                }
            }
            core.step(tx, what, h -> h.createUpdate("INSERT INTO " + booking + " (tenant_id, " + BOOKING_COLUMNS
                            + ") VALUES (:t, :b, :request, :slot, :student, :seat, :status, :heldUntil, :now, :now)")
                    .bind("t", tx.tenantId().value())
                    .bind("b", nb.bookingId().value())
                    .bind("request", nb.requestId().value())
                    .bind("slot", nb.slotId().value())
                    .bind("student", nb.studentId().value())
                    .bind("seat", seatTaken.seq())
                    .bind("status", nb.status().name())
                    .bind("heldUntil", times.arg(nb.heldUntil()))
                    .bind("now", times.arg(now))
                    .execute());
            Booking written = new Booking(tx.tenantId(), nb.bookingId(), nb.requestId(), nb.slotId(), nb.studentId(),
                    seatTaken.seq(), nb.status(), nb.heldUntil(), now, now);
            return Optional.of(new SeatClaim(written,
                    Optional.ofNullable(seatTaken.displaced()).map(BookingId::of)));
        } catch (BookingStoreException e) {
            if (SqlErrors.isUniqueViolation(dialect, e)) {
                DuplicateBookingException duplicate = new DuplicateBookingException("request " + nb.requestId()
                        + " or student " + nb.studentId() + " already has a booking in slot " + nb.slotId()
                        + " of tenant " + tx.tenantId(), e.getCause());
                tx.refused(duplicate);
                throw duplicate;
            }
            throw e;
        }
    }

    /** A seat taken for the claim (seq 0: the locked seat changed before the update, try again). */
    private record Taken(int seq, String displaced) {
    }

    private Optional<Taken> takeSeat(JdbcTx tx, NewBooking nb, Instant now, boolean skipLocked) {
        Optional<Taken> free = takeSeat(tx, nb, now, skipLocked, false);
        return free.isPresent() ? free : takeSeat(tx, nb, now, skipLocked, true);
    }

    private Optional<Taken> takeSeat(JdbcTx tx, NewBooking nb, Instant now, boolean skipLocked, boolean expired) {
        String lock = skipLocked ? " FOR UPDATE SKIP LOCKED" : " FOR UPDATE";
        String candidates = expired
                ? " WHERE tenant_id = :t AND slot_id = :slot AND status = 'HELD' AND held_until <= :now"
                        + " ORDER BY held_until LIMIT 1"
                : " WHERE tenant_id = :t AND slot_id = :slot AND status = 'FREE' ORDER BY seq LIMIT 1";
        String set = " SET status = :status, booking_id = :b, student_id = :student, held_until = :heldUntil";
        String what = "claim a seat of slot " + nb.slotId() + " for student " + nb.studentId();
        if (dialect == JdbcDialect.POSTGRESQL && !expired) {
            // One statement: lock the first free seat nobody else holds, and take it. The scalar
            // subquery keeps the outer update on the primary key whatever the planner estimates.
            String sql = "UPDATE " + seat + set + " WHERE tenant_id = :t AND slot_id = :slot AND seq ="
                    + " (SELECT seq FROM " + seat + candidates + lock + ") RETURNING seq";
            return core.step(tx, what, h -> bindClaim(h.createQuery(sql), tx, nb)
                    .mapTo(Integer.class)
                    .findOne()
                    .map(seq -> new Taken(seq, null)));
        }
        // Taking over an expired hold (and every claim on MariaDB and H2): lock the seat row, then
        // update it by key, re-checking what was read.
        // MariaDB's optimizer prefers the primary key for ORDER BY seq and walks every sold seat of a
        // hot slot to reach a free one (~10 claims/s at 90k sold); name the index that finds it at once.
        String hint = dialect != JdbcDialect.MARIADB ? ""
                : " FORCE INDEX (" + core.tables().prefix() + (expired ? "slot_seat_held_ix" : "slot_seat_claim_ix") + ")";
        Optional<Taken> candidate = core.step(tx, what, h -> {
            Query query = h.createQuery("SELECT seq, " + (expired ? "booking_id" : "NULL") + " FROM " + seat + hint
                            + candidates + lock)
                    .bind("t", tx.tenantId().value()).bind("slot", nb.slotId().value());
            if (expired) {
                query.bind("now", times.arg(now));
            }
            return query.map((rs, ctx) -> new Taken(rs.getInt(1), rs.getString(2))).findOne();
        });
        if (candidate.isEmpty()) {
            return candidate;
        }
        Taken found = candidate.get();
        String sql = "UPDATE " + seat + set + " WHERE tenant_id = :t AND slot_id = :slot AND seq = :seq"
                + (expired ? " AND status = 'HELD' AND booking_id = :old AND held_until <= :now"
                        : " AND status = 'FREE'");
        int updated = core.step(tx, what, h -> {
            Update update = h.createUpdate(sql)
                    .bind("t", tx.tenantId().value()).bind("slot", nb.slotId().value()).bind("seq", found.seq())
                    .bind("status", nb.status().name()).bind("b", nb.bookingId().value())
                    .bind("student", nb.studentId().value()).bind("heldUntil", times.arg(nb.heldUntil()));
            if (expired) {
                update.bind("old", found.displaced()).bind("now", times.arg(now));
            }
            return update.execute();
        });
        return Optional.of(updated == 1 ? new Taken(found.seq(), expired ? found.displaced() : null)
                : new Taken(0, null));
    }

    private Query bindClaim(Query query, JdbcTx tx, NewBooking nb) {
        return query.bind("t", tx.tenantId().value())
                .bind("slot", nb.slotId().value())
                .bind("status", nb.status().name())
                .bind("b", nb.bookingId().value())
                .bind("student", nb.studentId().value())
                .bind("heldUntil", times.arg(nb.heldUntil()));
    }

    // ---------------------------------------------------------------- bookings: transitions

    @Override
    public boolean confirm(StoreTransaction t, BookingId bookingId, Instant now) {
        return transition(t, bookingId, now, "confirm",
                "status = 'CONFIRMED'", "status = 'HELD' AND held_until > :now",
                "CONFIRMED", "status = 'HELD'");
    }

    @Override
    public boolean cancel(StoreTransaction t, BookingId bookingId, Instant now) {
        return transition(t, bookingId, now, "cancel",
                "status = 'FREE', booking_id = NULL, student_id = NULL, held_until = NULL",
                "status IN ('HELD', 'CONFIRMED')",
                "CANCELLED", "status IN ('HELD', 'CONFIRMED')");
    }

    @Override
    public boolean expire(StoreTransaction t, BookingId bookingId, Instant now) {
        return transition(t, bookingId, now, "expire",
                "status = 'FREE', booking_id = NULL, student_id = NULL, held_until = NULL",
                "status = 'HELD' AND held_until <= :now",
                "EXPIRED", "status = 'HELD'");
    }

    /**
     * Changes a booking through its seat row: the seat update, conditioned on the owner and its
     * status, decides; the booking row follows.
     */
    private boolean transition(StoreTransaction t, BookingId bookingId, Instant now, String verb, String seatSet,
                               String seatCondition, String newStatus, String bookingCondition) {
        JdbcTx tx = core.tx(t);
        notNull("bookingId", bookingId);
        notNull("now", now);
        String what = verb + " booking " + bookingId;
        Optional<SeatRef> ref = core.step(tx, what, h -> h.createQuery("SELECT slot_id, seat FROM " + booking
                        + " WHERE tenant_id = :t AND booking_id = :b")
                .bind("t", tx.tenantId().value()).bind("b", bookingId.value())
                .map((rs, ctx) -> new SeatRef(rs.getString(1), rs.getInt(2)))
                .findOne());
        if (ref.isEmpty()) {
            return false;
        }
        return changeThroughSeat(tx, what, bookingId.value(), ref.get(), now, seatSet, seatCondition, newStatus,
                bookingCondition);
    }

    private boolean changeThroughSeat(JdbcTx tx, String what, String bookingId, SeatRef ref, Instant now,
                                      String seatSet, String seatCondition, String newStatus,
                                      String bookingCondition) {
        String seatSql = "UPDATE " + seat + " SET " + seatSet
                + " WHERE tenant_id = :t AND slot_id = :slot AND seq = :seq AND booking_id = :b AND " + seatCondition;
        int seatRows = core.step(tx, what, h -> {
            Update update = h.createUpdate(seatSql)
                    .bind("t", tx.tenantId().value()).bind("slot", ref.slotId()).bind("seq", ref.seq())
                    .bind("b", bookingId);
            if (seatCondition.contains(":now")) {
                update.bind("now", times.arg(now));
            }
            return update.execute();
        });
        if (seatRows == 0) {
            return false;
        }
        int bookingRows = core.step(tx, what, h -> h.createUpdate("UPDATE " + booking
                        + " SET status = :status, updated_at = :now WHERE tenant_id = :t AND booking_id = :b AND "
                        + bookingCondition)
                .bind("t", tx.tenantId().value()).bind("b", bookingId).bind("status", newStatus)
                .bind("now", times.arg(now))
                .execute());
        if (bookingRows != 1) {
            throw inconsistent(tx, what + ": the seat changed but the booking row did not");
        }
        return true;
    }

    private record SeatRef(String slotId, int seq) {
    }

    @Override
    public List<Booking> expireDue(StoreTransaction t, Instant now, int limit) {
        JdbcTx tx = core.tx(t);
        notNull("now", now);
        positive("limit", limit);
        List<Booking> due = core.step(tx, "find expired holds", h -> h.createQuery("SELECT " + BOOKING_COLUMNS
                        + " FROM " + booking + " WHERE tenant_id = :t AND status = 'HELD' AND held_until <= :now"
                        + " ORDER BY held_until LIMIT :limit")
                .bind("t", tx.tenantId().value()).bind("now", times.arg(now)).bind("limit", limit)
                .map((rs, ctx) -> booking(tx.tenantId(), rs))
                .list());
        List<Booking> expired = new ArrayList<>(due.size());
        for (Booking b : due) {
            // another sweeper (or a claim taking the seat over) may have been first: the seat decides
            boolean changed = changeThroughSeat(tx, "expire booking " + b.bookingId(), b.bookingId().value(),
                    new SeatRef(b.slotId().value(), b.seat()), now,
                    "status = 'FREE', booking_id = NULL, student_id = NULL, held_until = NULL",
                    "status = 'HELD' AND held_until <= :now", "EXPIRED", "status = 'HELD'");
            if (changed) {
                expired.add(b.with(BookingStatus.EXPIRED, now));
            }
        }
        return expired;
    }

    // ---------------------------------------------------------------- mapping

    private Slot slot(TenantId tenantId, ResultSet rs) throws SQLException {
        return new Slot(tenantId, SlotId.of(rs.getString("slot_id")), CoachId.of(rs.getString("coach_id")),
                RoomId.of(rs.getString("room_id")),
                TimeRange.of(times.read(rs, "starts_at"), times.read(rs, "ends_at")),
                rs.getInt("capacity"), SlotStatus.valueOf(rs.getString("status")));
    }

    private Booking booking(TenantId tenantId, ResultSet rs) throws SQLException {
        return new Booking(tenantId, BookingId.of(rs.getString("booking_id")),
                RequestId.of(rs.getString("request_id")), SlotId.of(rs.getString("slot_id")),
                StudentId.of(rs.getString("student_id")), rs.getInt("seat"),
                BookingStatus.valueOf(rs.getString("status")), times.read(rs, "held_until"),
                times.read(rs, "created_at"), times.read(rs, "updated_at"));
    }

    private static BookingStoreException inconsistent(JdbcTx tx, String message) {
        BookingStoreException failure = new BookingStoreException("ledger rows disagree, nothing was changed: "
                + message);
        tx.failed(failure);
        return failure;
    }

    static <T> T notNull(String field, T value) {
        if (value == null) {
            throw new IllegalArgumentException(field + " must not be null");
        }
        return value;
    }

    static int positive(String field, int value) {
        if (value <= 0) {
            throw new IllegalArgumentException(field + " must be positive, got " + value);
        }
        return value;
    }
}
