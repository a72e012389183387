package org.slotbook.examples.combined;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slotbook.core.Booking;
import org.slotbook.core.BookingId;
import org.slotbook.core.BookingStatus;
import org.slotbook.core.RequestId;
import org.slotbook.core.SlotId;
import org.slotbook.core.StudentId;
import org.slotbook.core.TenantId;
import org.slotbook.core.spi.BookingStore;
import org.slotbook.core.spi.SeatReservation;
import org.slotbook.core.tck.faults.Invariants;
import org.slotbook.core.tck.faults.Violations;
import org.slotbook.jdbc.testing.TestDatabases.TestDatabase;

/**
 * The fault scenarios' {@link Invariants} on a JDBC store, with the rows themselves read by plain SQL
 * on the store's tables:
 *
 * <ul>
 *   <li>no more HELD/CONFIRMED booking rows than seats, one seat row per seat;</li>
 *   <li>no seat counted twice: one seat row per active booking (same seat, status and student), no
 *       taken seat row without its booking, distinct seat numbers and students among active bookings;</li>
 *   <li>no half-taken seat: every active booking has exactly one active occupation, and no active
 *       occupation belongs to a booking that is not active;</li>
 *   <li>no overlapping active occupations of one coach, room or student;</li>
 *   <li>every {@code Held}/{@code Confirmed} answer given to a client is a row as answered.</li>
 * </ul>
 */
final class SqlInvariants extends Invariants {
    private static final String ACTIVE = "('HELD', 'CONFIRMED')";

    private final TestDatabase db;

    SqlInvariants(TestDatabase db, BookingStore store, SeatReservation gate, TenantId tenant) {
        super(store, gate, tenant);
        this.db = db;
    }

    /** One row of the booking table. */
    record Row(String bookingId, String requestId, String slotId, String studentId, int seat, String status) {
    }

    /** Every booking row of the tenant, by booking id. */
    Map<String, Row> bookings() {
        Map<String, Row> rows = new HashMap<>();
        query("SELECT booking_id, request_id, slot_id, student_id, seat, status FROM " + db.table("booking")
                + " WHERE tenant_id = ?", List.of(tenant.value()), rs -> {
                    Row row = new Row(rs.getString(1), rs.getString(2), rs.getString(3), rs.getString(4),
                            rs.getInt(5), rs.getString(6));
                    rows.put(row.bookingId(), row);
                });
        return rows;
    }

    /** Every booking row of the student, whatever its status. */
    @Override
    public List<BookingId> bookingIdsOf(StudentId student, Instant now) {
        List<BookingId> ids = new ArrayList<>();
        query("SELECT booking_id FROM " + db.table("booking") + " WHERE tenant_id = ? AND student_id = ?",
                List.of(tenant.value(), student.value()), rs -> ids.add(BookingId.of(rs.getString(1))));
        return ids;
    }

    /** Whether the booking table has a row of the request, whatever its status. */
    @Override
    public boolean hasBooking(RequestId request) {
        long[] rows = new long[1];
        query("SELECT COUNT(*) FROM " + db.table("booking") + " WHERE tenant_id = ? AND request_id = ?",
                List.of(tenant.value(), request.value()), rs -> rows[0] = rs.getLong(1));
        return rows[0] > 0;
    }

