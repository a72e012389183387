package org.slotbook.redis.faults;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.slotbook.core.Availability;
import org.slotbook.core.Booking;
import org.slotbook.core.BookingStatus;
import org.slotbook.core.SlotId;
import org.slotbook.core.StudentId;
import org.slotbook.core.TenantId;
import org.slotbook.core.spi.BookingStore;
import org.slotbook.core.spi.GateHolder;
import org.slotbook.core.spi.GateView;
import org.slotbook.core.spi.LiveSlot;
import org.slotbook.core.spi.SeatCount;
import org.slotbook.core.spi.SeatReservation;
import org.slotbook.jdbc.testing.TestDatabases.TestDatabase;

/**
 * The invariants of the fault suite, read back from storage (plain SQL on the store's tables, the
 * store's reads, and the gate's {@code inspect}), never from what the engine answered:
 *
 * <ul>
 *   <li>held + confirmed &lt;= capacity;</li>
 *   <li>no seat counted twice: one seat row per active booking (same seat, status and student), no
 *       taken seat row without its booking, distinct seat numbers and students among active bookings;</li>
 *   <li>no half-taken seat: every active booking has exactly one active occupation, and no active
 *       occupation belongs to a booking that is not active;</li>
 *   <li>no overlapping active occupations of one coach, room or student;</li>
 *   <li>every {@code Held}/{@code Confirmed} answer given to a client exists in the database;</li>
 *   <li>after reconcile, the gate's holders are the ledger's live bookings and remaining = capacity - live.</li>
 * </ul>
 */
final class Invariants {
    private static final String ACTIVE = "('HELD', 'CONFIRMED')";

    private final TestDatabase db;
    private final BookingStore store;
    private final SeatReservation gate;
    private final TenantId tenant;

    Invariants(TestDatabase db, BookingStore store, SeatReservation gate, TenantId tenant) {
        this.db = db;
        this.store = store;
        this.gate = gate;
        this.tenant = tenant;
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

    /** The slot's live bookings at {@code now} as the store reads them (none when there is no such slot). */
    List<Booking> liveBookings(SlotId slot, Instant now) {
        return store.liveSlot(tenant, slot, now).map(LiveSlot::live).orElse(List.of());
    }

    /** The slot's held and confirmed seats at {@code now} as the store counts them. */
    SeatCount count(SlotId slot, Instant now) {
        Availability seats = store.availability(tenant, slot, now)
                .orElseThrow(() -> new IllegalStateException("no slot " + slot + " in the store"));
        return new SeatCount(seats.held(), seats.confirmed());
    }

    /** The database-side invariants of one slot at {@code now}. */
    void checkSlot(SlotId slot, int capacity, Instant now, Violations v) {
        String s = slot.value();
        SeatCount count = count(slot, now);
        v.check(count.taken() <= capacity, "slot %s: held %d + confirmed %d > capacity %d", s, count.held(),
                count.confirmed(), capacity);
        List<Booking> live = liveBookings(slot, now);
        v.check(live.size() == count.taken(), "slot %s: %d live bookings but count says %d", s, live.size(),
                count.taken());
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

    /** No two active occupations of one resource of the tenant overlap (half-open ranges). */
    void checkOccupancy(Violations v) {
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
     * Every booking answered to a client exists in the database as answered (slot, student, request,
     * seat), and its status is one of {@code allowed}.
     */
    void checkAnswered(Collection<Booking> answered, Set<BookingStatus> allowed, Violations v) {
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

    /** The gate's holders of the slot are exactly the ledger's live bookings, and remaining = capacity - live. */
    void checkGate(SlotId slot, int capacity, Instant now, Violations v) {
        Optional<GateView> view = gate.inspect(tenant, slot);
        if (view.isEmpty()) {
            v.add("slot %s: the gate has no state after reconcile", slot);
            return;
        }
        List<Booking> live = liveBookings(slot, now);
        Set<StudentId> inLedger = new HashSet<>();
        live.forEach(b -> inLedger.add(b.studentId()));
        Set<StudentId> inGate = new HashSet<>();
        for (GateHolder h : view.get().holders()) {
            inGate.add(h.studentId());
        }
        v.check(view.get().capacity() == capacity, "slot %s: gate capacity %d, ledger capacity %d", slot,
                view.get().capacity(), capacity);
        v.check(inGate.equals(inLedger), "slot %s: gate holders differ from live bookings (%d in gate only, %d in "
                + "ledger only)", slot, difference(inGate, inLedger), difference(inLedger, inGate));
        v.check(view.get().remaining() == capacity - live.size(), "slot %s: gate remaining %d != capacity %d - live %d",
                slot, view.get().remaining(), capacity, live.size());
    }

    private static int difference(Set<StudentId> a, Set<StudentId> b) {
        Set<StudentId> d = new HashSet<>(a);
        d.removeAll(b);
        return d.size();
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
