package org.slotbook.jdbc.internal;

import static org.slotbook.jdbc.internal.H2Sql.instant;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import org.jspecify.annotations.Nullable;
import org.slotbook.core.Booking;
import org.slotbook.core.BookingId;
import org.slotbook.core.HoldRequest;
import org.slotbook.core.ResourceKind;
import org.slotbook.core.ResourceRef;
import org.slotbook.core.SlotId;
import org.slotbook.core.TenantId;
import org.slotbook.core.TimeRange;
import org.slotbook.core.rules.Occupancy;
import org.slotbook.core.rules.StoredSlot;
import org.slotbook.core.rules.Waiter;

/**
 * What one statement read of a hold, after {@code locks} locks and {@code writes} writes of its call: the
 * slot with its lowest free seat and its oldest dead hold, the request's booking and waitlist entry, the
 * student's booking of the slot; read under the slot's lock, also the student's occupations overlapping
 * {@code over} (the slot's student time, which never changes), by start.
 */
record H2Probe(Optional<StoredSlot> slot, OptionalInt free, @Nullable String dead, Optional<Booking> ofRequest,
               Optional<Waiter> waiter, Optional<Booking> mine, @Nullable TimeRange over, List<Occupancy> overlaps,
               int locks, int writes) {

    /**
     * Runs the probe: the variant that reads the tenant's fence when it is the call's first statement, the one
     * that reads the student's overlapping occupations when {@code over} is given (and the fence was read).
     *
     * @param lowest no occupation that overlaps {@code over} starts before this
     */
    static H2Probe run(H2Statements st, TenantId tenantId, HoldRequest r, Instant now, @Nullable TimeRange over,
                       @Nullable Instant lowest, int locks, int writes)
            throws SQLException {
        String tenant = tenantId.value();
        boolean fenced = st.fenceWithFirst();
        TimeRange range = fenced ? null : over;
        List<Object> args = new ArrayList<>(List.of(now, r.requestId().value(), r.requestId().value(),
                r.studentId().value(), tenant, r.slotId().value()));
        if (range != null) {
            args.addAll(List.of(tenant, r.studentId().value(), range.end(), range.start(), lowest));
        }
        Optional<StoredSlot> slot = Optional.empty();
        OptionalInt free = OptionalInt.empty();
        String dead = null;
        Optional<Booking> ofRequest = Optional.empty();
        Optional<Waiter> waiter = Optional.empty();
        Optional<Booking> mine = Optional.empty();
        List<Occupancy> overlaps = new ArrayList<>(2);
        String statement = fenced ? "holdProbeFenced" : range != null ? "holdProbeLocked" : "holdProbe";
        try (ResultSet rs = st.bind(statement, args.toArray()).executeQuery()) {
            while (rs.next()) {
                if (rs.getInt(1) == 0) {
                    slot = Optional.of(H2Sql.storedSlot(tenantId, rs, 1));
                    int seat = rs.getInt(20);
                    free = rs.wasNull() ? OptionalInt.empty() : OptionalInt.of(seat);
                    dead = rs.getString(21);
                    if (rs.getString(22) != null) {
                        ofRequest = Optional.of(H2Sql.booking(tenantId, rs, 21));
                    }
                    if (rs.getString(36) != null) {
                        waiter = Optional.of(H2Sql.waiter(rs, 33));
                    }
                    if (rs.getString(42) != null) {
                        mine = Optional.of(H2Sql.booking(tenantId, rs, 41));
                    }
                    String fence = fenced ? rs.getString(54) : null;
                    if (fence != null) {
                        st.fence(fence, rs.getLong(55));
                    }
                } else {
                    String bookingId = rs.getString(8);
                    overlaps.add(new Occupancy(new ResourceRef(ResourceKind.valueOf(rs.getString(3)),
                            rs.getString(4)), TimeRange.of(instant(rs, 5), instant(rs, 6)),
                            SlotId.of(rs.getString(2)), bookingId == null ? null : BookingId.of(bookingId)));
                }
            }
        }
        if (fenced && slot.isEmpty()) {
            st.readFence(); // no slot row to read the fence with
        }
        overlaps.sort(Comparator.comparing(o -> o.time().start()));
        return new H2Probe(slot, free, dead, ofRequest, waiter, mine, range, overlaps, locks, writes);
    }
}