    /** The store's view of the slot ({@link Invariants#checkSlot}), then its rows. */
    @Override
    public void checkSlot(SlotId slot, int capacity, Instant now, Violations v) {
        super.checkSlot(slot, capacity, now, v);
        String s = slot.value();
        long active = single("SELECT COUNT(*) FROM " + db.table("booking") + " WHERE tenant_id = ? AND slot_id = ?"
                + " AND status IN " + ACTIVE, slot);
        v.check(active <= capacity, "slot %s: %d HELD/CONFIRMED booking rows > capacity %d", s, active, capacity);
        long seats = single("SELECT COUNT(*) FROM " + db.table("slot_seat") + " WHERE tenant_id = ? AND slot_id = ?",
                slot);
        v.check(seats == capacity, "slot %s: %d seat rows for capacity %d", s, seats, capacity);
        long unseated = single("SELECT COUNT(*) FROM " + db.table("booking") + " b WHERE b.tenant_id = ?"
                + " AND b.slot_id = ? AND b.status IN " + ACTIVE + " AND NOT EXISTS (SELECT 1 FROM "
                + db.table("slot_seat") + " t WHERE t.tenant_id = b.tenant_id AND t.slot_id = b.slot_id"
                + " AND t.seq = b.seat AND t.booking_id = b.booking_id AND t.student_id = b.student_id"
                + " AND t.status = b.status)", slot);
        v.check(unseated == 0, "slot %s: %d active bookings without their seat row", s, unseated);
        long orphanSeats = single("SELECT COUNT(*) FROM " + db.table("slot_seat") + " t WHERE t.tenant_id = ?"
                + " AND t.slot_id = ? AND t.status IN " + ACTIVE + " AND NOT EXISTS (SELECT 1 FROM "
                + db.table("booking") + " b WHERE b.tenant_id = t.tenant_id AND b.booking_id = t.booking_id"
                + " AND b.slot_id = t.slot_id AND b.seat = t.seq AND b.status = t.status)", slot);
        v.check(orphanSeats == 0, "slot %s: %d taken seat rows without an active booking", s, orphanSeats);
        long twiceSeated = single("SELECT COUNT(*) FROM (SELECT seat FROM " + db.table("booking")
                + " WHERE tenant_id = ? AND slot_id = ? AND status IN " + ACTIVE
                + " GROUP BY seat HAVING COUNT(*) > 1) d", slot);
        v.check(twiceSeated == 0, "slot %s: %d seat numbers held by two active bookings", s, twiceSeated);
        long twiceStudent = single("SELECT COUNT(*) FROM (SELECT student_id FROM " + db.table("booking")
                + " WHERE tenant_id = ? AND slot_id = ? AND status IN " + ACTIVE
                + " GROUP BY student_id HAVING COUNT(*) > 1) d", slot);
        v.check(twiceStudent == 0, "slot %s: %d students with two active bookings", s, twiceStudent);
        long unoccupied = single("SELECT COUNT(*) FROM " + db.table("booking") + " b WHERE b.tenant_id = ?"
                + " AND b.slot_id = ? AND b.status IN " + ACTIVE + " AND (SELECT COUNT(*) FROM "
                + db.table("occupancy") + " o WHERE o.tenant_id = b.tenant_id AND o.booking_id = b.booking_id"
                + " AND o.active = TRUE) <> 1", slot);
        v.check(unoccupied == 0, "slot %s: %d active bookings without exactly one active occupation", s,
                unoccupied);
        long staleOccupations = single("SELECT COUNT(*) FROM " + db.table("occupancy") + " o WHERE o.tenant_id = ?"
                + " AND o.slot_id = ? AND o.active = TRUE AND o.booking_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM "
                + db.table("booking") + " b WHERE b.tenant_id = o.tenant_id AND b.booking_id = o.booking_id"
                + " AND b.status IN " + ACTIVE + ")", slot);
        v.check(staleOccupations == 0, "slot %s: %d active occupations of bookings that are not active", s,
                staleOccupations);
    }

    /** The store's view ({@link Invariants#checkOccupancy}), then: no two active occupation rows of one resource overlap. */
    @Override
    public void checkOccupancy(Instant now, Violations v) {
        super.checkOccupancy(now, v);
        String o = db.table("occupancy");
        List<String> clashes = new ArrayList<>();
        query("SELECT a.resource_kind, a.resource_id, a.slot_id, b.slot_id FROM " + o + " a JOIN " + o
                + " b ON a.tenant_id = b.tenant_id AND a.resource_kind = b.resource_kind"
                + " AND a.resource_id = b.resource_id AND a.id < b.id"
                + " AND a.starts_at < b.ends_at AND b.starts_at < a.ends_at"
                + " WHERE a.tenant_id = ? AND a.active = TRUE AND b.active = TRUE", List.of(tenant.value()),
                rs -> clashes.add(rs.getString(1) + " " + rs.getString(2) + " in " + rs.getString(3) + " and "
                        + rs.getString(4)));
        v.check(clashes.isEmpty(), "%d overlapping active occupations: %s", clashes.size(),
                clashes.stream().limit(5).toList());
    }

    /**
     * Every booking answered to a client is a row as answered (slot, student, request, seat), and its
     * status is one of {@code allowed}.
     */
    @Override
    public void checkAnswered(Collection<Booking> answered, Set<BookingStatus> allowed, Violations v) {
        Map<String, Row> rows = bookings();
        for (Booking b : answered) {
            Row row = rows.get(b.bookingId().value());
            if (row == null) {
                v.add("answered booking %s of %s is not in the database", b.bookingId(), b.studentId());
                continue;
            }
            v.check(row.slotId().equals(b.slotId().value()) && row.studentId().equals(b.studentId().value())
                    && row.requestId().equals(b.requestId().value()) && row.seat() == b.seat(),
                    "answered booking %s differs from its row %s", b, row);
            v.check(allowed.contains(BookingStatus.valueOf(row.status())),
                    "answered booking %s is %s in the database, expected one of %s", b.bookingId(), row.status(),
                    allowed);
        }
    }

    long single(String sql, SlotId slot) {
        long[] out = new long[1];
        query(sql, List.of(tenant.value(), slot.value()), rs -> out[0] = rs.getLong(1));
        return out[0];
    }

    interface RowHandler {
        void row(ResultSet rs) throws SQLException;
    }

    void query(String sql, List<String> params, RowHandler handler) {
        try (Connection c = db.dataSource().getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
            for (int i = 0; i < params.size(); i++) {
                ps.setString(i + 1, params.get(i));
            }
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    handler.row(rs);
                }
            }
        } catch (SQLException e) {
            throw new IllegalStateException("invariant query failed: " + sql, e);
        }
    }
}
