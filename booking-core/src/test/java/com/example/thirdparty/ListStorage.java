package com.example.thirdparty;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;
import java.util.function.Predicate;
import org.slotbook.core.Attendance;
import org.slotbook.core.Booking;
import org.slotbook.core.BookingId;
import org.slotbook.core.BookingStatus;
import org.slotbook.core.CreditEntry;
import org.slotbook.core.LessonPackage;
import org.slotbook.core.PackageId;
import org.slotbook.core.RequestId;
import org.slotbook.core.ResourceRef;
import org.slotbook.core.SeriesId;
import org.slotbook.core.Slot;
import org.slotbook.core.SlotId;
import org.slotbook.core.StudentId;
import org.slotbook.core.TenantId;
import org.slotbook.core.WaitlistEntry;
import org.slotbook.core.rules.Occupancy;
import org.slotbook.core.rules.RuleStorage;
import org.slotbook.core.rules.RuleTx;
import org.slotbook.core.rules.StoredSlot;
import org.slotbook.core.rules.Waiter;

/**
 * A {@link RuleStorage} as a third party would write one, from the public API alone: each tenant's
 * rows in plain lists, one lock per tenant held for the whole transaction, and a copy of the rows
 * taken when the transaction begins, put back when it throws or rolls back. Simple, not fast.
 */
public final class ListStorage implements RuleStorage {
    private final Map<TenantId, Tenant> tenants = new ConcurrentHashMap<>();

    /** One tenant: its lock and its rows. */
    private static final class Tenant {
        final ReentrantLock lock = new ReentrantLock();
        Rows rows = new Rows();
    }

    /** Every row of a tenant. Records are immutable, so a copy of the lists is a snapshot. */
    private static final class Rows {
        List<StoredSlot> slots = new ArrayList<>();
        /** The seats of each slot: the booking in each, null when free. */
        Map<SlotId, List<BookingId>> seats = new HashMap<>();
        Set<SlotId> closed = new HashSet<>();
        List<Booking> bookings = new ArrayList<>();
        List<Occupancy> occupancies = new ArrayList<>();
        List<Waiter> waiters = new ArrayList<>();
        List<LessonPackage> packages = new ArrayList<>();
        List<CreditEntry> journal = new ArrayList<>();
        long waiterSeq;
        long journalSeq;

        Rows copy() {
            Rows c = new Rows();
            c.slots = new ArrayList<>(slots);
            seats.forEach((slot, list) -> c.seats.put(slot, new ArrayList<>(list)));
            c.closed = new HashSet<>(closed);
            c.bookings = new ArrayList<>(bookings);
            c.occupancies = new ArrayList<>(occupancies);
            c.waiters = new ArrayList<>(waiters);
            c.packages = new ArrayList<>(packages);
            c.journal = new ArrayList<>(journal);
            c.waiterSeq = waiterSeq;
            c.journalSeq = journalSeq;
            return c;
        }
    }

    @Override
    public <T> T inTransaction(TenantId tenantId, Function<RuleTx, T> work) {
        Tenant tenant = tenants.computeIfAbsent(tenantId, id -> new Tenant());
        tenant.lock.lock();
        Rows before = tenant.rows.copy();
        try {
            return work.apply(new Tx(tenantId, tenant, before));
        } catch (RuntimeException | Error e) {
            tenant.rows = before;
            throw e;
        } finally {
            tenant.lock.unlock();
        }
    }

    @Override
    public List<TenantId> tenants(TenantId after, int limit) {
        return tenants.keySet().stream().filter(id -> after == null || id.compareTo(after) > 0).sorted()
                .filter(id -> inTransaction(id, tx -> !tx.slots(null, 1).isEmpty())).limit(limit).toList();
    }

    /** One transaction: reads and writes the tenant's rows under its lock. */
    private static final class Tx implements RuleTx {
        private final TenantId tenantId;
        private final Tenant tenant;
        private final Rows atBegin;

        Tx(TenantId tenantId, Tenant tenant, Rows atBegin) {
            this.tenantId = tenantId;
            this.tenant = tenant;
            this.atBegin = atBegin;
        }

        private Rows rows() {
            return tenant.rows;
        }

        private static <T> Optional<T> first(List<T> list, Predicate<T> test) {
            return list.stream().filter(test).findFirst();
        }

        private static <T> void replace(List<T> list, Predicate<T> which, T with) {
            int at = -1;
            for (int i = 0; i < list.size(); i++) {
                if (which.test(list.get(i))) {
                    at = i;
                }
            }
            if (at < 0) {
                throw new IllegalStateException("no row to replace with " + with);
            }
            list.set(at, with);
        }

