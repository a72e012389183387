package org.slotbook.core.tck.faults;

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
import org.slotbook.core.BookedSession;
import org.slotbook.core.Booking;
import org.slotbook.core.BookingId;
import org.slotbook.core.BookingStatus;
import org.slotbook.core.Held;
import org.slotbook.core.RequestId;
import org.slotbook.core.Slot;
import org.slotbook.core.SlotId;
import org.slotbook.core.SlotStatus;
import org.slotbook.core.StudentId;
import org.slotbook.core.TenantId;
import org.slotbook.core.spi.BookingStore;
import org.slotbook.core.spi.GateHolder;
import org.slotbook.core.spi.GateView;
import org.slotbook.core.spi.LiveSlot;
import org.slotbook.core.spi.SeatCount;
import org.slotbook.core.spi.SeatReservation;

/**
 * The invariants of the fault scenarios, read back from storage (the store's reads and the gate's
 * {@code inspect}), never from what the engine answered:
 *
 * <ul>
 *   <li>held + confirmed &lt;= capacity, and the live bookings are what the store counts;</li>
 *   <li>no seat counted twice: distinct seats and students among a slot's live bookings;</li>
 *   <li>no student in two live bookings whose sessions overlap, no coach or room in two open sessions
 *       that overlap;</li>
 *   <li>every {@code Held}/{@code Confirmed} answer given to a client exists in the store as answered;</li>
 *   <li>after reconcile, the gate's holders are the ledger's live bookings and remaining = capacity - live.</li>
 * </ul>
 *
 * A backend with tables of its own extends these with checks of the rows themselves.
 */
public class Invariants {
    private static final int PAGE = 500;

    protected final BookingStore store;
    protected final SeatReservation gate;
    protected final TenantId tenant;

    public Invariants(BookingStore store, SeatReservation gate, TenantId tenant) {
        this.store = store;
        this.gate = gate;
        this.tenant = tenant;
    }

    /** The slot's live bookings at {@code now} as the store reads them (none when there is no such slot). */
    public List<Booking> liveBookings(SlotId slot, Instant now) {
        return store.liveSlot(tenant, slot, now).map(LiveSlot::live).orElse(List.of());
    }

    /** The slot's held and confirmed seats at {@code now} as the store counts them. */
    public SeatCount count(SlotId slot, Instant now) {
        Availability seats = store.availability(tenant, slot, now)
                .orElseThrow(() -> new IllegalStateException("no slot " + slot + " in the store"));
        return new SeatCount(seats.held(), seats.confirmed());
    }

    /**
     * The ids of the student's bookings of the tenant as far as the store's reads show them: the live
     * ones of sessions that have not ended at {@code now}, and the confirmed ones of sessions that have.
     * A backend with tables of its own reads every row of the student, whatever its status.
     */
    public List<BookingId> bookingIdsOf(StudentId student, Instant now) {
        List<BookingId> out = new ArrayList<>();
        for (boolean upcoming : new boolean[] {true, false}) {
            for (int offset = 0; ; offset += PAGE) {
                List<BookedSession> page = store.studentBookings(tenant, student, now, upcoming, offset, PAGE);
                page.forEach(s -> out.add(s.booking().bookingId()));
                if (page.size() < PAGE) {
                    break;
                }
            }
        }
        return out;
    }

    /** Whether the store has a booking of {@code request}, whatever its status. */
    public boolean hasBooking(RequestId request) {
        return store.findByRequest(tenant, request).isPresent();
    }

    /** The seat-level invariants of one slot at {@code now}. */
    public void checkSlot(SlotId slot, int capacity, Instant now, Violations v) {
        String s = slot.value();
        SeatCount count = count(slot, now);
        v.check(count.taken() <= capacity, "slot %s: held %d + confirmed %d > capacity %d", s, count.held(),
                count.confirmed(), capacity);
        List<Booking> live = liveBookings(slot, now);
        v.check(live.size() == count.taken(), "slot %s: %d live bookings but count says %d", s, live.size(),
                count.taken());
        Set<Integer> seats = new HashSet<>();
        Set<StudentId> students = new HashSet<>();
        for (Booking b : live) {
            v.check(b.status() == BookingStatus.HELD || b.status() == BookingStatus.CONFIRMED,
                    "slot %s: live booking %s is %s", s, b.bookingId(), b.status());
            v.check(seats.add(b.seat()), "slot %s: seat %d held by two live bookings", s, b.seat());
            v.check(students.add(b.studentId()), "slot %s: student %s in two live bookings", s, b.studentId());
        }
    }

