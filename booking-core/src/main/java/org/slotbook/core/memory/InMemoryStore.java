package org.slotbook.core.memory;

import java.time.Clock;
import java.time.DayOfWeek;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.time.temporal.TemporalAdjusters;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import org.slotbook.core.AlreadyBooked;
import org.slotbook.core.AlreadyCancelled;
import org.slotbook.core.Attendance;
import org.slotbook.core.Availability;
import org.slotbook.core.BookedSession;
import org.slotbook.core.Booking;
import org.slotbook.core.BookingClosed;
import org.slotbook.core.BookingId;
import org.slotbook.core.BookingRules;
import org.slotbook.core.BookingStatus;
import org.slotbook.core.CancelResult;
import org.slotbook.core.CancelSlotResult;
import org.slotbook.core.CancellationPolicy;
import org.slotbook.core.Cancelled;
import org.slotbook.core.CheckInClosed;
import org.slotbook.core.CheckInNotOpen;
import org.slotbook.core.CheckInResult;
import org.slotbook.core.CheckedIn;
import org.slotbook.core.ConfirmResult;
import org.slotbook.core.Confirmed;
import org.slotbook.core.Conflict;
import org.slotbook.core.CreditEntry;
import org.slotbook.core.CreditPolicy;
import org.slotbook.core.Full;
import org.slotbook.core.Held;
import org.slotbook.core.HoldExpired;
import org.slotbook.core.HoldRequest;
import org.slotbook.core.HoldResult;
import org.slotbook.core.InsufficientCredits;
import org.slotbook.core.InvalidInputException;
import org.slotbook.core.LeaveResult;
import org.slotbook.core.LeftWaitlist;
import org.slotbook.core.LessonPackage;
import org.slotbook.core.LimitReached;
import org.slotbook.core.NotConfirmed;
import org.slotbook.core.NotFound;
import org.slotbook.core.NotOpenYet;
import org.slotbook.core.NotWaiting;
import org.slotbook.core.PackageGrant;
import org.slotbook.core.PackageId;
import org.slotbook.core.RequestId;
import org.slotbook.core.ResourceConflict;
import org.slotbook.core.ResourceKind;
import org.slotbook.core.ResourceRef;
import org.slotbook.core.ScheduleResult;
import org.slotbook.core.Scheduled;
import org.slotbook.core.SeriesCancelled;
import org.slotbook.core.SeriesId;
import org.slotbook.core.SeriesMode;
import org.slotbook.core.SeriesResult;
import org.slotbook.core.Slot;
import org.slotbook.core.SlotCancelled;
import org.slotbook.core.SlotId;
import org.slotbook.core.SlotNotOpen;
import org.slotbook.core.SlotStatus;
import org.slotbook.core.StudentId;
import org.slotbook.core.TenantId;
import org.slotbook.core.TimeRange;
import org.slotbook.core.TooLateToCancel;
import org.slotbook.core.WaitlistEntry;
import org.slotbook.core.Waitlisted;
import org.slotbook.core.internal.Checks;
import org.slotbook.core.spi.BookingEvent;
import org.slotbook.core.spi.BookingEvent.Kind;
import org.slotbook.core.spi.BookingStore;
import org.slotbook.core.spi.HoldCommand;
import org.slotbook.core.spi.LiveSlot;
import org.slotbook.core.spi.OutboxStore;
import org.slotbook.core.spi.StoreOutcome;
import org.slotbook.core.spi.Terms;

/**
 * A {@link BookingStore} kept in memory: every rule of the JDBC store, decided the same way, each
 * decision under its tenant's lock (so the decisions of one tenant run one after the other, and those
 * of different tenants in parallel). It is the reference the database stores are compared with.
 *
 * <p>A decision is one transaction of its tenant: every write goes through one of the tenant's
 * mutators, which records how to undo it. A decision that throws is undone whole, so a failure
 * leaves nothing half-written; an all-or-nothing series ({@link #holdAll}, {@link #scheduleSeries})
 * decides each part in turn and undoes them all when one is refused. Nothing is persisted.
 *
 * <p>Lesson packages keep an append-only journal per package; a package's {@code remaining} only
 * ever changes by appending an entry, so it is always the sum of the journal, and no booking has two
 * entries of one reason.
 *
 * <pre>{@code
 * InMemoryStore store = InMemoryStore.create();
 * BookingEngine engine = BookingEngine.builder().store(store).build();
 * }</pre>
 */
public final class InMemoryStore implements BookingStore {
    private final ConcurrentHashMap<TenantId, Tenant> tenants = new ConcurrentHashMap<>();
    private final Clock clock;
    /** The events of every committed decision, appended at its commit (see {@link MemoryOutbox}). */
    private final MemoryOutbox outbox;

    private InMemoryStore(Clock clock) {
        this.clock = clock;
        this.outbox = new MemoryOutbox(clock);
    }

    /** {@return a new, empty store on the system UTC clock} */
    public static InMemoryStore create() {
        return new InMemoryStore(Clock.systemUTC());
    }

    /**
     * {@return a new, empty store whose own clock (a {@code now} of null) is {@code clock}}
     *
     * @param clock the clock that decides every deadline
     */
    public static InMemoryStore create(Clock clock) {
        return new InMemoryStore(Checks.notNull("clock", clock));
    }

    @Override
    public String toString() {
        return "InMemoryStore[tenants=" + tenants.size() + "]";
    }

    // ---------------------------------------------------------------------------------------------
    // state

    private static final class SlotRow {
        Slot slot;
        final Instant weekStart;
        final Instant weekEnd;
        final BookingId[] seats;
        final TreeSet<Integer> free = new TreeSet<>();
        final List<Waiter> waiters = new ArrayList<>();

        SlotRow(Slot slot, Instant weekStart, Instant weekEnd) {
            this.slot = slot;
            this.weekStart = weekStart;
            this.weekEnd = weekEnd;
            this.seats = new BookingId[slot.capacity()];
            for (int seq = 1; seq <= slot.capacity(); seq++) {
                free.add(seq);
            }
        }
    }

    private static final class Waiter {
        final long seq;
        final SlotId slotId;
        final RequestId requestId;
        final StudentId studentId;
        final BookingId bookingId;
        final Instant joinedAt;
        WaitlistEntry.Status status = WaitlistEntry.Status.WAITING;
        WaitlistEntry.SkipReason reason;

        Waiter(long seq, SlotId slotId, RequestId requestId, StudentId studentId, BookingId bookingId,
               Instant joinedAt) {
            this.seq = seq;
            this.slotId = slotId;
            this.requestId = requestId;
            this.studentId = studentId;
            this.bookingId = bookingId;
            this.joinedAt = joinedAt;
        }
    }

    /** An active occupation: a coach or room over its padded session, or a student over a booking's session. */
    private record Occupied(ResourceRef resource, TimeRange time, SlotId slotId, BookingId bookingId) {
    }

    /** A CONFIRMED booking not checked in, by the end of its session: a no-show once its check-in closes. */
    private record Unattended(Instant end, BookingId bookingId) implements Comparable<Unattended> {
        @Override
        public int compareTo(Unattended other) {
            int byEnd = end.compareTo(other.end);
            return byEnd != 0 ? byEnd : bookingId.compareTo(other.bookingId);
        }
    }

    /** The unique key of the journal entries that move a booking's credits: one entry per reason. */
    private record Movement(BookingId bookingId, CreditEntry.Reason reason) {
    }

