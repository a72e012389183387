package org.slotbook.jdbc.internal;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.h2.engine.Session;
import org.h2.jdbc.JdbcConnection;
import org.jspecify.annotations.Nullable;
import org.slotbook.core.Attendance;
import org.slotbook.core.Booking;
import org.slotbook.core.BookingId;
import org.slotbook.core.BookingStatus;
import org.slotbook.core.CoachId;
import org.slotbook.core.LessonPackage;
import org.slotbook.core.PackageId;
import org.slotbook.core.RequestId;
import org.slotbook.core.RoomId;
import org.slotbook.core.SeriesId;
import org.slotbook.core.Slot;
import org.slotbook.core.SlotId;
import org.slotbook.core.SlotStatus;
import org.slotbook.core.StudentId;
import org.slotbook.core.TenantId;
import org.slotbook.core.TimeRange;
import org.slotbook.core.WaitlistEntry;
import org.slotbook.core.rules.StoredSlot;
import org.slotbook.core.rules.Waiter;
import org.slotbook.core.spi.BookingEvent;

/**
 * The statements {@link H2Tx} runs for one table prefix, by name (the plan checks of the tests read
 * them through {@link H2Routines#statements}), how their rows read, and the session's prepared copies.
 * Each statement finds its rows by one index: a key, or an index whose every column is in the ORDER BY
 * so that H2 reads it in order and stops at the LIMIT.
 */
final class H2Sql {
    static final String BOOKING_COLUMNS = "booking_id, request_id, slot_id, student_id, seat, status, held_until,"
            + " created_at, updated_at, package_id, credits, attendance";
    static final String SLOT_COLUMNS = "slot_id, coach_id, room_id, starts_at, ends_at, capacity, status,"
            + " opens_at, closes_at, buffer_seconds, cancel_policy, cancel_cutoff_seconds, week_start, week_end,"
            + " buffer_students, class_type, cost, series_id";
    static final String PACKAGE_COLUMNS =
            "package_id, student_id, credits, remaining, valid_from, valid_until, class_types, granted_at";
    static final String WAITER_COLUMNS = "seq, slot_id, request_id, student_id, booking_id, joined_at, status, reason";

    private static final Map<String, H2Sql> BY_PREFIX = new ConcurrentHashMap<>();

    /** The statements by name. */
    final Map<String, String> byName;


