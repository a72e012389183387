package org.slotbook.jdbc.internal;

import static org.slotbook.jdbc.internal.Params.notNull;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.slotbook.core.Attendance;
import org.slotbook.core.Availability;
import org.slotbook.core.BookedSession;
import org.slotbook.core.Booking;
import org.slotbook.core.BookingId;
import org.slotbook.core.BookingStatus;
import org.slotbook.core.CoachId;
import org.slotbook.core.CreditEntry;
import org.slotbook.core.InvalidInputException;
import org.slotbook.core.LessonPackage;
import org.slotbook.core.PackageId;
import org.slotbook.core.RequestId;
import org.slotbook.core.ResourceKind;
import org.slotbook.core.ResourceRef;
import org.slotbook.core.RoomId;
import org.slotbook.core.SeriesId;
import org.slotbook.core.Slot;
import org.slotbook.core.SlotId;
import org.slotbook.core.SlotStatus;
import org.slotbook.core.StudentId;
import org.slotbook.core.TenantId;
import org.slotbook.core.TimeRange;
import org.slotbook.core.WaitlistEntry;
import org.slotbook.core.spi.LiveSlot;

/**
 * The reads of the store, one statement each ({@link SqlDialect}): slots, seats, bookings, rosters,
 * waitlists, timetables, tenants, packages, the credit journal and the occurrences of a series; and the
 * mapping of their rows.
 */
final class Reads {
    private final StoreCore core;
    private final SqlDialect sql;

    Reads(StoreCore core) {
        this.core = core;
        this.sql = core.sql();
    }

    public Optional<WaitlistEntry> findWaiter(TenantId tenantId, RequestId requestId) {
        notNull("tenantId", tenantId);
        notNull("requestId", requestId);
        return core.run(tenantId, "read the waitlist entry of request " + requestId, sql.findWaiter(), ps -> {
            ps.setString(1, tenantId.value());
            ps.setString(2, requestId.value());
        }, rs -> rs.next() ? Optional.of(waiter(tenantId, rs, rs.getInt(8))) : Optional.<WaitlistEntry>empty(),
                false);
    }

    public List<WaitlistEntry> waitlist(TenantId tenantId, SlotId slotId, int offset, int limit) {
        notNull("tenantId", tenantId);
        notNull("slotId", slotId);
        return readPage(tenantId, "read the waitlist of slot " + slotId, sql.waitlist(), slotId.value(), offset,
                limit, (rs, index) -> waiter(tenantId, rs, offset + index + 1));
    }

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

    public Optional<Booking> findBooking(TenantId tenantId, BookingId bookingId) {
        notNull("tenantId", tenantId);
        notNull("bookingId", bookingId);
        return booking(tenantId, "read booking " + bookingId, sql.findBooking(), bookingId.value());
    }

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

    public List<LessonPackage> packages(TenantId tenantId, StudentId studentId, int offset, int limit) {
        notNull("tenantId", tenantId);
        notNull("studentId", studentId);
        page(offset, limit);
        return readPage(tenantId, "read the packages of student " + studentId, sql.packages(), studentId.value(),
                offset, limit, (rs, index) -> new LessonPackage(tenantId, PackageId.of(rs.getString(1)),
                        StudentId.of(rs.getString(2)), rs.getInt(3), rs.getInt(4), sql.readInstant(rs, 5),
                        sql.readInstant(rs, 6), Facts.classTypes(rs.getString(7)), sql.readInstant(rs, 8)));
    }

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
}