    private static final class Tenant {
        final TenantId id;
        final ReentrantLock lock = new ReentrantLock();
        final TreeMap<SlotId, SlotRow> slots = new TreeMap<>();
        final HashMap<BookingId, Booking> bookings = new HashMap<>();
        final HashMap<RequestId, BookingId> requests = new HashMap<>();
        /** HELD bookings by deadline: what {@code expireDue} expires. */
        final TreeSet<Booking> heldByDeadline = new TreeSet<>(
                Comparator.comparing(Booking::heldUntil).thenComparing(Booking::bookingId));
        /** CONFIRMED bookings with attendance NONE: what {@code expireDue} may mark as no-shows. */
        final TreeSet<Unattended> unattended = new TreeSet<>();
        final HashMap<ResourceRef, List<Occupied>> occupied = new HashMap<>();
        final HashMap<RequestId, Waiter> waiters = new HashMap<>();
        long waiterSeq;
        final HashMap<PackageId, LessonPackage> packages = new HashMap<>();
        final HashMap<StudentId, List<PackageId>> packagesOf = new HashMap<>();
        /** Each package's journal in the order it was written. */
        final HashMap<PackageId, List<CreditEntry>> journals = new HashMap<>();
        final HashSet<Movement> moved = new HashSet<>();
        long journalSeq;
        /** How to undo the writes of the decision in progress, the latest first. */
        private final ArrayDeque<Runnable> undo = new ArrayDeque<>();

        Tenant(TenantId id) {
            this.id = id;
        }

        List<Occupied> of(ResourceRef resource) {
            return occupied.getOrDefault(resource, List.of());
        }

        // ---- the decision in progress: its writes stand, or are undone whole

        void commit() {
            undo.clear();
        }

        void rollback() {
            while (!undo.isEmpty()) {
                undo.pop().run();
            }
        }

        // ---- the mutators: every write of a decision, each recording its inverse

        void addSlot(SlotRow row) {
            SlotId slotId = row.slot.slotId();
            slots.put(slotId, row);
            undo.push(() -> slots.remove(slotId));
        }

        void setSlot(SlotRow row, Slot slot) {
            Slot before = row.slot;
            row.slot = slot;
            undo.push(() -> row.slot = before);
        }

        /** Stores {@code booking}, new or replacing the stored one of its id, and keeps the indexes. */
        void put(Booking booking) {
            Booking before = bookings.put(booking.bookingId(), booking);
            if (before != null) {
                unindex(before);
            }
            index(booking);
            BookingId requestBefore = requests.put(booking.requestId(), booking.bookingId());
            undo.push(() -> {
                unindex(booking);
                if (before == null) {
                    bookings.remove(booking.bookingId());
                } else {
                    bookings.put(before.bookingId(), before);
                    index(before);
                }
                if (requestBefore == null) {
                    requests.remove(booking.requestId());
                } else {
                    requests.put(booking.requestId(), requestBefore);
                }
            });
        }

        private void index(Booking b) {
            if (b.status() == BookingStatus.HELD) {
                heldByDeadline.add(b);
            } else if (b.status() == BookingStatus.CONFIRMED && b.attendance() == Attendance.NONE) {
                unattended.add(new Unattended(slots.get(b.slotId()).slot.time().end(), b.bookingId()));
            }
        }

        private void unindex(Booking b) {
            if (b.status() == BookingStatus.HELD) {
                heldByDeadline.remove(b);
            } else if (b.status() == BookingStatus.CONFIRMED && b.attendance() == Attendance.NONE) {
                unattended.remove(new Unattended(slots.get(b.slotId()).slot.time().end(), b.bookingId()));
            }
        }

        void takeSeat(SlotRow row, int seat, BookingId bookingId) {
            row.free.remove(seat);
            row.seats[seat - 1] = bookingId;
            undo.push(() -> {
                row.seats[seat - 1] = null;
                row.free.add(seat);
            });
        }

        void freeSeat(SlotRow row, int seat) {
            BookingId before = row.seats[seat - 1];
            row.seats[seat - 1] = null;
            boolean freed = row.free.add(seat);
            undo.push(() -> {
                if (freed) {
                    row.free.remove(seat);
                }
                row.seats[seat - 1] = before;
            });
        }

        /** No seat of the slot is free any more (it was called off). */
        void closeSeats(SlotRow row) {
            List<Integer> before = List.copyOf(row.free);
            row.free.clear();
            undo.push(() -> row.free.addAll(before));
        }

        void occupy(Occupied o) {
            List<Occupied> list = occupied.computeIfAbsent(o.resource(), r -> new ArrayList<>());
            list.add(o);
            undo.push(() -> list.remove(list.size() - 1));
        }

        void vacate(Occupied o) {
            List<Occupied> list = occupied.get(o.resource());
            int at = list.indexOf(o);
            list.remove(at);
            undo.push(() -> list.add(at, o));
        }

        Waiter join(SlotRow row, RequestId requestId, StudentId studentId, BookingId bookingId, Instant now) {
            Waiter w = new Waiter(++waiterSeq, row.slot.slotId(), requestId, studentId, bookingId, now);
            waiters.put(requestId, w);
            row.waiters.add(w);
            undo.push(() -> {
                row.waiters.remove(row.waiters.size() - 1);
                waiters.remove(requestId);
                waiterSeq--;
            });
            return w;
        }

        void mark(Waiter w, WaitlistEntry.Status status, WaitlistEntry.SkipReason reason) {
            WaitlistEntry.Status statusBefore = w.status;
            WaitlistEntry.SkipReason reasonBefore = w.reason;
            w.status = status;
            w.reason = reason;
            undo.push(() -> {
                w.status = statusBefore;
                w.reason = reasonBefore;
            });
        }

        /** Stores a package with nothing in it yet: its GRANT entry fills it. */
        void addPackage(LessonPackage empty) {
            PackageId packageId = empty.packageId();
            packages.put(packageId, empty);
            List<PackageId> own = packagesOf.computeIfAbsent(empty.studentId(), s -> new ArrayList<>());
            own.add(packageId);
            journals.put(packageId, new ArrayList<>());
            undo.push(() -> {
                journals.remove(packageId);
                own.remove(own.size() - 1);
                packages.remove(packageId);
            });
        }

        /**
         * Appends a journal entry and moves the package's {@code remaining} by its {@code delta}: the only
         * way credits move. {@code booking} is null for the GRANT.
         *
         * @throws IllegalStateException when the package would hold less than 0 or more than its credits,
         *                               or the booking already has an entry of this reason (the checks a
         *                               database makes with a CHECK constraint and a unique index)
         */
        void move(PackageId packageId, CreditEntry.Reason reason, int delta, Booking booking, Instant now) {
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
            List<CreditEntry> journal = journals.get(packageId);
            journal.add(entry);
            packages.put(packageId, new LessonPackage(id, packageId, before.studentId(), before.credits(), remaining,
                    before.validFrom(), before.validUntil(), before.classTypes(), before.grantedAt()));
            if (key != null) {
                moved.add(key);
            }
            undo.push(() -> {
                if (key != null) {
                    moved.remove(key);
                }
                packages.put(packageId, before);
                journal.remove(journal.size() - 1);
                journalSeq--;
            });
        }
    }