        @Override
        public TenantId tenantId() {
            return tenantId;
        }

        @Override
        public boolean lock(List<ResourceRef> resources) {
            return false; // the tenant's lock is held for the whole transaction
        }

        @Override
        public void rollback() {
            tenant.rows = atBegin.copy();
        }

        // ---- slots and seats

        @Override
        public Optional<StoredSlot> slot(SlotId slotId, boolean forUpdate) {
            return first(rows().slots, s -> s.slot().slotId().equals(slotId));
        }

        @Override
        public boolean insertSlot(StoredSlot slot) {
            if (slot(slot.slot().slotId(), false).isPresent()) {
                return false;
            }
            rows().slots.add(slot);
            List<BookingId> seats = new ArrayList<>();
            for (int i = 0; i < slot.slot().capacity(); i++) {
                seats.add(null);
            }
            rows().seats.put(slot.slot().slotId(), seats);
            return true;
        }

        @Override
        public void updateSlot(Slot slot) {
            StoredSlot old = slot(slot.slotId(), false).orElseThrow();
            replace(rows().slots, s -> s.slot().slotId().equals(slot.slotId()),
                    new StoredSlot(slot, old.weekStart(), old.weekEnd()));
        }

        @Override
        public List<Slot> slots(SlotId after, int limit) {
            return rows().slots.stream().map(StoredSlot::slot)
                    .filter(s -> after == null || s.slotId().compareTo(after) > 0)
                    .sorted(Comparator.comparing(Slot::slotId)).limit(limit).toList();
        }

        @Override
        public List<Slot> seriesSlots(SeriesId seriesId) {
            return rows().slots.stream().map(StoredSlot::slot).filter(s -> seriesId.equals(s.seriesId())).toList();
        }

        @Override
        public OptionalInt freeSeat(SlotId slotId) {
            List<BookingId> seats = rows().seats.get(slotId);
            if (seats == null || rows().closed.contains(slotId)) {
                return OptionalInt.empty();
            }
            for (int i = 0; i < seats.size(); i++) {
                if (seats.get(i) == null) {
                    return OptionalInt.of(i + 1);
                }
            }
            return OptionalInt.empty();
        }

        @Override
        public void takeSeat(SlotId slotId, int seat, BookingId bookingId) {
            rows().seats.get(slotId).set(seat - 1, bookingId);
        }

        @Override
        public void freeSeat(SlotId slotId, int seat) {
            rows().seats.get(slotId).set(seat - 1, null);
        }

        @Override
        public void closeSeats(SlotId slotId) {
            rows().closed.add(slotId);
        }

        @Override
        public List<Booking> seated(SlotId slotId) {
            List<Booking> list = new ArrayList<>();
            for (BookingId id : rows().seats.getOrDefault(slotId, List.of())) {
                if (id != null) {
                    list.add(booking(id, false).orElseThrow());
                }
            }
            return list;
        }

        // ---- bookings

        @Override
        public Optional<Booking> booking(BookingId bookingId, boolean forUpdate) {
            return first(rows().bookings, b -> b.bookingId().equals(bookingId));
        }

        @Override
        public Optional<Booking> bookingOfRequest(RequestId requestId) {
            return first(rows().bookings, b -> b.requestId().equals(requestId));
        }

        @Override
        public Optional<Booking> seatedBooking(SlotId slotId, StudentId studentId) {
            return first(seated(slotId), b -> b.studentId().equals(studentId));
        }

        @Override
        public Optional<Booking> oldestDeadHold(SlotId slotId, Instant now) {
            Booking oldest = null;
            for (Booking b : seated(slotId)) {
                if (b.status() == BookingStatus.HELD && !b.isLive(now)
                        && (oldest == null || b.heldUntil().isBefore(oldest.heldUntil()))) {
                    oldest = b;
                }
            }
            return Optional.ofNullable(oldest);
        }

        @Override
        public void insertBooking(Booking booking) {
            rows().bookings.add(booking);
        }

        @Override
        public void updateBooking(Booking booking) {
            replace(rows().bookings, b -> b.bookingId().equals(booking.bookingId()), booking);
        }

        @Override
        public List<Booking> dueHolds(Instant now, int limit) {
            return rows().bookings.stream()
                    .filter(b -> b.status() == BookingStatus.HELD && !b.heldUntil().isAfter(now))
                    .sorted(Comparator.comparing(Booking::heldUntil).thenComparing(Booking::bookingId))
                    .limit(limit).toList();
        }

