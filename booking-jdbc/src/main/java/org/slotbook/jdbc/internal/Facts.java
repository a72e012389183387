package org.slotbook.jdbc.internal;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
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

/**
 * The rows a decision routine answers with. Every routine, in every dialect, returns the same 17
 * columns: a tag, then a booking (2-10), an occupation (11-14, with slot_id and booking_id), and a
 * slot's coach, room and capacity (15-17). Tags {@code EV_*} are events, the others the answer.
 */
final class Facts {
    private final List<Fact> rows;

    private Facts(List<Fact> rows) {
        this.rows = rows;
    }

    /** One row; unused columns are null. */
    record Fact(String tag, Booking booking, ResourceConflict conflict, Slot slot, String slotId, String status) {
    }

    static Facts read(ResultSet rs, SqlDialect sql, TenantId tenantId) throws SQLException {
        List<Fact> rows = new ArrayList<>(4);
        while (rs.next()) {
            String tag = rs.getString(1);
            String bookingId = rs.getString(2);
            String slotId = rs.getString(4);
            String status = rs.getString(7);
            Booking booking = null;
            if (bookingId != null && rs.getString(3) != null) {
                booking = new Booking(tenantId, BookingId.of(bookingId), RequestId.of(rs.getString(3)),
                        SlotId.of(slotId), StudentId.of(rs.getString(5)), rs.getInt(6), BookingStatus.valueOf(status),
                        sql.readInstant(rs, 8), sql.readInstant(rs, 9), sql.readInstant(rs, 10));
            }
            ResourceConflict conflict = null;
            String kind = rs.getString(11);
            if (kind != null) {
                conflict = new ResourceConflict(new ResourceRef(ResourceKind.valueOf(kind), rs.getString(12)),
                        SlotId.of(slotId), Optional.ofNullable(bookingId).map(BookingId::of),
                        TimeRange.of(sql.readInstant(rs, 13), sql.readInstant(rs, 14)));
            }
            Slot slot = null;
            String coach = rs.getString(15);
            if (coach != null) {
                slot = new Slot(tenantId, SlotId.of(slotId), CoachId.of(coach), RoomId.of(rs.getString(16)),
                        TimeRange.of(sql.readInstant(rs, 13), sql.readInstant(rs, 14)), rs.getInt(17),
                        SlotStatus.valueOf(status));
            }
            rows.add(new Fact(tag, booking, conflict, slot, slotId, status));
        }
        return new Facts(rows);
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

    List<ResourceConflict> conflicts() {
        List<ResourceConflict> out = new ArrayList<>();
        for (Fact f : rows) {
            if ("CONFLICT".equals(f.tag())) {
                out.add(f.conflict());
            }
        }
        return out;
    }

    List<BookingEvent> events() {
        List<BookingEvent> out = new ArrayList<>(rows.size());
        for (Fact f : rows) {
            switch (f.tag()) {
                case "EV_HELD" -> out.add(new BookingEvent(BookingEvent.Kind.HELD, f.booking()));
                case "EV_CONFIRMED" -> out.add(new BookingEvent(BookingEvent.Kind.CONFIRMED, f.booking()));
                case "EV_CANCELLED" -> out.add(new BookingEvent(BookingEvent.Kind.CANCELLED, f.booking()));
                case "EV_EXPIRED" -> out.add(new BookingEvent(BookingEvent.Kind.EXPIRED, f.booking()));
                default -> {
                }
            }
        }
        return out;
    }
}