    /**
     * Runs one decision (or read) of the tenant under its lock, as one transaction: when {@code work}
     * throws, its writes are undone before the exception goes on.
     */
    private <T> T locked(TenantId tenantId, Function<Tenant, T> work) {
        Checks.notNull("tenantId", tenantId);
        Tenant t = tenants.computeIfAbsent(tenantId, Tenant::new);
        t.lock.lock();
        try {
            T answer = work.apply(t);
            t.commit();
            if (answer instanceof StoreOutcome<?> outcome) {
                outbox.append(tenantId, outcome.events());
            }
            return answer;
        } catch (RuntimeException | Error e) {
            t.rollback();
            throw e;
        } finally {
            t.lock.unlock();
        }
    }

    @Override
    public OutboxStore outbox() {
        return outbox;
    }

    private Instant at(Instant now) {
        return now != null ? Checks.micros("now", now) : Checks.micros("clock.instant()", clock.instant());
    }

    // ---------------------------------------------------------------------------------------------
    // schedule

    @Override
    public ScheduleResult schedule(TenantId tenantId, Slot slot, Duration longestSession, ZoneId weekZone) {
        Checks.notNull("slot", slot);
        Checks.notNull("weekZone", weekZone);
        return locked(tenantId, t -> schedule(t, slot, weekZone));
    }

    private static ScheduleResult schedule(Tenant t, Slot slot, ZoneId weekZone) {
        SlotRow existing = t.slots.get(slot.slotId());
        if (existing != null) {
            return new Scheduled(existing.slot);
        }
        TimeRange padded = slot.paddedTime();
        List<ResourceConflict> clashes = new ArrayList<>();
        for (ResourceRef r : List.of(ResourceRef.of(slot.coachId()), ResourceRef.of(slot.roomId()))) {
            t.of(r).stream().filter(o -> o.time().overlaps(padded))
                    .sorted(Comparator.comparing((Occupied o) -> o.time().start()))
                    .forEach(o -> clashes.add(new ResourceConflict(r, o.slotId(), Optional.empty(), o.time())));
        }
        if (!clashes.isEmpty()) {
            return new Conflict(clashes);
        }
        LocalDate monday = slot.time().start().atZone(weekZone).toLocalDate()
                .with(TemporalAdjusters.previousOrSame(DayOfWeek.MONDAY));
        Instant weekStart = monday.atStartOfDay(weekZone).toInstant();
        Instant weekEnd = monday.plusWeeks(1).atStartOfDay(weekZone).toInstant();
        Slot stored = slot.withStatus(SlotStatus.OPEN);
        t.addSlot(new SlotRow(stored, weekStart, weekEnd));
        t.occupy(new Occupied(ResourceRef.of(slot.coachId()), padded, slot.slotId(), null));
        t.occupy(new Occupied(ResourceRef.of(slot.roomId()), padded, slot.slotId(), null));
        return new Scheduled(stored);
    }

    @Override
    public SeriesResult scheduleSeries(TenantId tenantId, SeriesId seriesId, SeriesMode mode, List<Slot> occurrences,
                                       Duration longestSession, ZoneId weekZone) {
        Checks.notNull("seriesId", seriesId);
        Checks.notNull("mode", mode);
        Checks.notNull("occurrences", occurrences);
        Checks.notNull("weekZone", weekZone);
        for (int i = 0; i < occurrences.size(); i++) {
            Slot slot = Checks.notNull("occurrences[" + i + "]", occurrences.get(i));
            if (!seriesId.equals(slot.seriesId())) {
                throw new InvalidInputException("occurrences[" + i + "] (slot '" + slot.slotId()
                        + "') must be of series '" + seriesId + "', got " + (slot.seriesId() == null ? "none"
                        : "'" + slot.seriesId() + "'"));
            }
        }
        return locked(tenantId, t -> {
            List<ScheduleResult> results = new ArrayList<>();
            boolean conflict = false;
            for (Slot slot : occurrences) {
                ScheduleResult r = schedule(t, slot, weekZone);
                results.add(r);
                conflict |= r instanceof Conflict;
            }
            boolean rolledBack = conflict && mode == SeriesMode.ALL_OR_NOTHING;
            if (rolledBack) {
                t.rollback();
            }
            List<SeriesResult.Occurrence> answer = new ArrayList<>();
            for (int i = 0; i < results.size(); i++) {
                if (results.get(i) instanceof Conflict c) {
                    answer.add(new SeriesResult.Occurrence(occurrences.get(i), SeriesResult.Occurrence.Status.CONFLICT,
                            c.conflicts()));
                } else if (rolledBack) {
                    answer.add(new SeriesResult.Occurrence(occurrences.get(i),
                            SeriesResult.Occurrence.Status.ROLLED_BACK, List.of()));
                } else {
                    answer.add(new SeriesResult.Occurrence(((Scheduled) results.get(i)).slot(),
                            SeriesResult.Occurrence.Status.SCHEDULED, List.of()));
                }
            }
            return new SeriesResult(seriesId, mode, answer);
        });
    }

    // ---------------------------------------------------------------------------------------------
    // hold

    @Override
    public StoreOutcome<HoldResult> hold(TenantId tenantId, HoldCommand cmd) {
        Checks.notNull("command", cmd);
        Instant now = at(cmd.now());
        return locked(tenantId, t -> hold(t, cmd, now));
    }

    @Override
    public StoreOutcome<List<HoldResult>> holdAll(TenantId tenantId, List<HoldCommand> commands, SeriesMode mode) {
        Checks.notNull("commands", commands);
        Checks.notNull("mode", mode);
        for (int i = 0; i < commands.size(); i++) {
            HoldCommand cmd = Checks.notNull("commands[" + i + "]", commands.get(i));
            StudentId first = commands.get(0).request().studentId();
            if (!cmd.request().studentId().equals(first)) {
                throw new InvalidInputException("commands must all be of one student: commands[" + i
                        + "] is of '" + cmd.request().studentId() + "', commands[0] of '" + first + "'");
            }
        }
        return locked(tenantId, t -> {
            List<HoldResult> results = new ArrayList<>();
            List<BookingEvent> events = new ArrayList<>();
            List<WaitlistEntry> skipped = new ArrayList<>();
            boolean allHeld = true;
            for (HoldCommand cmd : commands) {
                StoreOutcome<HoldResult> one = hold(t, cmd, at(cmd.now()));
                results.add(one.result());
                events.addAll(one.events());
                skipped.addAll(one.skipped());
                allHeld &= one.result() instanceof Held held && held.booking().status().isActive();
            }
            if (!allHeld && mode == SeriesMode.ALL_OR_NOTHING) {
                t.rollback();
                return new StoreOutcome<>(results, List.of(), null, List.of());
            }
            return new StoreOutcome<>(results, events, null, skipped);
        });
    }

