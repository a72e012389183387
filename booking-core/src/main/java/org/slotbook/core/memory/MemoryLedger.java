package org.slotbook.core.memory;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import org.slotbook.core.Booking;
import org.slotbook.core.BookingId;
import org.slotbook.core.BookingStatus;
import org.slotbook.core.InvalidInputException;
import org.slotbook.core.RequestId;
import org.slotbook.core.Slot;
import org.slotbook.core.SlotId;
import org.slotbook.core.SlotStatus;
import org.slotbook.core.StudentId;
import org.slotbook.core.TenantId;
import org.slotbook.core.internal.Checks;
import org.slotbook.core.memory.TenantState.SlotState;
import org.slotbook.core.spi.DuplicateBookingException;
import org.slotbook.core.spi.NewBooking;
import org.slotbook.core.spi.SeatClaim;
import org.slotbook.core.spi.SeatCount;
import org.slotbook.core.spi.SeatLedger;
import org.slotbook.core.spi.StoreTransaction;

/** The {@link SeatLedger} of an {@link InMemoryPrimitives}. Every method runs under the tenant's lock. */
final class MemoryLedger implements SeatLedger {
    private final InMemoryPrimitives store;

    MemoryLedger(InMemoryPrimitives store) {
        this.store = store;
    }

    @Override
    public <T> T inTransaction(TenantId tenantId, Function<StoreTransaction, T> work) {
        return store.inTransaction(tenantId, work);
    }

    @Override
    public boolean insertSlot(StoreTransaction tx, Slot slot) {
        MemoryTransaction t = store.own(tx);
        Checks.notNull("slot", slot);
        if (!slot.tenantId().equals(t.tenantId())) {
            throw new InvalidInputException("slot.tenantId must be the transaction's tenant " + t.tenantId()
                    + ", got " + slot.tenantId());
        }
        if (slot.status() != SlotStatus.OPEN) {
            throw new InvalidInputException("slot.status must be OPEN, got " + slot.status());
        }
        TenantState state = t.state;
        if (state.slots.containsKey(slot.slotId())) {
            return false;
        }
        state.slots.put(slot.slotId(), new SlotState(slot));
        t.onRollback(() -> state.slots.remove(slot.slotId()));
        return true;
    }

    @Override
    public Optional<Slot> findSlot(StoreTransaction tx, SlotId slotId) {
        MemoryTransaction t = store.own(tx);
        Checks.notNull("slotId", slotId);
        SlotState slot = t.state.slots.get(slotId);
        return slot == null ? Optional.empty() : Optional.of(slot.slot);
    }

    @Override
    public Optional<Booking> findBooking(StoreTransaction tx, BookingId bookingId) {
        MemoryTransaction t = store.own(tx);
        Checks.notNull("bookingId", bookingId);
        return Optional.ofNullable(t.state.bookings.get(bookingId));
    }

    @Override
    public Optional<Booking> findByRequest(StoreTransaction tx, RequestId requestId) {
        MemoryTransaction t = store.own(tx);
        Checks.notNull("requestId", requestId);
        BookingId id = t.state.requests.get(requestId);
        return id == null ? Optional.empty() : Optional.of(t.state.bookings.get(id));
    }

    @Override
    public Optional<Booking> findActive(StoreTransaction tx, SlotId slotId, StudentId studentId) {
        MemoryTransaction t = store.own(tx);
        Checks.notNull("slotId", slotId);
        Checks.notNull("studentId", studentId);
        SlotState slot = t.state.slots.get(slotId);
        BookingId id = slot == null ? null : slot.active.get(studentId);
        return id == null ? Optional.empty() : Optional.of(t.state.bookings.get(id));
    }

