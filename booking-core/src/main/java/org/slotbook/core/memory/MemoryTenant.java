package org.slotbook.core.memory;

import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.locks.ReentrantLock;
import java.util.stream.IntStream;
import org.jspecify.annotations.Nullable;
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
import org.slotbook.core.rules.RuleTx;
import org.slotbook.core.rules.StoredSlot;
import org.slotbook.core.rules.Waiter;
import org.slotbook.core.spi.BookingEvent;

/**
 * Everything one tenant has in memory, and its transaction: guarded by {@link #lock}, held for the
 * whole transaction (so {@link #lock(List)} and {@code forUpdate} need nothing more). Every write
 * records how to undo it; {@link #commit} forgets them, {@link #rollback} runs them, latest first.
 */
final class MemoryTenant implements RuleTx {
    final TenantId id;
    final ReentrantLock lock = new ReentrantLock();
    /** The slots by id, in order (pages of slots), and by hash (every other read). */
    private final TreeMap<SlotId, SlotRow> slots = new TreeMap<>();
    private final HashMap<SlotId, SlotRow> slotsById = new HashMap<>();
    private final HashMap<BookingId, Booking> bookings = new HashMap<>();
    private final HashMap<RequestId, BookingId> requests = new HashMap<>();
    private final HashMap<StudentId, List<BookingId>> bookingsOf = new HashMap<>();
    /** HELD bookings by deadline: what {@code expireDue} expires. */
    private final TreeSet<Booking> heldByDeadline = new TreeSet<>(
            Comparator.comparing(Booking::heldUntil).thenComparing(Booking::bookingId));
    /** CONFIRMED bookings with attendance NONE: what {@code expireDue} may mark as no-shows. */
    private final TreeSet<Unattended> unattended = new TreeSet<>(
            Comparator.comparing(Unattended::end).thenComparing(Unattended::bookingId));
    /** The active occupations of each coach, room and student, in the order they were taken. */
    private final HashMap<ResourceRef, List<Occupancy>> occupied = new HashMap<>();
    private final HashMap<RequestId, Waiter> waiters = new HashMap<>();
    private long waiterSeq;
    private final HashMap<PackageId, LessonPackage> packages = new HashMap<>();
    private final HashMap<StudentId, List<PackageId>> packagesOf = new HashMap<>();
    /** Each package's journal in the order it was written. */
    private final HashMap<PackageId, List<CreditEntry>> journals = new HashMap<>();
    private final HashSet<Movement> moved = new HashSet<>();
    private long journalSeq;
    /** How to undo the writes of the transaction in progress, the latest first. */
    private final ArrayDeque<Runnable> undo = new ArrayDeque<>();

    MemoryTenant(TenantId id) {
        this.id = id;
    }

    private static final class SlotRow {
        StoredSlot stored;
        final BookingId[] seats;
        /** The booking in each taken seat as last written (null until it is inserted): no lookup by id. */
        final Booking[] holders;
        /** The hash of each holder's student: a seat of another student is passed over without reading it. */
        final int[] students;
        final TreeSet<Integer> free = new TreeSet<>();
        /** The request ids of the slot's waiters, in the order they joined. */
        final List<RequestId> waiters = new ArrayList<>();

        SlotRow(StoredSlot stored) {
            this.stored = stored;
            this.seats = new BookingId[stored.slot().capacity()];
            this.holders = new Booking[seats.length];
            this.students = new int[seats.length];
            IntStream.rangeClosed(1, seats.length).forEach(free::add);
        }
    }

    /** A CONFIRMED booking not checked in, by the end of its session: a no-show once its check-in closes. */
    private record Unattended(Instant end, BookingId bookingId) {
    }

    private static final Comparator<Occupancy> BY_START = Comparator.comparing((Occupancy o) -> o.time().start());

    /** The events the transaction in progress recorded, for the outbox at its commit. */
    private final List<BookingEvent> events = new ArrayList<>();

    /** The unique key of the journal entries that move a booking's credits: one entry per reason. */
    private record Movement(BookingId bookingId, CreditEntry.Reason reason) {
    }

    void commit() {
        undo.clear();
    }

    @Override
    public void rollback() {
        while (!undo.isEmpty()) {
            undo.pop().run();
        }
        events.clear();
    }

    @Override
    public void recordEvents(List<BookingEvent> decided) {
        events.addAll(decided);
    }

    /** {@return the events the committed transaction recorded, forgotten here} */
    List<BookingEvent> takeEvents() {
        if (events.isEmpty()) {
            return List.of();
        }
        List<BookingEvent> taken = List.copyOf(events);
        events.clear();
        return taken;
    }

