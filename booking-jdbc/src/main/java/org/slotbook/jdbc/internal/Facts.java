package org.slotbook.jdbc.internal;

import java.sql.ResultSet;
import java.time.Duration;
import java.time.Instant;
import org.jspecify.annotations.Nullable;
import org.slotbook.core.CancellationPolicy;
import org.slotbook.core.WaitlistEntry;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.slotbook.core.Attendance;
import org.slotbook.core.LessonPackage;
import org.slotbook.core.PackageId;
import org.slotbook.core.SeriesId;
import org.slotbook.core.Booking;
import org.slotbook.core.BookingId;
import org.slotbook.core.BookingStatus;
import org.slotbook.core.BookingStoreException;
import org.slotbook.core.CoachId;
import org.slotbook.core.RequestId;
import org.slotbook.core.ResourceConflict;
import org.slotbook.core.ResourceKind;
import org.slotbook.core.ResourceRef;
import org.slotbook.core.RoomId;
import org.slotbook.core.Slot;
import org.slotbook.core.SlotId;
import org.slotbook.core.SlotStatus;
import org.slotbook.core.StudentId;
import org.slotbook.core.TenantId;
import org.slotbook.core.TimeRange;
import org.slotbook.core.spi.BookingEvent;
import org.slotbook.core.spi.HoldCommand;

/**
 * The rows a decision routine answers with. Every routine, in every dialect, returns the same 20
 * columns: {@code tag, booking_id, request_id, slot_id, student_id, seat, status, held_until,
 * created_at, updated_at, res_kind, res_id, starts_at, ends_at, coach_id, room_id, capacity, ref_id,
 * amount, note} (types: text, text, text, text, text, integer, text, instant, instant, instant, text,
 * text, instant, instant, text, text, integer, text, integer, text). Tags {@code EV_*} are events, the
 * others the answer. What the columns hold depends on the tag:
 * <ul>
 *   <li>a booking (HELD, REPLAY, ALREADY, CONFIRMED, HOLD_EXPIRED, CANCELLED, ALREADY_CANCELLED,
 *       CHECKED_IN, CHECKED_IN_REPLAY, NOT_CONFIRMED and the booking events EV_HELD, EV_CONFIRMED,
 *       EV_CANCELLED, EV_LATE_CANCELLED, EV_EXPIRED, EV_PROMOTED, EV_CHECKED_IN, EV_NO_SHOW): columns
 *       2-10, and ref_id = the booking's package_id (NULL when it holds no credits), amount = its
 *       credits (0 when none), note = its attendance (NONE, CHECKED_IN, NO_SHOW); a late cancel has
 *       {@code res_kind = 'LATE'};</li>
 *   <li>a slot (SCHEDULED, EXISTS, SLOT_CANCELLED): slot_id, status, starts_at, ends_at, coach_id,
 *       room_id, capacity, and its rules: held_until = opens_at, created_at = closes_at, seat = buffer in
 *       seconds, res_kind = cancel policy (FREE, REFUSE, LATE or null), res_id = cancel cutoff in seconds,
 *       student_id = 'STUDENTS' when the buffer applies to booked students too, else null; ref_id = class
 *       type (NULL: none), amount = cost (0: free), note = series id (NULL: a one-off);</li>
 *   <li>an occupation (CONFLICT): slot_id, booking_id, res_kind, res_id, starts_at, ends_at; in the
 *       answer of schedule_series also request_id = the slot id of the occurrence that conflicts;</li>
 *   <li>a waitlist entry (WAITLISTED, WAITLISTED_REPLAY, LEFT, NOT_WAITING, EV_SKIPPED): booking_id (the
 *       booking a promotion gives), request_id, slot_id, student_id, seat = position (0 when not waiting),
 *       status, created_at = joined at, res_kind = skip reason (CONFLICT, LIMIT, ALREADY_BOOKED,
 *       NO_CREDITS);</li>
 *   <li>a package (GRANTED, PACKAGE_EXISTS): ref_id = package_id, student_id, capacity = credits granted,
 *       amount = remaining, starts_at = valid_from, ends_at = valid_until, res_id = class types (sorted,
 *       joined by ','; '' or NULL: any session), created_at = granted at;</li>
 *   <li>LIMIT: res_kind = UPCOMING or WEEKLY, seat = the limit; NOT_OPEN_YET, BOOKING_CLOSED and TOO_LATE:
 *       held_until = the instant (opens at, closes at, cutoff; for a student's cancel of a booking that
 *       was checked in or marked a no-show, TOO_LATE's held_until = the slot's start); NOT_OPEN: status =
 *       the slot's; INSUFFICIENT_CREDITS: slot_id, seat = the slot's cost; CHECK_IN_NOT_OPEN and
 *       CHECK_IN_CLOSED: booking_id, held_until = when check-in opens or closed.</li>
 * </ul>
 * In the answer of hold_all every row also carries capacity = the 1-based index of the command it
 * belongs to (in every dialect, for every tag); so does the answer of hold_batch, which answers a seat
 * taken, unpaid, with nothing else done on the way, by one TAKEN row (seat, held_until, created_at) that
 * {@link #withTakenSpelledOut} turns into the HELD answer and its event (MariaDB and PostgreSQL).
 */