    /**
     * Takes the lowest free seat, else the lowest seat whose hold ran out. A slot that is missing or
     * not OPEN has no seat to give.
     */
    @Override
    public Optional<SeatClaim> claimSeat(StoreTransaction tx, NewBooking booking, Instant now) {
        MemoryTransaction t = store.own(tx);
        Checks.notNull("booking", booking);
        Checks.notNull("now", now);
        TenantState state = t.state;
        if (state.requests.containsKey(booking.requestId())) {
            throw new DuplicateBookingException("requestId " + booking.requestId() + " is already used in tenant "
                    + state.tenantId, null);
        }
        if (state.bookings.containsKey(booking.bookingId())) {
            throw new DuplicateBookingException("bookingId " + booking.bookingId() + " is already used in tenant "
                    + state.tenantId, null);
        }
        SlotState slot = state.slots.get(booking.slotId());
        if (slot != null && slot.active.containsKey(booking.studentId())) {
            throw new DuplicateBookingException("student " + booking.studentId() + " already has a seat in slot "
                    + booking.slotId(), null);
        }
        if (slot == null || slot.slot.status() != SlotStatus.OPEN) {
            return Optional.empty();
        }
        int seat = slot.taken.nextClearBit(0) + 1;
        Booking displaced = null;
        if (seat > slot.seats.length) {
            seat = -1;
            for (int i = 0; i < slot.seats.length; i++) {
                Booking holder = state.bookings.get(slot.seats[i]);
                if (holder.status() == BookingStatus.HELD && !now.isBefore(holder.heldUntil())) {
                    seat = i + 1;
                    displaced = holder;
                    break;
                }
            }
            if (seat < 0) {
                return Optional.empty();
            }
            changeStatus(t, slot, displaced, BookingStatus.EXPIRED, now);
        }
        Booking written = new Booking(state.tenantId, booking.bookingId(), booking.requestId(), booking.slotId(),
                booking.studentId(), seat, booking.status(), booking.heldUntil(), now, now);
        state.replaceBooking(null, written);
        state.requests.put(written.requestId(), written.bookingId());
        slot.assign(seat, written.bookingId(), written.studentId());
        int taken = seat;
        t.onRollback(() -> {
            slot.free(taken, written.studentId());
            state.requests.remove(written.requestId());
            state.replaceBooking(written, null);
        });
        return Optional.of(new SeatClaim(written,
                displaced == null ? Optional.empty() : Optional.of(displaced.bookingId())));
    }

    @Override
    public boolean confirm(StoreTransaction tx, BookingId bookingId, Instant now) {
        MemoryTransaction t = store.own(tx);
        Checks.notNull("bookingId", bookingId);
        Checks.notNull("now", now);
        Booking booking = t.state.bookings.get(bookingId);
        if (booking == null || booking.status() != BookingStatus.HELD || !now.isBefore(booking.heldUntil())) {
            return false;
        }
        changeStatus(t, t.state.slots.get(booking.slotId()), booking, BookingStatus.CONFIRMED, now);
        return true;
    }

    @Override
    public boolean cancel(StoreTransaction tx, BookingId bookingId, Instant now) {
        MemoryTransaction t = store.own(tx);
        Checks.notNull("bookingId", bookingId);
        Checks.notNull("now", now);
        Booking booking = t.state.bookings.get(bookingId);
        if (booking == null || !booking.status().isActive()) {
            return false;
        }
        changeStatus(t, t.state.slots.get(booking.slotId()), booking, BookingStatus.CANCELLED, now);
        return true;
    }

    @Override
    public boolean expire(StoreTransaction tx, BookingId bookingId, Instant now) {
        MemoryTransaction t = store.own(tx);
        Checks.notNull("bookingId", bookingId);
        Checks.notNull("now", now);
        Booking booking = t.state.bookings.get(bookingId);
        if (booking == null || booking.status() != BookingStatus.HELD || now.isBefore(booking.heldUntil())) {
            return false;
        }
        changeStatus(t, t.state.slots.get(booking.slotId()), booking, BookingStatus.EXPIRED, now);
        return true;
    }