    @Override
    public TenantId tenantId() {
        return id;
    }

    @Override
    public boolean lock(List<ResourceRef> resources) {
        return false; // the tenant's lock is held for the whole transaction
    }

    /** Appends {@code item} to {@code list}, to be taken off again on rollback. */
    private <T> void append(List<T> list, T item) {
        list.add(item);
        undo.push(() -> list.remove(list.size() - 1));
    }

    /** Puts {@code value} in {@code map}, the entry it replaced (or none) restored on rollback; answers that entry. */
    private <K, V> @Nullable V put(Map<K, V> map, K key, V value) {
        V before = map.put(key, value);
        undo.push(() -> {
            if (before == null) {
                map.remove(key);
            } else {
                map.put(key, before);
            }
        });
        return before;
    }

    /** {@return the values of {@code ids} in {@code map}, in order} */
    private static <K, V> List<V> all(@Nullable List<K> ids, Map<K, V> map) {
        return ids == null ? List.of() : ids.stream().map(map::get).toList();
    }

    // ---- slots and seats

    private SlotRow row(SlotId slotId) {
        SlotRow row = slotsById.get(slotId);
        if (row == null) {
            throw new IllegalStateException("slot '" + slotId + "' is missing");
        }
        return row;
    }

    @Override
    public Optional<StoredSlot> slot(SlotId slotId, boolean forUpdate) {
        return Optional.ofNullable(slotsById.get(slotId)).map(row -> row.stored);
    }

    @Override
    public boolean insertSlot(StoredSlot slot) {
        SlotId slotId = slot.slot().slotId();
        if (slotsById.containsKey(slotId)) {
            return false;
        }
        SlotRow row = new SlotRow(slot);
        put(slots, slotId, row);
        put(slotsById, slotId, row);
        return true;
    }

    @Override
    public void updateSlot(Slot slot) {
        SlotRow row = row(slot.slotId());
        StoredSlot before = row.stored;
        row.stored = new StoredSlot(slot, before.weekStart(), before.weekEnd());
        undo.push(() -> row.stored = before);
    }

    @Override
    public List<Slot> slots(@Nullable SlotId after, int limit) {
        return (after == null ? slots : slots.tailMap(after, false)).values().stream()
                .limit(limit).map(r -> r.stored.slot()).toList();
    }

    @Override
    public List<Slot> seriesSlots(SeriesId seriesId) {
        return slots.values().stream().map(row -> row.stored.slot())
                .filter(slot -> seriesId.equals(slot.seriesId())).toList();
    }

    @Override
    public OptionalInt freeSeat(SlotId slotId) {
        SlotRow row = slotsById.get(slotId);
        return row == null || row.free.isEmpty() ? OptionalInt.empty() : OptionalInt.of(row.free.first());
    }

    @Override
    public void takeSeat(SlotId slotId, int seat, BookingId bookingId) {
        SlotRow row = row(slotId);
        row.free.remove(seat);
        row.seats[seat - 1] = bookingId;
        undo.push(() -> {
            row.seats[seat - 1] = null;
            row.free.add(seat);
        });
    }

    @Override
    public void freeSeat(SlotId slotId, int seat) {
        SlotRow row = row(slotId);
        BookingId before = row.seats[seat - 1];
        Booking holder = row.holders[seat - 1];
        row.seats[seat - 1] = null;
        row.holders[seat - 1] = null;
        boolean freed = row.free.add(seat);
        undo.push(() -> {
            if (freed) {
                row.free.remove(seat);
            }
            row.seats[seat - 1] = before;
            row.holders[seat - 1] = holder;
        });
    }

    @Override
    public void closeSeats(SlotId slotId) {
        SlotRow row = row(slotId);
        List<Integer> before = List.copyOf(row.free);
        row.free.clear();
        undo.push(() -> row.free.addAll(before));
    }

    @Override
    public List<Booking> seated(SlotId slotId) {
        SlotRow row = slotsById.get(slotId);
        List<Booking> seated = new ArrayList<>(row == null ? 0 : row.seats.length);
        if (row != null) {
            for (int i = 0; i < row.seats.length; i++) {
                Booking b = holder(row, i);
                if (b != null) {
                    seated.add(b);
                }
            }
        }
        return seated;
    }

    // ---- bookings

    @Override
    public Optional<Booking> booking(BookingId bookingId, boolean forUpdate) {
        return Optional.ofNullable(bookings.get(bookingId));
    }

    @Override
    public Optional<Booking> bookingOfRequest(RequestId requestId) {
        return Optional.ofNullable(requests.get(requestId)).map(bookings::get);
    }