    /**
     * No student is in two live bookings at {@code now} whose sessions overlap, and no coach or room
     * is in two open sessions that overlap (half-open ranges).
     */
    public void checkOccupancy(Instant now, Violations v) {
        Map<Object, List<Slot>> byResource = new HashMap<>();
        Map<StudentId, List<Slot>> byStudent = new HashMap<>();
        forEachSlot(slot -> {
            if (slot.status() == SlotStatus.OPEN) {
                byResource.computeIfAbsent(slot.coachId(), k -> new ArrayList<>()).add(slot);
                byResource.computeIfAbsent(slot.roomId(), k -> new ArrayList<>()).add(slot);
            }
            for (Booking b : liveBookings(slot.slotId(), now)) {
                byStudent.computeIfAbsent(b.studentId(), k -> new ArrayList<>()).add(slot);
            }
        });
        List<String> clashes = new ArrayList<>();
        byResource.forEach((resource, slots) -> clashes.addAll(overlaps(resource.toString(), slots)));
        byStudent.forEach((student, slots) -> clashes.addAll(overlaps(student.toString(), slots)));
        v.check(clashes.isEmpty(), "%d overlapping sessions of one student, coach or room: %s", clashes.size(),
                clashes.stream().limit(5).toList());
    }

    private static List<String> overlaps(String who, List<Slot> slots) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < slots.size(); i++) {
            for (int j = i + 1; j < slots.size(); j++) {
                Slot a = slots.get(i);
                Slot b = slots.get(j);
                if (a.time().start().isBefore(b.time().end()) && b.time().start().isBefore(a.time().end())) {
                    out.add(who + " in " + a.slotId() + " and " + b.slotId());
                }
            }
        }
        return out;
    }

    /**
     * Every booking answered to a client exists in the store as answered (slot, student, request,
     * seat), and its status is one of {@code allowed}.
     */
    public void checkAnswered(Collection<Booking> answered, Set<BookingStatus> allowed, Violations v) {
        for (Booking b : answered) {
            Optional<Booking> stored = store.findBooking(tenant, b.bookingId());
            if (stored.isEmpty()) {
                v.add("answered booking %s of %s is not in the store", b.bookingId(), b.studentId());
                continue;
            }
            Booking row = stored.get();
            v.check(row.slotId().equals(b.slotId()) && row.studentId().equals(b.studentId())
                    && row.requestId().equals(b.requestId()) && row.seat() == b.seat(),
                    "answered booking %s differs from the stored %s", b, row);
            v.check(allowed.contains(row.status()), "answered booking %s is %s in the store, expected one of %s",
                    b.bookingId(), row.status(), allowed);
        }
    }

    /** The gate's holders of the slot are exactly the ledger's live bookings, and remaining = capacity - live. */
    public void checkGate(SlotId slot, int capacity, Instant now, Violations v) {
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
        if (!inGate.equals(inLedger)) {
            List<String> gateOnly = new ArrayList<>();
            for (GateHolder h : view.get().holders()) {
                if (!inLedger.contains(h.studentId()) && gateOnly.size() < 5) {
                    gateOnly.add(h + ", the store: " + store.findByRequest(tenant, h.requestId()).map(Booking::toString)
                            .orElse("no booking of the request"));
                }
            }
            v.add("slot %s: gate holders differ from live bookings (%d in gate only, %d in ledger only); gate only: %s",
                    slot, difference(inGate, inLedger), difference(inLedger, inGate), gateOnly);
        }
        v.check(view.get().remaining() == capacity - live.size(), "slot %s: gate remaining %d != capacity %d - live %d",
                slot, view.get().remaining(), capacity, live.size());
    }

    /**
     * After a {@link FlashSale} of one slot: every request was answered, the slot is sold out without
     * oversell, and the bookings the clients were answered {@code Held} are exactly its live bookings.
     */
    public void checkSale(SlotId slot, int capacity, FlashSale.Result sale, Instant now, Violations v) {
        v.check(sale.answers() == sale.requests(), "%d of %d requests answered", sale.answers(), sale.requests());
        List<Booking> live = liveBookings(slot, now);
        v.check(live.size() <= capacity, "%s: %d live bookings for %d seats (oversold)", slot, live.size(), capacity);
        Set<BookingId> liveIds = new HashSet<>();
        live.forEach(b -> liveIds.add(b.bookingId()));
        List<Held> held = sale.heldIn(slot);
        Set<BookingId> answeredIds = new HashSet<>();
        held.forEach(h -> answeredIds.add(h.booking().bookingId()));
        v.check(answeredIds.size() == held.size(), "%s: %d Held answers name %d bookings", slot, held.size(),
                answeredIds.size());
        v.check(liveIds.equals(answeredIds), "%s: live bookings differ from the answered Held (%d live only, %d "
                + "answered only)", slot, difference(liveIds, answeredIds), difference(answeredIds, liveIds));
        v.check(live.size() == capacity, "%s not sold out: %d of %d", slot, live.size(), capacity);
    }

    private static <T> int difference(Set<T> a, Set<T> b) {
        Set<T> d = new HashSet<>(a);
        d.removeAll(b);
        return d.size();
    }

    /** Calls {@code action} with every slot of the tenant, in slot id order. */
    protected void forEachSlot(java.util.function.Consumer<Slot> action) {
        SlotId after = null;
        while (true) {
            List<Slot> page = store.slots(tenant, after, PAGE);
            page.forEach(action);
            if (page.size() < PAGE) {
                return;
            }
            after = page.get(page.size() - 1).slotId();
        }
    }
}