    private StoreOutcome<HoldResult> hold(Tenant t, HoldCommand cmd, Instant now) {
        HoldRequest request = cmd.request();
        SlotRow row = t.slots.get(request.slotId());
        if (row == null) {
            return StoreOutcome.of(new NotFound());
        }
        Slot slot = row.slot;
        Optional<HoldResult> replay = replay(t, request.requestId());
        if (slot.status() != SlotStatus.OPEN || !now.isBefore(slot.time().end())) {
            return StoreOutcome.of(replay.orElseGet(() -> new SlotNotOpen(slot.slotId(), slot.status())));
        }
        if (slot.opensAt() != null && now.isBefore(slot.opensAt())) {
            return StoreOutcome.of(replay.orElseGet(() -> new NotOpenYet(slot.slotId(), slot.opensAt())));
        }
        if (slot.closesAt() != null && !now.isBefore(slot.closesAt())) {
            return StoreOutcome.of(replay.orElseGet(() -> new BookingClosed(slot.slotId(), slot.closesAt())));
        }
        if (replay.isPresent()) {
            return StoreOutcome.of(replay.get());
        }
        Booking mine = activeBooking(t, slot.slotId(), request.studentId());
        if (mine != null && mine.isLive(now)) {
            return StoreOutcome.of(new AlreadyBooked(mine));
        }
        if (!cmd.gateHeld() && !request.waitlist() && row.free.isEmpty() && oldestDeadHold(t, row, now) == null) {
            // the cheap pre-check of a full slot, before the student's rules (as the database routines do)
            return StoreOutcome.of(new Full(slot.slotId()));
        }
        List<ResourceConflict> clashes = studentClashes(t, request.studentId(), slot.studentTime(), now);
        if (!clashes.isEmpty()) {
            return StoreOutcome.of(new Conflict(clashes));
        }
        Optional<LimitReached> limit = limitReached(t, request.studentId(), row, cmd.rules(), now);
        if (limit.isPresent()) {
            return StoreOutcome.of(limit.get());
        }
        List<BookingEvent> events = new ArrayList<>();
        List<WaitlistEntry> skipped = new ArrayList<>();
        Terms terms = cmd.terms();
        // the student's dead holds: the one of this slot, then those overlapping it (their credits come back)
        if (mine != null) {
            retire(t, mine, now, terms, events, skipped, request.studentId());
        }
        for (Occupied o : List.copyOf(t.of(ResourceRef.of(request.studentId())))) {
            if (o.time().overlaps(slot.studentTime())) {
                Booking b = t.bookings.get(o.bookingId());
                if (b != null && b.status() == BookingStatus.HELD && !b.isLive(now)) {
                    retire(t, b, now, terms, events, skipped, request.studentId());
                }
            }
        }
        // a seat of a slot with a cost, and a place on its waitlist, need a package that can pay it
        LessonPackage payer = null;
        if (slot.cost() > 0) {
            payer = payer(t, request.studentId(), slot, now);
            if (payer == null) {
                return new StoreOutcome<>(new InsufficientCredits(slot.slotId(), slot.cost()), events, null, skipped);
            }
        }
        Integer seat = row.free.isEmpty() ? null : row.free.first();
        if (seat == null && waiting(row).isEmpty()) {
            Booking oldest = oldestDeadHold(t, row, now);
            if (oldest != null) {
                expire(t, oldest, now, events);
                seat = row.free.first();
            }
        }
        if (seat == null) {
            if (request.waitlist() && now.isBefore(promotionCutoff(slot, cmd.rules()))) {
                for (Waiter w : waiting(row)) {
                    if (w.studentId.equals(request.studentId())) {
                        return new StoreOutcome<>(new Waitlisted(entry(t, w), true), events, null, skipped);
                    }
                }
                Waiter w = t.join(row, request.requestId(), request.studentId(), cmd.bookingId(), now);
                return new StoreOutcome<>(new Waitlisted(entry(t, w), false), events, null, skipped);
            }
            return new StoreOutcome<>(new Full(slot.slotId()), events, null, skipped);
        }
        Booking booking = new Booking(t.id, cmd.bookingId(), request.requestId(), slot.slotId(),
                request.studentId(), seat, cmd.status(), now.plus(cmd.holdTtl()), now, now);
        seat(t, row, booking);
        if (payer != null && cmd.rules().credits() == CreditPolicy.AT_BOOKING) {
            booking = charge(t, booking, payer, slot.cost(), CreditEntry.Reason.DRAW, now);
        }
        events.add(new BookingEvent(cmd.status() == BookingStatus.CONFIRMED ? Kind.CONFIRMED : Kind.HELD, booking));
        return new StoreOutcome<>(new Held(booking, false), events, null, skipped);
    }

    private Optional<HoldResult> replay(Tenant t, RequestId requestId) {
        BookingId id = t.requests.get(requestId);
        if (id != null) {
            return Optional.of(new Held(t.bookings.get(id), true));
        }
        Waiter w = t.waiters.get(requestId);
        return w == null ? Optional.empty() : Optional.of(new Waitlisted(entry(t, w), true));
    }

    private static @Nullable Booking activeBooking(Tenant t, SlotId slotId, StudentId studentId) {
        SlotRow row = t.slots.get(slotId);
        for (BookingId id : row.seats) {
            if (id != null) {
                Booking b = t.bookings.get(id);
                if (b.studentId().equals(studentId)) {
                    return b;
                }
            }
        }
        return null;
    }

    /** The student's active occupations overlapping {@code time}; a dead hold blocks nothing. */
    private static List<ResourceConflict> studentClashes(Tenant t, StudentId studentId, TimeRange time, Instant now) {
        ResourceRef student = ResourceRef.of(studentId);
        List<ResourceConflict> clashes = new ArrayList<>();
        t.of(student).stream()
                .filter(o -> o.time().overlaps(time))
                .filter(o -> t.bookings.get(o.bookingId()).isLive(now))
                .sorted(Comparator.comparing((Occupied o) -> o.time().start()))
                .forEach(o -> clashes.add(new ResourceConflict(student, o.slotId(), Optional.of(o.bookingId()),
                        o.time())));
        return clashes;
    }

    private static Optional<LimitReached> limitReached(Tenant t, StudentId studentId, SlotRow row, BookingRules rules,
                                                       Instant now) {
        if (rules.maxUpcoming() == 0 && rules.maxPerWeek() == 0) {
            return Optional.empty();
        }
        int upcoming = 0;
        int thisWeek = 0;
        for (Occupied o : t.of(ResourceRef.of(studentId))) {
            if (!t.bookings.get(o.bookingId()).isLive(now)) {
                continue;
            }
            if (o.time().end().isAfter(now)) {
                upcoming++;
            }
            if (!o.time().start().isBefore(row.weekStart) && o.time().start().isBefore(row.weekEnd)) {
                thisWeek++;
            }
        }
        if (rules.maxUpcoming() > 0 && upcoming >= rules.maxUpcoming()) {
            return Optional.of(new LimitReached(LimitReached.Limit.UPCOMING, rules.maxUpcoming()));
        }
        if (rules.maxPerWeek() > 0 && thisWeek >= rules.maxPerWeek()) {
            return Optional.of(new LimitReached(LimitReached.Limit.WEEKLY, rules.maxPerWeek()));
        }
        return Optional.empty();
    }

    private static Booking oldestDeadHold(Tenant t, SlotRow row, Instant now) {
        Booking oldest = null;
        for (BookingId id : row.seats) {
            if (id != null) {
                Booking b = t.bookings.get(id);
                if (b.status() == BookingStatus.HELD && !b.isLive(now)
                        && (oldest == null || b.heldUntil().isBefore(oldest.heldUntil()))) {
                    oldest = b;
                }
            }
        }
        return oldest;
    }

    private static List<Waiter> waiting(SlotRow row) {
        List<Waiter> list = new ArrayList<>();
        for (Waiter w : row.waiters) {
            if (w.status == WaitlistEntry.Status.WAITING) {
                list.add(w);
            }
        }
        return list;
    }