    @Override
    public Optional<Booking> seatedBooking(SlotId slotId, StudentId studentId) {
        SlotRow row = slotsById.get(slotId);
        int hash = studentId.hashCode();
        for (int i = 0; row != null && i < row.seats.length; i++) { // a hold's hot path: a loop, no list
            Booking b = row.holders[i] == null || row.students[i] == hash ? holder(row, i) : null;
            if (b != null && b.studentId().equals(studentId)) {
                return Optional.of(b);
            }
        }
        return Optional.empty();
    }

    @Override
    public Optional<Booking> oldestDeadHold(SlotId slotId, Instant now) {
        Booking oldest = null;
        SlotRow row = row(slotId); // a missing slot is an error here
        for (int i = 0; i < row.seats.length; i++) {
            Booking b = holder(row, i);
            if (b != null && b.status() == BookingStatus.HELD && !b.isLive(now)
                    && (oldest == null || b.heldUntil().isBefore(oldest.heldUntil()))) {
                oldest = b;
            }
        }
        return Optional.ofNullable(oldest);
    }

    /** The booking in seat {@code i + 1} of the slot, or null when the seat is free. */
    private @Nullable Booking holder(SlotRow row, int i) {
        Booking b = row.holders[i];
        return b != null || row.seats[i] == null ? b : bookings.get(row.seats[i]);
    }

    /** Keeps the booking in its seat as written, when the seat is its. */
    private void hold(Booking b) {
        SlotRow row = slotsById.get(b.slotId());
        int i = b.seat() - 1;
        if (row != null && i >= 0 && i < row.seats.length && b.bookingId().equals(row.seats[i])) {
            Booking before = row.holders[i];
            row.holders[i] = b;
            row.students[i] = b.studentId().hashCode();
            undo.push(() -> {
                row.holders[i] = before;
                row.students[i] = before == null ? 0 : before.studentId().hashCode();
            });
        }
    }

    @Override
    public void insertBooking(Booking booking) {
        hold(booking);
        put(bookings, booking.bookingId(), booking);
        index(booking);
        undo.push(() -> unindex(booking));
        put(requests, booking.requestId(), booking.bookingId());
        append(bookingsOf.computeIfAbsent(booking.studentId(), s -> new ArrayList<>()), booking.bookingId());
    }

    @Override
    public void updateBooking(Booking booking) {
        if (!bookings.containsKey(booking.bookingId())) {
            throw new IllegalStateException("booking '" + booking.bookingId() + "' is missing");
        }
        hold(booking);
        Booking before = put(bookings, booking.bookingId(), booking);
        unindex(before);
        index(booking);
        undo.push(() -> {
            unindex(booking);
            index(before);
        });
    }

    private void index(Booking b) {
        if (b.status() == BookingStatus.HELD) {
            heldByDeadline.add(b);
        } else if (b.status() == BookingStatus.CONFIRMED && b.attendance() == Attendance.NONE) {
            unattended.add(new Unattended(row(b.slotId()).stored.slot().time().end(), b.bookingId()));
        }
    }

    private void unindex(Booking b) {
        if (b.status() == BookingStatus.HELD) {
            heldByDeadline.remove(b);
        } else if (b.status() == BookingStatus.CONFIRMED && b.attendance() == Attendance.NONE) {
            unattended.remove(new Unattended(row(b.slotId()).stored.slot().time().end(), b.bookingId()));
        }
    }

    @Override
    public List<Booking> dueHolds(Instant now, int limit) {
        return heldByDeadline.stream().takeWhile(b -> !b.heldUntil().isAfter(now)).limit(limit).toList();
    }

    @Override
    public List<Booking> unattended(Instant endedBy, int limit) {
        return unattended.stream().takeWhile(u -> !u.end().isAfter(endedBy)).limit(limit)
                .map(u -> bookings.get(u.bookingId())).toList();
    }

    @Override
    public List<Booking> bookingsOf(StudentId studentId) {
        return all(bookingsOf.get(studentId), bookings);
    }

    // ---- occupations

    @Override
    public List<Occupancy> occupations(ResourceRef resource, Instant from, Instant to) {
        List<Occupancy> found = new ArrayList<>(2);
        for (Occupancy o : occupied.getOrDefault(resource, List.of())) {
            if (o.time().start().isBefore(to) && o.time().end().isAfter(from)) {
                found.add(o);
            }
        }
        if (found.size() > 1) {
            found.sort(BY_START);
        }
        return found;
    }