final class Facts {
    private final List<Fact> rows;
    private final TenantId tenantId;

    private Facts(List<Fact> rows, TenantId tenantId) {
        this.rows = rows;
        this.tenantId = tenantId;
    }

    /** One row as read; unused columns are null. */
    record Fact(String tag, String bookingId, String requestId, String slotId, String studentId, Integer seat,
                String status, Instant heldUntil, Instant createdAt, Instant updatedAt, String resKind, String resId,
                Instant startsAt, Instant endsAt, String coachId, String roomId, Integer capacity, String refId,
                Integer amount, String note) {
    }

    static Facts read(ResultSet rs, SqlDialect sql, TenantId tenantId) throws SQLException {
        List<Fact> rows = new ArrayList<>(4);
        while (rs.next()) {
            rows.add(new Fact(rs.getString(1), rs.getString(2), rs.getString(3), rs.getString(4), rs.getString(5),
                    integer(rs, 6), rs.getString(7), sql.readInstant(rs, 8), sql.readInstant(rs, 9),
                    sql.readInstant(rs, 10), rs.getString(11), rs.getString(12), sql.readInstant(rs, 13),
                    sql.readInstant(rs, 14), rs.getString(15), rs.getString(16), integer(rs, 17), rs.getString(18),
                    integer(rs, 19), rs.getString(20)));
        }
        return new Facts(rows, tenantId);
    }

    private static @Nullable Integer integer(ResultSet rs, int column) throws SQLException {
        int value = rs.getInt(column);
        return rs.wasNull() ? null : value;
    }

    /** The rows of this answer whose capacity column is {@code index} (hold_all: one command's rows). */
    Facts part(int index) {
        List<Fact> mine = new ArrayList<>();
        for (Fact f : rows) {
            if (f.capacity() != null && f.capacity() == index) {
                mine.add(f);
            }
        }
        return new Facts(mine, tenantId);
    }

    /** As {@link #part(int)}, the rows read as {@code tenant}'s (hold_batch: the holds of several tenants). */
    Facts part(int index, TenantId tenant) {
        return new Facts(part(index).rows, tenant);
    }

    boolean isEmpty() {
        return rows.isEmpty();
    }

    /**
     * These rows with a TAKEN answer (hold_batch: a seat taken, unpaid, with nothing else done
     * on the way; only seat, held_until, created_at and capacity are set) written out as the HELD answer and
     * its event, the booking's ids and status those of the command that took it; other rows unchanged.
     */
    Facts withTakenSpelledOut(HoldCommand cmd) {
        if (rows.size() != 1 || !"TAKEN".equals(rows.get(0).tag())) {
            return this;
        }
        Fact t = rows.get(0);
        String status = cmd.status().name();
        List<Fact> spelled = new ArrayList<>(2);
        for (String tag : List.of("HELD", cmd.status() == BookingStatus.CONFIRMED ? "EV_CONFIRMED" : "EV_HELD")) {
            spelled.add(new Fact(tag, cmd.bookingId().value(), cmd.request().requestId().value(),
                    cmd.request().slotId().value(), cmd.request().studentId().value(), t.seat(), status, t.heldUntil(),
                    t.createdAt(), t.createdAt(), null, null, null, null, null, null, t.capacity(), null, 0,
                    Attendance.NONE.name()));
        }
        return new Facts(spelled, tenantId);
    }

    List<Fact> rows() {
        return rows;
    }

    /** The answer row (the first that is not an event). */
    Fact answer(String routine) {
        for (Fact f : rows) {
            if (!f.tag().startsWith("EV_")) {
                return f;
            }
        }
        throw new BookingStoreException("routine " + routine + " answered no row");
    }

    Booking booking(Fact f) {
        return new Booking(tenantId, BookingId.of(f.bookingId()), RequestId.of(f.requestId()), SlotId.of(f.slotId()),
                StudentId.of(f.studentId()), f.seat(), BookingStatus.valueOf(f.status()), f.heldUntil(),
                f.createdAt(), f.updatedAt(), f.refId() == null ? null : PackageId.of(f.refId()),
                f.amount() == null ? 0 : f.amount(), f.note() == null ? Attendance.NONE : Attendance.valueOf(f.note()));
    }

    LessonPackage lessonPackage(Fact f) {
        return new LessonPackage(tenantId, PackageId.of(f.refId()), StudentId.of(f.studentId()), f.capacity(),
                f.amount(), f.startsAt(), f.endsAt(), classTypes(f.resId()), f.createdAt());
    }