    private static Instant promotionCutoff(Slot slot, BookingRules rules) {
        return slot.time().start().minus(rules.waitlistCutoff());
    }

    private static WaitlistEntry entry(Tenant t, Waiter w) {
        int position = 0;
        if (w.status == WaitlistEntry.Status.WAITING) {
            for (Waiter other : t.slots.get(w.slotId).waiters) {
                if (other.status == WaitlistEntry.Status.WAITING) {
                    position++;
                }
                if (other == w) {
                    break;
                }
            }
        }
        return new WaitlistEntry(t.id, w.slotId, w.requestId, w.studentId, position, w.status, w.reason, w.bookingId,
                w.joinedAt);
    }

    // ---------------------------------------------------------------------------------------------
    // credits

    /**
     * The package that pays for the student's seat in {@code slot}: of those that cover it and still
     * hold its cost, the one that runs out first (then the lowest package id); null when none can, even
     * after the credits of the student's dead holds came back.
     */
    private static LessonPackage payer(Tenant t, StudentId studentId, Slot slot, Instant now) {
        LessonPackage payer = payer(t, studentId, slot);
        return payer == null && refundDeadHolds(t, studentId, now) ? payer(t, studentId, slot) : payer;
    }

    /**
     * Gives back the credits the student's dead holds (HELD, deadline passed, not swept yet) still hold
     * (a REFUND each); the holds themselves stay for the sweep or a takeover to expire. Asked only when no
     * package can pay: a credit in a hold that ran out is the student's again. Whether any came back.
     */
    private static boolean refundDeadHolds(Tenant t, StudentId studentId, Instant now) {
        boolean any = false;
        for (Occupied o : List.copyOf(t.of(ResourceRef.of(studentId)))) {
            Booking b = t.bookings.get(o.bookingId());
            if (b != null && b.status() == BookingStatus.HELD && !b.isLive(now) && b.credits() > 0) {
                refund(t, b, now);
                any = true;
            }
        }
        return any;
    }

    /** As {@link #payer(Tenant, StudentId, Slot, Instant)}, from the packages as they are. */
    private static LessonPackage payer(Tenant t, StudentId studentId, Slot slot) {
        LessonPackage best = null;
        for (PackageId id : t.packagesOf.getOrDefault(studentId, List.of())) {
            LessonPackage p = t.packages.get(id);
            if (p.covers(slot) && p.remaining() >= slot.cost()
                    && (best == null || PACKAGE_ORDER.compare(p, best) < 0)) {
                best = p;
            }
        }
        return best;
    }

    private static final Comparator<LessonPackage> PACKAGE_ORDER =
            Comparator.comparing(LessonPackage::validUntil).thenComparing(LessonPackage::packageId);

    /** Draws {@code cost} from {@code payer} for the stored booking {@code b}; answers it holding them. */
    private static Booking charge(Tenant t, Booking b, LessonPackage payer, int cost, CreditEntry.Reason reason,
                                  Instant now) {
        t.move(payer.packageId(), reason, -cost, b, now);
        Booking paid = b.withCredits(payer.packageId(), cost, now);
        t.put(paid);
        return paid;
    }

    /** Gives back the credits the stored booking {@code b} holds (REFUND); answers it holding none. */
    private static Booking refund(Tenant t, Booking b, Instant now) {
        if (b.credits() == 0) {
            return b;
        }
        t.move(b.packageId(), CreditEntry.Reason.REFUND, b.credits(), b, now);
        Booking refunded = b.withCredits(null, 0, now);
        t.put(refunded);
        return refunded;
    }

    /**
     * What a late cancel by the student and a no-show cost: under AT_CHECK_IN, a booking of a slot with
     * a cost that holds no credits draws them now as a FORFEIT when a package can pay (else nothing);
     * otherwise the booking keeps what it holds.
     */
    private static Booking forfeit(Tenant t, Booking b, Slot slot, BookingRules rules, Instant now) {
        if (rules.credits() != CreditPolicy.AT_CHECK_IN || slot.cost() == 0 || b.credits() > 0) {
            return b;
        }
        LessonPackage payer = payer(t, b.studentId(), slot, now);
        return payer == null ? b : charge(t, b, payer, slot.cost(), CreditEntry.Reason.FORFEIT, now);
    }

    // ---------------------------------------------------------------------------------------------
    // seats

    /** Gives {@code booking} its seat and occupation (the seat is free). */
    private static void seat(Tenant t, SlotRow row, Booking booking) {
        t.takeSeat(row, booking.seat(), booking.bookingId());
        t.put(booking);
        t.occupy(new Occupied(ResourceRef.of(booking.studentId()), row.slot.studentTime(), booking.slotId(),
                booking.bookingId()));
    }

    /**
     * Ends a live or dead booking with {@code status}: frees its seat and its occupation; {@code refund}:
     * gives back the credits it holds first (else it keeps them).
     */
    private static Booking end(Tenant t, Booking b, BookingStatus status, Instant now, boolean refund) {
        Booking settled = refund ? refund(t, b, now) : b;
        SlotRow row = t.slots.get(b.slotId());
        t.freeSeat(row, b.seat());
        Booking ended = settled.with(status, now);
        t.put(ended);
        for (Occupied o : List.copyOf(t.of(ResourceRef.of(b.studentId())))) {
            if (b.bookingId().equals(o.bookingId())) {
                t.vacate(o);
            }
        }
        return ended;
    }

    /** Expires a dead hold (EXPIRED event, credits refunded) without promoting anyone: the caller takes the seat. */
    private static void expire(Tenant t, Booking dead, Instant now, List<BookingEvent> events) {
        events.add(new BookingEvent(Kind.EXPIRED, end(t, dead, BookingStatus.EXPIRED, now, true)));
    }

    /** Expires a dead hold (credits refunded) and offers its seat to the slot's waiters. */
    private static Booking retire(Tenant t, Booking dead, Instant now, Terms terms, List<BookingEvent> events,
                                  List<WaitlistEntry> skipped) {
        return retire(t, dead, now, terms, events, skipped, null);
    }

    /**
     * Expires a dead hold and offers its seat to the slot's waiters; {@code holding} (the student of a
     * hold in progress, or null) is not promoted: that student is taking a seat of his own right now.
     */
    private static Booking retire(Tenant t, Booking dead, Instant now, Terms terms, List<BookingEvent> events,
                                  List<WaitlistEntry> skipped, StudentId holding) {
        Booking expired = end(t, dead, BookingStatus.EXPIRED, now, true);
        events.add(new BookingEvent(Kind.EXPIRED, expired));
        promote(t, t.slots.get(dead.slotId()), now, terms, events, skipped, holding);
        return expired;
    }

    /**
     * Gives a free seat of the slot to its first waiter who can take it: no booking of the slot, no
     * live overlapping booking, within limits, a package that can pay a cost (drawn at once under
     * AT_BOOKING). Those passed over are SKIPPED, with the reason.
     */
    private static void promote(Tenant t, SlotRow row, Instant now, Terms terms, List<BookingEvent> events,
                                List<WaitlistEntry> skipped) {
        promote(t, row, now, terms, events, skipped, null);
    }