        @Override
        public List<Booking> unattended(Instant endedBy, int limit) {
            Comparator<Booking> byEnd = Comparator.comparing(this::end);
            return rows().bookings.stream()
                    .filter(b -> b.status() == BookingStatus.CONFIRMED && b.attendance() == Attendance.NONE
                            && !end(b).isAfter(endedBy))
                    .sorted(byEnd.thenComparing(Booking::bookingId)).limit(limit).toList();
        }

        private Instant end(Booking b) {
            return slot(b.slotId(), false).orElseThrow().slot().time().end();
        }

        @Override
        public List<Booking> bookingsOf(StudentId studentId) {
            return rows().bookings.stream().filter(b -> b.studentId().equals(studentId)).toList();
        }

        // ---- occupations

        @Override
        public List<Occupancy> occupations(ResourceRef resource, Instant from, Instant to) {
            return rows().occupancies.stream()
                    .filter(o -> o.resource().equals(resource) && o.time().start().isBefore(to)
                            && o.time().end().isAfter(from))
                    .sorted(Comparator.comparing(o -> o.time().start())).toList();
        }

        @Override
        public void occupy(Occupancy occupancy) {
            rows().occupancies.add(occupancy);
        }

        @Override
        public void vacate(SlotId slotId, BookingId bookingId) {
            rows().occupancies.removeIf(o -> o.slotId().equals(slotId) && Objects.equals(o.bookingId(), bookingId));
        }

        // ---- waitlists

        @Override
        public Optional<Waiter> waiter(RequestId requestId) {
            return first(rows().waiters, w -> w.requestId().equals(requestId));
        }

        @Override
        public List<Waiter> waiting(SlotId slotId) {
            return rows().waiters.stream()
                    .filter(w -> w.slotId().equals(slotId) && w.status() == WaitlistEntry.Status.WAITING)
                    .sorted(Comparator.comparingLong(Waiter::seq)).toList();
        }

        @Override
        public Waiter join(SlotId slotId, RequestId requestId, StudentId studentId, BookingId bookingId,
                           Instant now) {
            Waiter w = new Waiter(++rows().waiterSeq, slotId, requestId, studentId, bookingId, now,
                    WaitlistEntry.Status.WAITING, null);
            rows().waiters.add(w);
            return w;
        }

        @Override
        public void markWaiter(RequestId requestId, WaitlistEntry.Status status, WaitlistEntry.SkipReason reason,
                               Instant now) {
            Waiter w = waiter(requestId).orElseThrow();
            replace(rows().waiters, x -> x.requestId().equals(requestId), new Waiter(w.seq(), w.slotId(),
                    w.requestId(), w.studentId(), w.bookingId(), w.joinedAt(), status, reason));
        }

        // ---- packages and credits

        @Override
        public Optional<LessonPackage> lessonPackage(PackageId packageId, boolean forUpdate) {
            return first(rows().packages, p -> p.packageId().equals(packageId));
        }

        @Override
        public List<LessonPackage> packagesOf(StudentId studentId) {
            return rows().packages.stream().filter(p -> p.studentId().equals(studentId)).toList();
        }

        @Override
        public void insertPackage(LessonPackage empty) {
            rows().packages.add(empty);
        }

        @Override
        public void appendCredit(PackageId packageId, CreditEntry.Reason reason, int delta, Booking booking,
                                 Instant now) {
            LessonPackage p = lessonPackage(packageId, true).orElseThrow();
            int remaining = p.remaining() + delta;
            if (remaining < 0 || remaining > p.credits()) {
                throw new IllegalStateException("package '" + packageId + "' would hold " + remaining);
            }
            if (booking != null && rows().journal.stream().anyMatch(
                    e -> booking.bookingId().equals(e.bookingId()) && e.reason() == reason)) {
                throw new IllegalStateException("booking '" + booking.bookingId() + "' has a " + reason + " already");
            }
            rows().journal.add(new CreditEntry(tenantId, packageId, ++rows().journalSeq, reason, delta,
                    booking == null ? null : booking.bookingId(), booking == null ? null : booking.requestId(), now));
            replace(rows().packages, x -> x.packageId().equals(packageId), new LessonPackage(tenantId, packageId,
                    p.studentId(), p.credits(), remaining, p.validFrom(), p.validUntil(), p.classTypes(),
                    p.grantedAt()));
        }

        @Override
        public List<CreditEntry> journal(PackageId packageId, int offset, int limit) {
            return rows().journal.stream().filter(e -> e.packageId().equals(packageId)).skip(offset).limit(limit)
                    .toList();
        }
    }
}
