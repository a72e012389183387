package org.slotbook.core.memory;

import java.time.Instant;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.locks.ReentrantLock;
import org.slotbook.core.Booking;
import org.slotbook.core.BookingId;
import org.slotbook.core.BookingStatus;
import org.slotbook.core.RequestId;
import org.slotbook.core.ResourceRef;
import org.slotbook.core.Slot;
import org.slotbook.core.SlotId;
import org.slotbook.core.StudentId;
import org.slotbook.core.TenantId;
import org.slotbook.core.TimeRange;

/**
 * Everything one tenant has in an {@link InMemoryStore}. Guarded by {@link #lock}: only a
 * transaction of this tenant reads or writes it. The mutators here are raw; the ledger and the
 * detector pair each with its inverse in the transaction's undo log.
 */
final class TenantState {
    final TenantId tenantId;
    final ReentrantLock lock = new ReentrantLock();

    final TreeMap<SlotId, SlotState> slots = new TreeMap<>();
    final HashMap<BookingId, Booking> bookings = new HashMap<>();
    final HashMap<RequestId, BookingId> requests = new HashMap<>();
    /** HELD bookings by deadline, for {@code expireDue}. */
    final TreeSet<Booking> heldByDeadline = new TreeSet<>(
            Comparator.comparing(Booking::heldUntil).thenComparing(Booking::bookingId));

    /** Active occupations only: a released one is dropped, since nothing reads history. */
    final HashMap<ResourceRef, TreeSet<Occupied>> byResource = new HashMap<>();
    final HashMap<BookingId, List<Occupied>> byBooking = new HashMap<>();
    final HashMap<SlotId, List<Occupied>> bySlot = new HashMap<>();
    long occupationSeq;

    TenantState(TenantId tenantId) {
        this.tenantId = tenantId;
    }

    /** Replaces {@code old} (null for a new booking) with {@code current}, keeping the deadline index. */
    void replaceBooking(Booking old, Booking current) {
        if (old != null && old.status() == BookingStatus.HELD) {
            heldByDeadline.remove(old);
        }
        if (current == null) {
            bookings.remove(old.bookingId());
            return;
        }
        bookings.put(current.bookingId(), current);
        if (current.status() == BookingStatus.HELD) {
            heldByDeadline.add(current);
        }
    }

    void addOccupied(Occupied o) {
        byResource.computeIfAbsent(o.resource(), r -> new TreeSet<>(Occupied.ORDER)).add(o);
        bySlot.computeIfAbsent(o.slotId(), s -> new ArrayList<>(2)).add(o);
        if (o.bookingId() != null) {
            byBooking.computeIfAbsent(o.bookingId(), b -> new ArrayList<>(1)).add(o);
        }
    }

    void removeOccupied(Occupied o) {
        removeFrom(byResource, o.resource(), o);
        removeFrom(bySlot, o.slotId(), o);
        if (o.bookingId() != null) {
            removeFrom(byBooking, o.bookingId(), o);
        }
    }

    private static <K> void removeFrom(HashMap<K, ? extends java.util.Collection<Occupied>> index, K key,
                                       Occupied o) {
        java.util.Collection<Occupied> list = index.get(key);
        if (list != null) {
            list.remove(o);
            if (list.isEmpty()) {
                index.remove(key);
            }
        }
    }

    /** One slot and its seats 1..capacity; seat {@code n} is {@code seats[n - 1]}. */
    static final class SlotState {
        Slot slot;
        final BookingId[] seats;
        final BitSet taken;
        /** Students whose HELD or CONFIRMED booking holds a seat of this slot. */
        final HashMap<StudentId, BookingId> active = new HashMap<>();

        SlotState(Slot slot) {
            this.slot = slot;
            this.seats = new BookingId[slot.capacity()];
            this.taken = new BitSet(slot.capacity());
        }

        void assign(int seat, BookingId bookingId, StudentId studentId) {
            seats[seat - 1] = bookingId;
            taken.set(seat - 1);
            active.put(studentId, bookingId);
        }

        void free(int seat, StudentId studentId) {
            seats[seat - 1] = null;
            taken.clear(seat - 1);
            active.remove(studentId);
        }
    }

    /** One resource occupied over a time range by a slot (coach, room) or a booking (student). */
    record Occupied(long seq, ResourceRef resource, TimeRange time, SlotId slotId, BookingId bookingId) {
        static final Comparator<Occupied> ORDER =
                Comparator.comparing((Occupied o) -> o.time().start()).thenComparingLong(Occupied::seq);

        /** A probe that sorts before every occupation starting at or after {@code from}. */
        static Occupied probe(ResourceRef resource, Instant from) {
            return new Occupied(Long.MIN_VALUE, resource, new TimeRange(from, from.plusNanos(1000)), null, null);
        }
    }
}