    private static void promote(Tenant t, SlotRow row, Instant now, Terms terms, List<BookingEvent> events,
                                List<WaitlistEntry> skipped, StudentId holding) {
        Slot slot = row.slot;
        if (slot.status() != SlotStatus.OPEN || row.free.isEmpty()
                || !now.isBefore(promotionCutoff(slot, terms.rules()))) {
            return;
        }
        for (Waiter w : waiting(row)) {
            WaitlistEntry.SkipReason reason = null;
            LessonPackage payer = null;
            if (activeBooking(t, slot.slotId(), w.studentId) != null || w.studentId.equals(holding)) {
                reason = WaitlistEntry.SkipReason.ALREADY_BOOKED;
            } else if (!studentClashes(t, w.studentId, slot.studentTime(), now).isEmpty()) {
                reason = WaitlistEntry.SkipReason.CONFLICT;
            } else if (limitReached(t, w.studentId, row, terms.rules(), now).isPresent()) {
                reason = WaitlistEntry.SkipReason.LIMIT;
            } else if (slot.cost() > 0 && (payer = payer(t, w.studentId, slot, now)) == null) {
                reason = WaitlistEntry.SkipReason.NO_CREDITS;
            }
            if (reason != null) {
                t.mark(w, WaitlistEntry.Status.SKIPPED, reason);
                skipped.add(entry(t, w));
                continue;
            }
            Booking booking = new Booking(t.id, w.bookingId, w.requestId, slot.slotId(), w.studentId,
                    row.free.first(), BookingStatus.HELD, now.plus(terms.holdTtl()), now, now);
            seat(t, row, booking);
            if (payer != null && terms.rules().credits() == CreditPolicy.AT_BOOKING) {
                booking = charge(t, booking, payer, slot.cost(), CreditEntry.Reason.DRAW, now);
            }
            t.mark(w, WaitlistEntry.Status.PROMOTED, null);
            events.add(new BookingEvent(Kind.PROMOTED, booking));
            return;
        }
    }

    // ---------------------------------------------------------------------------------------------
    // confirm, cancel, expire, check in

    @Override
    public StoreOutcome<ConfirmResult> confirm(TenantId tenantId, BookingId bookingId, StudentId studentId,
                                               @Nullable Instant at, Terms terms) {
        Checks.notNull("bookingId", bookingId);
        Checks.notNull("studentId", studentId);
        Checks.notNull("terms", terms);
        Instant now = at(at);
        return locked(tenantId, t -> {
            Booking b = t.bookings.get(bookingId);
            if (b == null || !b.studentId().equals(studentId)) {
                return StoreOutcome.<ConfirmResult>of(new NotFound());
            }
            switch (b.status()) {
                case CONFIRMED:
                    return StoreOutcome.of(new Confirmed(b));
                case CANCELLED:
                    return StoreOutcome.of(new AlreadyCancelled());
                case EXPIRED:
                    return StoreOutcome.of(new HoldExpired(b));
                default:
                    break;
            }
            if (b.isLive(now)) {
                Booking confirmed = b.with(BookingStatus.CONFIRMED, now);
                t.put(confirmed);
                return StoreOutcome.of(new Confirmed(confirmed), List.of(new BookingEvent(Kind.CONFIRMED, confirmed)));
            }
            List<BookingEvent> events = new ArrayList<>();
            List<WaitlistEntry> skipped = new ArrayList<>();
            Booking expired = retire(t, b, now, terms, events, skipped);
            return new StoreOutcome<>(new HoldExpired(expired), events, null, skipped);
        });
    }

    @Override
    public StoreOutcome<CancelResult> cancel(TenantId tenantId, BookingId bookingId, @Nullable StudentId studentId,
                                             @Nullable Instant at, Terms terms) {
        Checks.notNull("bookingId", bookingId);
        Checks.notNull("terms", terms);
        Instant now = at(at);
        return locked(tenantId, t -> {
            Booking b = t.bookings.get(bookingId);
            if (b == null || (studentId != null && !b.studentId().equals(studentId))) {
                return StoreOutcome.<CancelResult>of(new NotFound());
            }
            if (!b.status().isActive()) {
                return new StoreOutcome<>(new AlreadyCancelled(), List.of(), b);
            }
            List<BookingEvent> events = new ArrayList<>();
            List<WaitlistEntry> skipped = new ArrayList<>();
            if (!b.isLive(now)) {
                Booking expired = retire(t, b, now, terms, events, skipped);
                return new StoreOutcome<>(new AlreadyCancelled(), events, expired, skipped);
            }
            Slot slot = t.slots.get(b.slotId()).slot;
            if (studentId != null && b.attendance() != Attendance.NONE) {
                // the student came (or was marked absent): only staff may still cancel
                return StoreOutcome.<CancelResult>of(new TooLateToCancel(bookingId, slot.time().start()));
            }
            CancellationPolicy policy = slot.cancellation() != null ? slot.cancellation()
                    : terms.rules().cancellation();
            Instant cutoff = policy.cutoffFor(slot.time().start());
            // a hold never confirmed is no booking yet: never late, never charged
            boolean late = b.status() == BookingStatus.CONFIRMED && cutoff != null && !now.isBefore(cutoff);
            boolean lateByStudent = late && studentId != null;
            if (lateByStudent && policy.afterCutoff() == CancellationPolicy.LateCancel.REFUSE) {
                return StoreOutcome.<CancelResult>of(new TooLateToCancel(bookingId, cutoff));
            }
            // a late cancel by the student keeps (or forfeits) the credits; any other cancel refunds them
            Booking cancelled = lateByStudent
                    ? end(t, forfeit(t, b, slot, terms.rules(), now), BookingStatus.CANCELLED, now, false)
                    : end(t, b, BookingStatus.CANCELLED, now, true);
            events.add(new BookingEvent(late ? Kind.LATE_CANCELLED : Kind.CANCELLED, cancelled));
            promote(t, t.slots.get(b.slotId()), now, terms, events, skipped);
            return new StoreOutcome<>(new Cancelled(cancelled, late), events, null, skipped);
        });
    }

    @Override
    public StoreOutcome<CancelSlotResult> cancelSlot(TenantId tenantId, SlotId slotId, @Nullable Instant at) {
        Checks.notNull("slotId", slotId);
        Instant now = at(at);
        return locked(tenantId, t -> {
            SlotRow row = t.slots.get(slotId);
            if (row == null) {
                return StoreOutcome.<CancelSlotResult>of(new NotFound());
            }
            if (row.slot.status() == SlotStatus.CANCELLED) {
                return StoreOutcome.of(new AlreadyCancelled());
            }
            List<BookingEvent> events = new ArrayList<>();
            int released = callOff(t, row, now, events);
            return StoreOutcome.of(new SlotCancelled(row.slot, released), events);
        });
    }

    @Override
    public StoreOutcome<SeriesCancelled> cancelSeries(TenantId tenantId, SeriesId seriesId, Instant from,
                                                      @Nullable Instant at) {
        Checks.notNull("seriesId", seriesId);
        Checks.notNull("from", from);
        Instant now = at(at);
        return locked(tenantId, t -> {
            List<SlotRow> open = t.slots.values().stream()
                    .filter(r -> seriesId.equals(r.slot.seriesId()) && r.slot.status() == SlotStatus.OPEN
                            && !r.slot.time().start().isBefore(from))
                    .sorted(Comparator.comparing((SlotRow r) -> r.slot.time().start())
                            .thenComparing(r -> r.slot.slotId()))
                    .toList();
            List<BookingEvent> events = new ArrayList<>();
            List<Slot> cancelled = new ArrayList<>();
            int released = 0;
            for (SlotRow row : open) {
                released += callOff(t, row, now, events);
                cancelled.add(row.slot);
            }
            return StoreOutcome.of(new SeriesCancelled(seriesId, cancelled, released), events);
        });
    }