    private H2Sql(Tables t) {
        String slot = t.slot();
        String seat = t.seat();
        String booking = t.booking();
        String occupancy = t.occupancy();
        String waiter = t.waiter();
        String lessonPackage = t.lessonPackage();
        String seatKey = " WHERE tenant_id = ? AND slot_id = ? AND seq = ?";
        String owner = "status = ?, booking_id = ?, student_id = ?, held_until = ?";
        Map<String, String> s = new LinkedHashMap<>();
        put(s, "insertEvent", "INSERT INTO " + t.prefix() + "event (tenant_id, kind, " + BOOKING_COLUMNS
                + ", written_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
        put(s, "fenceState", "SELECT state, epoch FROM " + t.tenantFence() + " WHERE tenant_id = ?");
        put(s, "lockResource", "SELECT resource_id FROM " + t.lock()
                + " WHERE tenant_id = ? AND resource_kind = ? AND resource_id = ? FOR UPDATE");
        put(s, "createResource", "INSERT INTO " + t.lock()
                + " (tenant_id, resource_kind, resource_id) VALUES (?, ?, ?)");
        put(s, "findSlot", "SELECT " + SLOT_COLUMNS + " FROM " + slot
                + " WHERE tenant_id = ? AND slot_id = ?");
        put(s, "lockSlot", s.get("findSlot") + " FOR UPDATE");
        put(s, "lockSlotRow", "SELECT 1 FROM " + slot + " WHERE tenant_id = ? AND slot_id = ? FOR UPDATE");
        put(s, "insertSlot", "INSERT INTO " + slot + " (tenant_id, " + SLOT_COLUMNS
                + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
        put(s, "insertSeats", "INSERT INTO " + seat + " (tenant_id, slot_id, seq, status)"
                + " SELECT CAST(? AS VARCHAR(64)), CAST(? AS VARCHAR(64)), CAST(X AS INTEGER), 'FREE'"
                + " FROM SYSTEM_RANGE(1, CAST(? AS INTEGER))");
        put(s, "updateSlot", "UPDATE " + slot + " SET status = ? WHERE tenant_id = ? AND slot_id = ?");
        put(s, "slots", "SELECT " + SLOT_COLUMNS + " FROM " + slot
                + " WHERE tenant_id = ? AND slot_id > ? ORDER BY tenant_id, slot_id LIMIT ?");
        put(s, "seriesSlots", "SELECT " + SLOT_COLUMNS + " FROM " + slot
                + " WHERE tenant_id = ? AND series_id = ?");
        // every index column in ORDER BY: H2 reads the index in order and stops at the LIMIT
        put(s, "freeSeat", "SELECT seq FROM " + seat
                + " WHERE tenant_id = ? AND slot_id = ? AND status = 'FREE' ORDER BY tenant_id, slot_id, status, seq"
                + " LIMIT 1");
        put(s, "takeFreeSeat", "UPDATE " + seat + " SET " + owner + seatKey + " AND status = 'FREE'");
        put(s, "syncSeat", "UPDATE " + seat + " SET status = ?" + seatKey
                + " AND booking_id = ? AND status IN ('HELD', 'CONFIRMED') AND status <> ?");
        put(s, "releaseSeat", "UPDATE " + seat
                + " SET status = 'FREE', booking_id = NULL, student_id = NULL, held_until = NULL" + seatKey
                + " AND status <> 'CLOSED'");
        put(s, "closeSeats", "UPDATE " + seat + " SET status = 'CLOSED', booking_id = NULL,"
                + " student_id = NULL, held_until = NULL WHERE tenant_id = ? AND slot_id = ? AND status <> 'CLOSED'");
        put(s, "seated", "SELECT " + BOOKING_COLUMNS + " FROM " + booking
                + " WHERE tenant_id = ? AND slot_id = ? AND status IN ('HELD', 'CONFIRMED') ORDER BY seat");
        put(s, "findBooking", "SELECT " + BOOKING_COLUMNS + " FROM " + booking
                + " WHERE tenant_id = ? AND booking_id = ?");
        put(s, "lockBooking", s.get("findBooking") + " FOR UPDATE");
        put(s, "bookingOfRequest", "SELECT " + BOOKING_COLUMNS + " FROM " + booking
                + " WHERE tenant_id = ? AND request_id = ?");
        put(s, "findActive", "SELECT " + BOOKING_COLUMNS + " FROM " + booking
                + " WHERE tenant_id = ? AND slot_id = ? AND student_id = ? AND status IN ('HELD', 'CONFIRMED')");
        put(s, "oldestDeadHold", "SELECT b." + BOOKING_COLUMNS.replace(", ", ", b.") + " FROM "
                + seat + " h JOIN " + booking + " b ON b.tenant_id = h.tenant_id AND b.booking_id = h.booking_id"
                + " WHERE h.tenant_id = ? AND h.slot_id = ? AND h.status = 'HELD' AND h.held_until <= ?"
                + " ORDER BY h.tenant_id, h.slot_id, h.status, h.held_until LIMIT 1");
        put(s, "insertBooking", "INSERT INTO " + booking + " (tenant_id, " + BOOKING_COLUMNS
                + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
        put(s, "updateBooking", "UPDATE " + booking + " SET status = ?, updated_at = ?,"
                + " package_id = ?, credits = ?, attendance = ? WHERE tenant_id = ? AND booking_id = ?");
        put(s, "lateCancel", "UPDATE " + booking + " SET late_cancel = TRUE"
                + " WHERE tenant_id = ? AND booking_id = ?");
        put(s, "dueHolds", "SELECT " + BOOKING_COLUMNS + " FROM " + booking
                + " WHERE tenant_id = ? AND status = 'HELD' AND held_until <= ?"
                + " ORDER BY tenant_id, status, held_until LIMIT ?");
        // the CONFIRMED bookings not checked in whose slot ended by then
        put(s, "unattended", "SELECT b." + BOOKING_COLUMNS.replace(", ", ", b.") + " FROM " + booking
                + " b JOIN " + slot + " s ON s.tenant_id = b.tenant_id AND s.slot_id = b.slot_id"
                + " WHERE b.tenant_id = ? AND b.status = 'CONFIRMED' AND b.attendance = 'NONE' AND s.ends_at <= ?"
                + " ORDER BY s.ends_at, CAST(b.booking_id AS VARBINARY) LIMIT ?");
        // every booking made an occupation of its student: through the student's occupations, each booking by key
        put(s, "bookingsOf", "SELECT b." + BOOKING_COLUMNS.replace(", ", ", b.") + " FROM " + occupancy
                + " o JOIN " + booking + " b ON b.tenant_id = o.tenant_id AND b.booking_id = o.booking_id"
                + " WHERE o.tenant_id = ? AND o.resource_kind = 'STUDENT' AND o.resource_id = ?"
                + " ORDER BY o.tenant_id, o.resource_kind, o.resource_id, o.active, o.starts_at");
        put(s, "overlaps", "SELECT o.resource_kind, o.resource_id, o.starts_at, o.ends_at, o.slot_id,"
                + " o.booking_id FROM " + occupancy + " o WHERE o.tenant_id = ? AND o.resource_kind = ?"
                + " AND o.resource_id = ? AND o.active = TRUE AND o.starts_at < ? AND o.ends_at > ? AND o.starts_at > ?"
                + " ORDER BY o.starts_at");
        put(s, "insertOccupation", "INSERT INTO " + occupancy + " (tenant_id, resource_kind,"
                + " resource_id, starts_at, ends_at, slot_id, booking_id, active) VALUES (?, ?, ?, ?, ?, ?, ?, TRUE)");
        put(s, "releaseBooking", "UPDATE " + occupancy + " SET active = FALSE"
                + " WHERE tenant_id = ? AND booking_id = ? AND active = TRUE");
        put(s, "releaseSlot", "UPDATE " + occupancy + " SET active = FALSE"
                + " WHERE tenant_id = ? AND slot_id = ? AND resource_kind <> 'STUDENT' AND active = TRUE");
        put(s, "findWaiter", "SELECT " + WAITER_COLUMNS + " FROM " + waiter
                + " WHERE tenant_id = ? AND request_id = ?");
        put(s, "waitingOfSlot", "SELECT " + WAITER_COLUMNS + " FROM " + waiter
                + " WHERE tenant_id = ? AND slot_id = ? AND status = 'WAITING' ORDER BY tenant_id, slot_id, status, seq");
        put(s, "insertWaiter", "INSERT INTO " + waiter + " (tenant_id, request_id, slot_id, student_id,"
                + " booking_id, status, joined_at, updated_at) VALUES (?, ?, ?, ?, ?, 'WAITING', ?, ?)");
        put(s, "setWaiter", "UPDATE " + waiter + " SET status = ?, reason = ?, updated_at = ?"
                + " WHERE tenant_id = ? AND request_id = ?");
        put(s, "findPackage", "SELECT " + PACKAGE_COLUMNS + " FROM " + lessonPackage
                + " WHERE tenant_id = ? AND package_id = ?");
        put(s, "lockPackage", s.get("findPackage") + " FOR UPDATE");
        put(s, "packagesOf", "SELECT " + PACKAGE_COLUMNS + " FROM " + lessonPackage
                + " WHERE tenant_id = ? AND student_id = ? ORDER BY tenant_id, student_id, valid_until, package_id");
        put(s, "insertPackage", "INSERT INTO " + lessonPackage + " (tenant_id, " + PACKAGE_COLUMNS
                + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)");
        put(s, "movePackage", "UPDATE " + lessonPackage + " SET remaining = remaining + ?"
                + " WHERE tenant_id = ? AND package_id = ? AND remaining + ? BETWEEN 0 AND credits");
        put(s, "insertEntry", "INSERT INTO " + t.creditEntry() + " (tenant_id, package_id, reason,"
                + " delta, booking_id, request_id, at) VALUES (?, ?, ?, ?, ?, ?, ?)");
        put(s, "journal", "SELECT seq, reason, delta, booking_id, request_id, at FROM " + t.creditEntry()
                + " WHERE tenant_id = ? AND package_id = ? ORDER BY tenant_id, package_id, seq LIMIT ? OFFSET ?");
        // a hold's reads before its locks, in one view of the committed rows: the slot with its lowest free seat
        // and its oldest dead hold (each by its own index), the request's booking and waitlist entry, and the
        // student's booking of the slot, each joined by its key (the waiter's table unnamed); the slot's columns from 2, the request's booking
        // from 22, the waiter from 34, the student's booking from 42; the tenant's fence in 54 and 55 when read
        String probe = "SELECT 0, s." + SLOT_COLUMNS.replace(", ", ", s.")
                + ", (SELECT f.seq FROM " + seat + " f WHERE f.tenant_id = s.tenant_id AND f.slot_id = s.slot_id"
                + " AND f.status = 'FREE' ORDER BY f.tenant_id, f.slot_id, f.status, f.seq LIMIT 1)"
                + ", (SELECT h.booking_id FROM " + seat + " h WHERE h.tenant_id = s.tenant_id AND h.slot_id = s.slot_id"
                + " AND h.status = 'HELD' AND h.held_until <= ? ORDER BY h.tenant_id, h.slot_id, h.status, h.held_until"
                + " LIMIT 1), r." + BOOKING_COLUMNS.replace(", ", ", r.") + ", " + waiter + "." + WAITER_COLUMNS.replace(", ", ", " + waiter + ".")
                + ", m." + BOOKING_COLUMNS.replace(", ", ", m.");
        String joins = " FROM " + slot + " s LEFT JOIN " + booking + " r ON r.tenant_id = s.tenant_id"
                + " AND r.request_id = ? LEFT JOIN " + waiter + " ON " + waiter + ".tenant_id = s.tenant_id AND " + waiter
                + ".request_id = ?"
                + " LEFT JOIN " + booking + " m ON m.tenant_id = s.tenant_id AND m.slot_id = s.slot_id"
                + " AND m.student_id = ? AND m.status IN ('HELD', 'CONFIRMED')";
        String slotKey = " WHERE s.tenant_id = ? AND s.slot_id = ?";
        put(s, "holdProbe", probe + ", NULL, NULL" + joins + slotKey);
        // the first read of a call, with the tenant's fence (no row: the tenant is served here)
        put(s, "holdProbeFenced", probe + ", t.state, t.epoch" + joins + " LEFT JOIN " + t.tenantFence()
                + " t ON t.tenant_id = s.tenant_id" + slotKey);
        // under the slot's lock, with the student's occupations overlapping the slot's student time (as overlaps
        // reads them): the occupation's slot from column 2, its kind and resource, its times, its booking in 8
        put(s, "holdProbeLocked", s.get("holdProbe") + " UNION ALL SELECT 5, o.slot_id, o.resource_kind,"
                + " o.resource_id, o.starts_at, o.ends_at, NULL, o.booking_id, " + nulls(47) + " FROM " + occupancy
                + " o WHERE o.tenant_id = ? AND o.resource_kind = 'STUDENT' AND o.resource_id = ? AND o.active = TRUE"
                + " AND o.starts_at < ? AND o.ends_at > ? AND o.starts_at > ?");
        String fence = " FROM " + t.tenantFence() + " WHERE tenant_id = ?";
        put(s, "findBookingFenced", "SELECT 0, " + BOOKING_COLUMNS + " FROM " + booking
                + " WHERE tenant_id = ? AND booking_id = ? UNION ALL SELECT 1, state, CAST(epoch AS VARCHAR(20)), "
                + nulls(10) + fence);
        byName = Collections.unmodifiableMap(s);
    }

    /** A failed statement, carried unchecked through the rules. */
    static final class Failure extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Failure(SQLException cause) {
            super(cause.getMessage(), cause, false, false);
        }

        SQLException sql() {
            return (SQLException) getCause();
        }
    }

    // ---------------------------------------------------------------- rows

    /** {@link #SLOT_COLUMNS} from column {@code o + 1} on. */
    static StoredSlot storedSlot(TenantId tenantId, ResultSet rs, int o) throws SQLException {
        Slot slot = slot(tenantId, rs, o);
        Instant weekStart = instant(rs, o + 13);
        Instant weekEnd = instant(rs, o + 14);
        // a slot stored before weeks were kept counts in an empty week
        return weekStart == null || weekEnd == null ? new StoredSlot(slot, slot.time().start(), slot.time().start())
                : new StoredSlot(slot, weekStart, weekEnd);
    }

    /** {@link #SLOT_COLUMNS} from column {@code o + 1} on. */
    static Slot slot(TenantId tenantId, ResultSet rs, int o) throws SQLException {
        int cutoff = rs.getInt(o + 12);
        Long cutoffSeconds = rs.wasNull() ? null : (long) cutoff;
        String series = rs.getString(o + 18);
        return new Slot(tenantId, SlotId.of(rs.getString(o + 1)), CoachId.of(rs.getString(o + 2)),
                RoomId.of(rs.getString(o + 3)), TimeRange.of(instant(rs, o + 4), instant(rs, o + 5)), rs.getInt(o + 6),
                SlotStatus.valueOf(rs.getString(o + 7)), instant(rs, o + 8), instant(rs, o + 9),
                Duration.ofSeconds(rs.getInt(o + 10)), Facts.cancellation(rs.getString(o + 11), cutoffSeconds),
                rs.getBoolean(o + 15), rs.getString(o + 16), rs.getInt(o + 17),
                series == null ? null : SeriesId.of(series));
    }

    /** {@link #BOOKING_COLUMNS} from column {@code o + 1} on. */
    static Booking booking(TenantId tenantId, ResultSet rs, int o) throws SQLException {
        String packageId = rs.getString(o + 10);
        return new Booking(tenantId, BookingId.of(rs.getString(o + 1)), RequestId.of(rs.getString(o + 2)),
                SlotId.of(rs.getString(o + 3)), StudentId.of(rs.getString(o + 4)), rs.getInt(o + 5),
                BookingStatus.valueOf(rs.getString(o + 6)), instant(rs, o + 7), instant(rs, o + 8), instant(rs, o + 9),
                packageId == null ? null : PackageId.of(packageId), rs.getInt(o + 11),
                Attendance.valueOf(rs.getString(o + 12)));
    }

    /** {@link #WAITER_COLUMNS} from column {@code o + 1} on. */
    static Waiter waiter(ResultSet rs, int o) throws SQLException {
        String reason = rs.getString(o + 8);
        return new Waiter(rs.getLong(o + 1), SlotId.of(rs.getString(o + 2)), RequestId.of(rs.getString(o + 3)),
                StudentId.of(rs.getString(o + 4)), BookingId.of(rs.getString(o + 5)), instant(rs, o + 6),
                WaitlistEntry.Status.valueOf(rs.getString(o + 7)),
                reason == null ? null : WaitlistEntry.SkipReason.valueOf(reason));
    }

    /** {@link #PACKAGE_COLUMNS}. */
    static LessonPackage lessonPackage(TenantId tenantId, ResultSet rs) throws SQLException {
        return new LessonPackage(tenantId, PackageId.of(rs.getString(1)), StudentId.of(rs.getString(2)), rs.getInt(3),
                rs.getInt(4), instant(rs, 5), instant(rs, 6), Facts.classTypes(rs.getString(7)), instant(rs, 8));
    }

    static @Nullable Instant instant(ResultSet rs, int column) throws SQLException {
        return rs.getObject(column, Instant.class);
    }

    /** The arguments of insertEvent: an event of the outbox, written in the decision's own call. */
    static Object[] eventRow(String tenant, BookingEvent e) {
        Booking b = e.booking();
        return new Object[] {tenant, e.kind().name(), b.bookingId().value(), b.requestId().value(),
            b.slotId().value(), b.studentId().value(), b.seat(), b.status().name(), b.heldUntil(),
            b.createdAt(), b.updatedAt(), b.packageId() == null ? null : b.packageId().value(), b.credits(),
            b.attendance().name(), b.updatedAt()};
    }

    static @Nullable OffsetDateTime at(@Nullable Instant instant) {
        return instant == null ? null : instant.atOffset(ZoneOffset.UTC);
    }

    private static String nulls(int n) {
        return String.join(", ", Collections.nCopies(n, "NULL"));
    }

    /** {@return the statement of that name} */
    String get(String name) {
        String statement = byName.get(name);
        if (statement == null) {
            throw new IllegalStateException("no statement named " + name);
        }
        return statement;
    }

    private static void put(Map<String, String> statements, String name, String sql) {
        statements.put(name, sql);
    }

    /** The statements of {@code prefix}, built once. */
    static H2Sql of(String prefix) {
        H2Sql cached = BY_PREFIX.get(prefix);
        return cached != null ? cached : BY_PREFIX.computeIfAbsent(prefix, p -> new H2Sql(new Tables(p)));
    }

    /**
     * The prepared statements of one H2 session, by SQL text, most recently used last: a routine
     * prepares each of its statements once per session rather than once per call (H2's own query
     * cache keeps 8 commands per session, fewer than a hold runs). The nested connections H2 hands a
     * routine are new objects over the same session, and a statement prepared on one of them runs on
     * the session, so it serves every later call; H2 recompiles it itself after a schema change.
     */
    static final class Prepared {
        /** Enough for every statement of a few prefixes; the least recently used one is closed beyond. */
        private static final int LIMIT = 256;
        private static final Map<Session, Prepared> BY_SESSION = new ConcurrentHashMap<>();

        private final Map<String, PreparedStatement> statements = new LinkedHashMap<>(64, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, PreparedStatement> eldest) {
                if (size() <= LIMIT) {
                    return false;
                }
                closeQuietly(eldest.getValue());
                return true;
            }
        };
        /** Whether the statements outlive the call (kept for the session) or close when it ends. */
        private final boolean kept;

        private Prepared(boolean kept) {
            this.kept = kept;
        }

        /** The statements of the connection's session; a connection that is not H2's own gets a set of its own. */
        static Prepared of(Connection connection) {
            if (!(connection instanceof JdbcConnection jdbc) || jdbc.getSession() == null) {
                return new Prepared(false);
            }
            Session session = jdbc.getSession();
            Prepared found = BY_SESSION.get(session);
            if (found != null) {
                return found;
            }
            // a new session: forget those closed since (their statements went with them)
            BY_SESSION.keySet().removeIf(Session::isClosed);
            return BY_SESSION.computeIfAbsent(session, s -> new Prepared(true));
        }

        PreparedStatement get(Connection connection, String sql) throws SQLException {
            PreparedStatement ps = statements.get(sql);
            if (ps == null || ps.isClosed()) {
                ps = connection.prepareStatement(sql);
                statements.put(sql, ps);
            }
            return ps;
        }

        /** The end of a call: a set of the call's own is closed. */
        void release() {
            if (!kept) {
                statements.values().forEach(Prepared::closeQuietly);
                statements.clear();
            }
        }

        private static void closeQuietly(PreparedStatement ps) {
            try {
                ps.close();
            } catch (SQLException ignored) {
                // the session is going away, and the statement with it
            }
        }
    }
}