    /** Class types as stored: sorted, joined by ','; '' or null for none. */
    static Set<String> classTypes(String stored) {
        if (stored == null || stored.isEmpty()) {
            return Set.of();
        }
        return Set.of(stored.split(","));
    }

    /** The stored form of a set of class types: sorted, joined by ','; '' for none. */
    static String classTypes(Set<String> types) {
        return String.join(",", new TreeSet<>(types));
    }

    Slot slot(Fact f) {
        CancellationPolicy cancellation = cancellation(f.resKind(), f.resId() == null ? null
                : Long.valueOf(f.resId()));
        return new Slot(tenantId, SlotId.of(f.slotId()), CoachId.of(f.coachId()), RoomId.of(f.roomId()),
                TimeRange.of(f.startsAt(), f.endsAt()), f.capacity(), SlotStatus.valueOf(f.status()), f.heldUntil(),
                f.createdAt(), Duration.ofSeconds(f.seat() == null ? 0 : f.seat()), cancellation,
                "STUDENTS".equals(f.studentId()), f.refId(), f.amount() == null ? 0 : f.amount(),
                f.note() == null ? null : SeriesId.of(f.note()));
    }

    /** A slot's stored cancel policy: FREE, REFUSE or LATE with a cutoff in seconds; null: the tenant's. */
    static @Nullable CancellationPolicy cancellation(@Nullable String policy, @Nullable Long cutoffSeconds) {
        if (policy == null) {
            return null;
        }
        return switch (policy) {
            case "FREE" -> CancellationPolicy.free();
            case "REFUSE" -> CancellationPolicy.refuseWithin(Duration.ofSeconds(cutoffSeconds));
            case "LATE" -> CancellationPolicy.lateWithin(Duration.ofSeconds(cutoffSeconds));
            default -> throw new BookingStoreException("unknown cancel policy '" + policy + "' stored");
        };
    }

    /** The column value of a cancel policy: FREE, REFUSE or LATE; null for null. */
    static @Nullable String policyName(@Nullable CancellationPolicy policy) {
        if (policy == null) {
            return null;
        }
        if (policy.cutoff() == null) {
            return "FREE";
        }
        return policy.afterCutoff() == CancellationPolicy.LateCancel.REFUSE ? "REFUSE" : "LATE";
    }

    WaitlistEntry waiter(Fact f) {
        return new WaitlistEntry(tenantId, SlotId.of(f.slotId()), RequestId.of(f.requestId()),
                StudentId.of(f.studentId()), f.seat(), WaitlistEntry.Status.valueOf(f.status()),
                f.resKind() == null ? null : WaitlistEntry.SkipReason.valueOf(f.resKind()),
                BookingId.of(f.bookingId()), f.createdAt());
    }

    List<ResourceConflict> conflicts() {
        return conflicts(null);
    }

    /** The CONFLICT rows of one occurrence of a series (request_id = its slot id); null: all of them. */
    List<ResourceConflict> conflicts(String occurrence) {
        List<ResourceConflict> out = new ArrayList<>();
        for (Fact f : rows) {
            if ("CONFLICT".equals(f.tag()) && (occurrence == null || occurrence.equals(f.requestId()))) {
                out.add(new ResourceConflict(new ResourceRef(ResourceKind.valueOf(f.resKind()), f.resId()),
                        SlotId.of(f.slotId()), Optional.ofNullable(f.bookingId()).map(BookingId::of),
                        TimeRange.of(f.startsAt(), f.endsAt())));
            }
        }
        return out;
    }

    List<BookingEvent> events() {
        List<BookingEvent> out = new ArrayList<>(rows.size());
        for (Fact f : rows) {
            BookingEvent.Kind kind = switch (f.tag()) {
                case "EV_HELD" -> BookingEvent.Kind.HELD;
                case "EV_CONFIRMED" -> BookingEvent.Kind.CONFIRMED;
                case "EV_CANCELLED" -> BookingEvent.Kind.CANCELLED;
                case "EV_LATE_CANCELLED" -> BookingEvent.Kind.LATE_CANCELLED;
                case "EV_EXPIRED" -> BookingEvent.Kind.EXPIRED;
                case "EV_PROMOTED" -> BookingEvent.Kind.PROMOTED;
                case "EV_CHECKED_IN" -> BookingEvent.Kind.CHECKED_IN;
                case "EV_NO_SHOW" -> BookingEvent.Kind.NO_SHOW;
                default -> null;
            };
            if (kind != null) {
                out.add(new BookingEvent(kind, booking(f)));
            }
        }
        return out;
    }

    /** The waiters passed over (EV_SKIPPED rows). */
    List<WaitlistEntry> skipped() {
        List<WaitlistEntry> out = new ArrayList<>(0);
        for (Fact f : rows) {
            if ("EV_SKIPPED".equals(f.tag())) {
                out.add(waiter(f));
            }
        }
        return out;
    }
}