    /**
     * Calls an open slot off: every booking cancelled (credits refunded, a CANCELLED event each), every
     * seat and occupation released, nobody promoted. Answers how many bookings it released.
     */
    private static int callOff(Tenant t, SlotRow row, Instant now, List<BookingEvent> events) {
        t.setSlot(row, row.slot.withStatus(SlotStatus.CANCELLED));
        int released = 0;
        for (BookingId id : row.seats.clone()) {
            if (id != null) {
                events.add(new BookingEvent(Kind.CANCELLED,
                        end(t, t.bookings.get(id), BookingStatus.CANCELLED, now, true)));
                released++;
            }
        }
        t.closeSeats(row);
        for (ResourceRef r : List.of(ResourceRef.of(row.slot.coachId()), ResourceRef.of(row.slot.roomId()))) {
            for (Occupied o : List.copyOf(t.of(r))) {
                if (o.slotId().equals(row.slot.slotId())) {
                    t.vacate(o);
                }
            }
        }
        return released;
    }

    @Override
    public StoreOutcome<Integer> expireDue(TenantId tenantId, @Nullable Instant at, int limit, Terms terms) {
        Checks.positive("limit", limit);
        Checks.notNull("terms", terms);
        Instant now = at(at);
        BookingRules rules = terms.rules();
        return locked(tenantId, t -> {
            List<BookingEvent> events = new ArrayList<>();
            List<WaitlistEntry> skipped = new ArrayList<>();
            int done = 0;
            while (done < limit && !t.heldByDeadline.isEmpty()
                    && !t.heldByDeadline.first().heldUntil().isAfter(now)) {
                retire(t, t.heldByDeadline.first(), now, terms, events, skipped);
                done++;
            }
            if (rules.marksNoShows()) {
                // check-in closed at end + checkInClosesAfterEnd <= now, that is end <= now - checkInClosesAfterEnd
                Instant endedBy = now.minus(rules.checkInClosesAfterEnd());
                while (done < limit && !t.unattended.isEmpty() && !t.unattended.first().end().isAfter(endedBy)) {
                    Booking b = t.bookings.get(t.unattended.first().bookingId());
                    Booking paid = forfeit(t, b, t.slots.get(b.slotId()).slot, rules, now);
                    Booking absent = paid.with(Attendance.NO_SHOW, now);
                    t.put(absent);
                    events.add(new BookingEvent(Kind.NO_SHOW, absent));
                    done++;
                }
            }
            return new StoreOutcome<>(done, events, null, skipped);
        });
    }

    @Override
    public StoreOutcome<CheckInResult> checkIn(TenantId tenantId, BookingId bookingId, @Nullable StudentId studentId,
                                               @Nullable Instant at, Terms terms) {
        Checks.notNull("bookingId", bookingId);
        Checks.notNull("terms", terms);
        Instant now = at(at);
        BookingRules rules = terms.rules();
        return locked(tenantId, t -> {
            Booking b = t.bookings.get(bookingId);
            if (b == null || (studentId != null && !b.studentId().equals(studentId))) {
                return StoreOutcome.<CheckInResult>of(new NotFound());
            }
            if (b.status() != BookingStatus.CONFIRMED) {
                return StoreOutcome.<CheckInResult>of(new NotConfirmed(b));
            }
            Slot slot = t.slots.get(b.slotId()).slot;
            Instant opens = slot.time().start().minus(rules.checkInOpensBefore());
            Instant closes = slot.time().end().plus(rules.checkInClosesAfterEnd());
            if (b.attendance() == Attendance.CHECKED_IN) {
                return StoreOutcome.<CheckInResult>of(new CheckedIn(b, true));
            }
            if (b.attendance() == Attendance.NO_SHOW) {
                return StoreOutcome.<CheckInResult>of(new CheckInClosed(bookingId, closes));
            }
            if (now.isBefore(opens)) {
                return StoreOutcome.<CheckInResult>of(new CheckInNotOpen(bookingId, opens));
            }
            if (!now.isBefore(closes)) {
                return StoreOutcome.<CheckInResult>of(new CheckInClosed(bookingId, closes));
            }
            Booking paid = b;
            if (rules.credits() == CreditPolicy.AT_CHECK_IN && slot.cost() > 0 && b.credits() == 0) {
                LessonPackage payer = payer(t, b.studentId(), slot, now);
                if (payer == null) {
                    return StoreOutcome.<CheckInResult>of(new InsufficientCredits(slot.slotId(), slot.cost()));
                }
                paid = charge(t, b, payer, slot.cost(), CreditEntry.Reason.DRAW, now);
            }
            Booking checkedIn = paid.with(Attendance.CHECKED_IN, now);
            t.put(checkedIn);
            return StoreOutcome.<CheckInResult>of(new CheckedIn(checkedIn, false),
                    List.of(new BookingEvent(Kind.CHECKED_IN, checkedIn)));
        });
    }

    @Override
    public StoreOutcome<LeaveResult> leaveWaitlist(TenantId tenantId, RequestId requestId, StudentId studentId,
                                                   @Nullable Instant now) {
        Checks.notNull("requestId", requestId);
        Checks.notNull("studentId", studentId);
        return locked(tenantId, t -> {
            Waiter w = t.waiters.get(requestId);
            if (w == null || !w.studentId.equals(studentId)) {
                return StoreOutcome.<LeaveResult>of(new NotFound());
            }
            if (w.status != WaitlistEntry.Status.WAITING) {
                return StoreOutcome.<LeaveResult>of(new NotWaiting(entry(t, w)));
            }
            t.mark(w, WaitlistEntry.Status.LEFT, null);
            return StoreOutcome.<LeaveResult>of(new LeftWaitlist(entry(t, w)));
        });
    }

    // ---------------------------------------------------------------------------------------------
    // packages

    @Override
    public LessonPackage grantPackage(TenantId tenantId, PackageGrant grant, @Nullable Instant at) {
        Checks.notNull("grant", grant);
        Instant now = at(at);
        return locked(tenantId, t -> {
            LessonPackage stored = t.packages.get(grant.packageId());
            if (stored != null) {
                return stored;
            }
            t.addPackage(new LessonPackage(t.id, grant.packageId(), grant.studentId(), grant.credits(), 0,
                    grant.validFrom(), grant.validUntil(), grant.classTypes(), now));
            t.move(grant.packageId(), CreditEntry.Reason.GRANT, grant.credits(), null, now);
            return t.packages.get(grant.packageId());
        });
    }

    @Override
    public List<LessonPackage> packages(TenantId tenantId, StudentId studentId, int offset, int limit) {
        Checks.notNull("studentId", studentId);
        page(offset, limit);
        return locked(tenantId, t -> t.packagesOf.getOrDefault(studentId, List.of()).stream()
                .map(t.packages::get).sorted(PACKAGE_ORDER).skip(offset).limit(limit).toList());
    }

    @Override
    public List<CreditEntry> creditJournal(TenantId tenantId, PackageId packageId, int offset, int limit) {
        Checks.notNull("packageId", packageId);
        page(offset, limit);
        return locked(tenantId, t -> t.journals.getOrDefault(packageId, List.of()).stream()
                .skip(offset).limit(limit).toList());
    }