    @Override
    public List<BookingId> cancelSlot(StoreTransaction tx, SlotId slotId, Instant now) {
        MemoryTransaction t = store.own(tx);
        Checks.notNull("slotId", slotId);
        Checks.notNull("now", now);
        SlotState slot = t.state.slots.get(slotId);
        if (slot == null || slot.slot.status() != SlotStatus.OPEN) {
            return List.of();
        }
        List<BookingId> cancelled = new ArrayList<>(slot.active.size());
        for (BookingId id : slot.seats) {
            if (id != null) {
                changeStatus(t, slot, t.state.bookings.get(id), BookingStatus.CANCELLED, now);
                cancelled.add(id);
            }
        }
        Slot open = slot.slot;
        slot.slot = open.withStatus(SlotStatus.CANCELLED);
        t.onRollback(() -> slot.slot = open);
        return cancelled;
    }

    @Override
    public SeatCount count(StoreTransaction tx, SlotId slotId, Instant now) {
        int held = 0;
        int confirmed = 0;
        for (Booking b : live(tx, slotId, now)) {
            if (b.status() == BookingStatus.CONFIRMED) {
                confirmed++;
            } else {
                held++;
            }
        }
        return new SeatCount(held, confirmed);
    }

    @Override
    public List<Booking> liveBookings(StoreTransaction tx, SlotId slotId, Instant now) {
        return live(tx, slotId, now);
    }

    private List<Booking> live(StoreTransaction tx, SlotId slotId, Instant now) {
        MemoryTransaction t = store.own(tx);
        Checks.notNull("slotId", slotId);
        Checks.notNull("now", now);
        SlotState slot = t.state.slots.get(slotId);
        if (slot == null) {
            return List.of();
        }
        List<Booking> live = new ArrayList<>(slot.active.size());
        for (BookingId id : slot.seats) {
            if (id != null) {
                Booking b = t.state.bookings.get(id);
                if (b.isLive(now)) {
                    live.add(b);
                }
            }
        }
        return live;
    }

    /** Oldest deadlines first. Under the tenant lock two sweepers never see the same booking as due. */
    @Override
    public List<Booking> expireDue(StoreTransaction tx, Instant now, int limit) {
        MemoryTransaction t = store.own(tx);
        Checks.notNull("now", now);
        Checks.positive("limit", limit);
        List<Booking> due = new ArrayList<>();
        Iterator<Booking> it = t.state.heldByDeadline.iterator();
        while (it.hasNext() && due.size() < limit) {
            Booking b = it.next();
            if (now.isBefore(b.heldUntil())) {
                break;
            }
            due.add(b);
        }
        List<Booking> expired = new ArrayList<>(due.size());
        for (Booking b : due) {
            expired.add(changeStatus(t, t.state.slots.get(b.slotId()), b, BookingStatus.EXPIRED, now));
        }
        return expired;
    }

    @Override
    public List<Slot> slots(StoreTransaction tx, @Nullable SlotId after, int limit) {
        MemoryTransaction t = store.own(tx);
        Checks.positive("limit", limit);
        var view = after == null ? t.state.slots : t.state.slots.tailMap(after, false);
        List<Slot> page = new ArrayList<>(Math.min(limit, view.size()));
        for (SlotState s : view.values()) {
            if (page.size() == limit) {
                break;
            }
            page.add(s.slot);
        }
        return page;
    }

    @Override
    public List<TenantId> tenants(@Nullable TenantId after, int limit) {
        Checks.positive("limit", limit);
        return store.tenantsWithSlots(after, limit);
    }

    /** Moves an active booking to {@code status}, freeing its seat when it leaves HELD/CONFIRMED. */
    private static Booking changeStatus(MemoryTransaction t, SlotState slot, Booking booking, BookingStatus status,
                                        Instant now) {
        TenantState state = t.state;
        Booking changed = booking.with(status, now);
        state.replaceBooking(booking, changed);
        boolean frees = !status.isActive();
        if (frees) {
            slot.free(booking.seat(), booking.studentId());
        }
        t.onRollback(() -> {
            if (frees) {
                slot.assign(booking.seat(), booking.bookingId(), booking.studentId());
            }
            state.replaceBooking(changed, booking);
        });
        return changed;
    }

    @Override
    public String toString() {
        return "InMemorySeatLedger";
    }
}