    @Override
    public void occupy(Occupancy occupancy) {
        append(occupied.computeIfAbsent(occupancy.resource(), r -> new ArrayList<>()), occupancy);
    }

    @Override
    public void vacate(SlotId slotId, @Nullable BookingId bookingId) {
        if (bookingId != null) {
            Booking b = bookings.get(bookingId);
            if (b != null) {
                vacate(ResourceRef.of(b.studentId()), slotId, bookingId);
            }
            return;
        }
        Slot slot = row(slotId).stored.slot();
        vacate(ResourceRef.of(slot.coachId()), slotId, null);
        vacate(ResourceRef.of(slot.roomId()), slotId, null);
    }

    private void vacate(ResourceRef resource, SlotId slotId, @Nullable BookingId bookingId) {
        List<Occupancy> list = occupied.getOrDefault(resource, List.of());
        for (int at = list.size() - 1; at >= 0; at--) {
            Occupancy o = list.get(at);
            if (o.slotId().equals(slotId) && Objects.equals(o.bookingId(), bookingId)) {
                list.remove(at);
                int was = at;
                undo.push(() -> list.add(was, o));
            }
        }
    }

    // ---- waitlists

    @Override
    public Optional<Waiter> waiter(RequestId requestId) {
        return Optional.ofNullable(waiters.get(requestId));
    }

    @Override
    public List<Waiter> waiting(SlotId slotId) {
        SlotRow row = slotsById.get(slotId);
        return row == null ? List.of() : all(row.waiters, waiters).stream()
                .filter(w -> w.status() == WaitlistEntry.Status.WAITING).toList();
    }

    @Override
    public Waiter join(SlotId slotId, RequestId requestId, StudentId studentId, BookingId bookingId, Instant now) {
        SlotRow row = row(slotId);
        Waiter w = new Waiter(++waiterSeq, slotId, requestId, studentId, bookingId, now,
                WaitlistEntry.Status.WAITING, null);
        undo.push(() -> waiterSeq--);
        put(waiters, requestId, w);
        append(row.waiters, requestId);
        return w;
    }

    @Override
    public void markWaiter(RequestId requestId, WaitlistEntry.Status status, WaitlistEntry.@Nullable SkipReason reason,
                           Instant now) {
        Waiter before = waiters.get(requestId);
        put(waiters, requestId, new Waiter(before.seq(), before.slotId(), before.requestId(), before.studentId(),
                before.bookingId(), before.joinedAt(), status, reason));
    }

    // ---- packages and credits

    @Override
    public Optional<LessonPackage> lessonPackage(PackageId packageId, boolean forUpdate) {
        return Optional.ofNullable(packages.get(packageId));
    }

    @Override
    public List<LessonPackage> packagesOf(StudentId studentId) {
        return all(packagesOf.get(studentId), packages);
    }

    @Override
    public void insertPackage(LessonPackage empty) {
        put(packages, empty.packageId(), empty);
        append(packagesOf.computeIfAbsent(empty.studentId(), s -> new ArrayList<>()), empty.packageId());
        put(journals, empty.packageId(), new ArrayList<>());
    }

    @Override
    public void appendCredit(PackageId packageId, CreditEntry.Reason reason, int delta, @Nullable Booking booking,
                             Instant now) {
        LessonPackage before = packages.get(packageId);
        int remaining = before.remaining() + delta;
        if (remaining < 0 || remaining > before.credits()) {
            throw new IllegalStateException("package '" + packageId + "' would hold " + remaining + " of its "
                    + before.credits() + " credits after " + reason + " " + delta);
        }
        Movement key = booking == null ? null : new Movement(booking.bookingId(), reason);
        if (key != null && moved.contains(key)) {
            throw new IllegalStateException("booking '" + booking.bookingId() + "' already has a " + reason
                    + " entry");
        }
        CreditEntry entry = new CreditEntry(id, packageId, ++journalSeq, reason, delta,
                booking == null ? null : booking.bookingId(), booking == null ? null : booking.requestId(), now);
        undo.push(() -> journalSeq--);
        append(journals.get(packageId), entry);
        put(packages, packageId, new LessonPackage(id, packageId, before.studentId(), before.credits(), remaining,
                before.validFrom(), before.validUntil(), before.classTypes(), before.grantedAt()));
        if (key != null) {
            moved.add(key);
            undo.push(() -> moved.remove(key));
        }
    }

    @Override
    public List<CreditEntry> journal(PackageId packageId, int offset, int limit) {
        return journals.getOrDefault(packageId, List.of()).stream().skip(offset).limit(limit).toList();
    }

    @Override
    public String toString() {
        return "MemoryTenant[" + id + "]";
    }
}