    private static void page(int offset, int limit) {
        Checks.between("offset", offset, 0, Integer.MAX_VALUE);
        Checks.positive("limit", limit);
    }

    // ---------------------------------------------------------------------------------------------
    // reads

    @Override
    public Optional<WaitlistEntry> findWaiter(TenantId tenantId, RequestId requestId) {
        Checks.notNull("requestId", requestId);
        return locked(tenantId, t -> Optional.ofNullable(t.waiters.get(requestId)).map(w -> entry(t, w)));
    }

    @Override
    public List<WaitlistEntry> waitlist(TenantId tenantId, SlotId slotId, int offset, int limit) {
        Checks.notNull("slotId", slotId);
        return locked(tenantId, t -> {
            SlotRow row = t.slots.get(slotId);
            return row == null ? List.<WaitlistEntry>of()
                    : waiting(row).stream().skip(offset).limit(limit).map(w -> entry(t, w)).toList();
        });
    }

    @Override
    public List<Booking> roster(TenantId tenantId, SlotId slotId, @Nullable Instant at, int offset, int limit) {
        Checks.notNull("slotId", slotId);
        Instant now = at(at);
        return locked(tenantId, t -> {
            SlotRow row = t.slots.get(slotId);
            if (row == null) {
                return List.<Booking>of();
            }
            List<Booking> live = new ArrayList<>();
            for (BookingId id : row.seats) {
                if (id != null && t.bookings.get(id).isLive(now)) {
                    live.add(t.bookings.get(id));
                }
            }
            return live.stream().skip(offset).limit(limit).toList();
        });
    }

    @Override
    public List<BookedSession> studentBookings(TenantId tenantId, StudentId studentId, @Nullable Instant at,
                                               boolean upcoming, int offset, int limit) {
        Checks.notNull("studentId", studentId);
        Instant now = at(at);
        return locked(tenantId, t -> {
            List<BookedSession> list = new ArrayList<>();
            for (Booking b : t.bookings.values()) {
                if (!b.studentId().equals(studentId)) {
                    continue;
                }
                Slot slot = t.slots.get(b.slotId()).slot;
                boolean over = !slot.time().end().isAfter(now);
                if (upcoming ? !over && b.isLive(now) : over && b.status() == BookingStatus.CONFIRMED) {
                    list.add(new BookedSession(b, slot));
                }
            }
            Comparator<BookedSession> order = Comparator.comparing((BookedSession s) -> s.slot().time().start())
                    .thenComparing(s -> s.booking().bookingId());
            list.sort(upcoming ? order : order.reversed());
            return list.stream().skip(offset).limit(limit).toList();
        });
    }

    @Override
    public List<Slot> timetable(TenantId tenantId, ResourceRef resource, TimeRange range, int offset, int limit) {
        Checks.notNull("resource", resource);
        Checks.notNull("range", range);
        if (resource.kind() == ResourceKind.STUDENT) {
            throw new InvalidInputException("resource must be a COACH or a ROOM, got " + resource.kind());
        }
        return locked(tenantId, t -> t.slots.values().stream().map(r -> r.slot)
                .filter(s -> s.status() == SlotStatus.OPEN && s.time().overlaps(range))
                .filter(s -> (resource.kind() == ResourceKind.COACH ? s.coachId().value() : s.roomId().value())
                        .equals(resource.id()))
                .sorted(Comparator.comparing((Slot s) -> s.time().start()).thenComparing(Slot::slotId))
                .skip(offset).limit(limit).toList());
    }

    @Override
    public Optional<Availability> availability(TenantId tenantId, SlotId slotId, @Nullable Instant at) {
        Checks.notNull("slotId", slotId);
        Instant now = at(at);
        return locked(tenantId, t -> {
            SlotRow row = t.slots.get(slotId);
            if (row == null) {
                return Optional.<Availability>empty();
            }
            if (row.slot.status() == SlotStatus.CANCELLED) {
                return Optional.of(new Availability(slotId, SlotStatus.CANCELLED, row.slot.capacity(), 0, 0, 0));
            }
            int held = 0;
            int confirmed = 0;
            for (BookingId id : row.seats) {
                if (id != null) {
                    Booking b = t.bookings.get(id);
                    if (b.status() == BookingStatus.CONFIRMED) {
                        confirmed++;
                    } else if (b.isLive(now)) {
                        held++;
                    }
                }
            }
            return Optional.of(new Availability(slotId, row.slot.status(), row.slot.capacity(), held, confirmed,
                    Math.max(0, row.slot.capacity() - held - confirmed)));
        });
    }

    @Override
    public Optional<LiveSlot> liveSlot(TenantId tenantId, SlotId slotId, @Nullable Instant at) {
        Checks.notNull("slotId", slotId);
        Instant now = at(at);
        return locked(tenantId, t -> {
            SlotRow row = t.slots.get(slotId);
            if (row == null) {
                return Optional.<LiveSlot>empty();
            }
            List<Booking> live = new ArrayList<>();
            if (row.slot.status() == SlotStatus.OPEN) {
                for (BookingId id : row.seats) {
                    if (id != null && t.bookings.get(id).isLive(now)) {
                        live.add(t.bookings.get(id));
                    }
                }
            }
            return Optional.of(new LiveSlot(row.slot, live));
        });
    }

    @Override
    public Optional<Booking> findBooking(TenantId tenantId, BookingId bookingId) {
        Checks.notNull("bookingId", bookingId);
        return locked(tenantId, t -> Optional.ofNullable(t.bookings.get(bookingId)));
    }

    @Override
    public Optional<Booking> findByRequest(TenantId tenantId, RequestId requestId) {
        Checks.notNull("requestId", requestId);
        return locked(tenantId, t -> Optional.ofNullable(t.requests.get(requestId)).map(t.bookings::get));
    }

    @Override
    public List<Slot> slots(TenantId tenantId, @Nullable SlotId after, int limit) {
        Checks.positive("limit", limit);
        return locked(tenantId, t -> (after == null ? t.slots : t.slots.tailMap(after, false)).values().stream()
                .limit(limit).map(r -> r.slot).toList());
    }

    @Override
    public List<TenantId> tenants(@Nullable TenantId after, int limit) {
        Checks.positive("limit", limit);
        List<TenantId> candidates = new ArrayList<>();
        for (TenantId id : tenants.keySet()) {
            if (after == null || id.compareTo(after) > 0) {
                candidates.add(id);
            }
        }
        candidates.sort(null);
        List<TenantId> page = new ArrayList<>();
        for (TenantId id : candidates) {
            if (page.size() == limit) {
                break;
            }
            if (locked(id, t -> !t.slots.isEmpty())) {
                page.add(id);
            }
        }
        return page;
    }

    @Override
    public List<Slot> seriesSlots(TenantId tenantId, SeriesId seriesId, @Nullable Instant after, int limit) {
        Checks.notNull("seriesId", seriesId);
        Checks.positive("limit", limit);
        Instant from = at(after);
        return locked(tenantId, t -> t.slots.values().stream().map(r -> r.slot)
                .filter(s -> seriesId.equals(s.seriesId()) && s.status() == SlotStatus.OPEN
                        && s.time().start().isAfter(from))
                .sorted(Comparator.comparing((Slot s) -> s.time().start()).thenComparing(Slot::slotId))
                .limit(limit).toList());
    }
}
