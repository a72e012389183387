package org.slotbook.core.memory;

import java.time.Clock;
import java.time.DayOfWeek;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.time.temporal.TemporalAdjusters;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;
import org.slotbook.core.AlreadyBooked;
import org.slotbook.core.AlreadyCancelled;
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
import org.slotbook.core.ConfirmResult;
import org.slotbook.core.Confirmed;
import org.slotbook.core.Conflict;
import org.slotbook.core.Full;
import org.slotbook.core.Held;
import org.slotbook.core.HoldExpired;
import org.slotbook.core.HoldRequest;
import org.slotbook.core.HoldResult;
import org.slotbook.core.LeaveResult;
import org.slotbook.core.LeftWaitlist;
import org.slotbook.core.LimitReached;
import org.slotbook.core.NotFound;
import org.slotbook.core.NotOpenYet;
import org.slotbook.core.NotWaiting;
import org.slotbook.core.RequestId;
import org.slotbook.core.ResourceConflict;
import org.slotbook.core.ResourceKind;
import org.slotbook.core.ResourceRef;
import org.slotbook.core.ScheduleResult;
import org.slotbook.core.Scheduled;
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
import org.slotbook.core.spi.StoreOutcome;
import org.slotbook.core.spi.Terms;

/**
 * A {@link BookingStore} kept in memory: every rule of the JDBC store, decided the same way, each
 * decision under its tenant's lock (so the decisions of one tenant run one after the other, and those
 * of different tenants in parallel). A decision computes its answer before it changes anything, so a
 * failure leaves nothing half-written. Nothing is persisted.
 *
 * <pre>{@code
 * InMemoryStore store = InMemoryStore.create();
 * BookingEngine engine = BookingEngine.builder().store(store).build();
 * }</pre>
 */
public final class InMemoryStore implements BookingStore {
    private final ConcurrentHashMap<TenantId, Tenant> tenants = new ConcurrentHashMap<>();
    private final Clock clock;

    private InMemoryStore(Clock clock) {
        this.clock = clock;
    }

    /** A new, empty store on the system UTC clock. */
    public static InMemoryStore create() {
        return new InMemoryStore(Clock.systemUTC());
    }

    /** A new, empty store whose own clock (a {@code now} of null) is {@code clock}. */
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

    private static final class Tenant {
        final TenantId id;
        final ReentrantLock lock = new ReentrantLock();
        final TreeMap<SlotId, SlotRow> slots = new TreeMap<>();
        final HashMap<BookingId, Booking> bookings = new HashMap<>();
        final HashMap<RequestId, BookingId> requests = new HashMap<>();
        final TreeSet<Booking> heldByDeadline = new TreeSet<>(
                Comparator.comparing(Booking::heldUntil).thenComparing(Booking::bookingId));
        final HashMap<ResourceRef, List<Occupied>> occupied = new HashMap<>();
        final HashMap<RequestId, Waiter> waiters = new HashMap<>();
        long waiterSeq;

        Tenant(TenantId id) {
            this.id = id;
        }

        void put(Booking old, Booking current) {
            if (old != null && old.status() == BookingStatus.HELD) {
                heldByDeadline.remove(old);
            }
            bookings.put(current.bookingId(), current);
            requests.put(current.requestId(), current.bookingId());
            if (current.status() == BookingStatus.HELD) {
                heldByDeadline.add(current);
            }
        }

        void occupy(Occupied o) {
            occupied.computeIfAbsent(o.resource(), r -> new ArrayList<>()).add(o);
        }

        void releaseBooking(Booking b) {
            List<Occupied> list = occupied.get(ResourceRef.of(b.studentId()));
            if (list != null) {
                list.removeIf(o -> b.bookingId().equals(o.bookingId()));
            }
        }

        List<Occupied> of(ResourceRef resource) {
            return occupied.getOrDefault(resource, List.of());
        }
    }

    private <T> T locked(TenantId tenantId, Function<Tenant, T> work) {
        Checks.notNull("tenantId", tenantId);
        Tenant t = tenants.computeIfAbsent(tenantId, Tenant::new);
        t.lock.lock();
        try {
            return work.apply(t);
        } finally {
            t.lock.unlock();
        }
    }

    private Instant at(Instant now) {
        return now != null ? Checks.micros("now", now) : Checks.micros("clock.instant()", clock.instant());
    }

    // ---------------------------------------------------------------------------------------------
    // decisions

    @Override
    public ScheduleResult schedule(TenantId tenantId, Slot slot, Duration longestSession, ZoneId weekZone) {
        Checks.notNull("slot", slot);
        Checks.notNull("weekZone", weekZone);
        LocalDate monday = slot.time().start().atZone(weekZone).toLocalDate()
                .with(TemporalAdjusters.previousOrSame(DayOfWeek.MONDAY));
        Instant weekStart = monday.atStartOfDay(weekZone).toInstant();
        Instant weekEnd = monday.plusWeeks(1).atStartOfDay(weekZone).toInstant();
        return locked(tenantId, t -> {
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
            Slot stored = slot.withStatus(SlotStatus.OPEN);
            t.slots.put(slot.slotId(), new SlotRow(stored, weekStart, weekEnd));
            t.occupy(new Occupied(ResourceRef.of(slot.coachId()), padded, slot.slotId(), null));
            t.occupy(new Occupied(ResourceRef.of(slot.roomId()), padded, slot.slotId(), null));
            return new Scheduled(stored);
        });
    }

    @Override
    public StoreOutcome<HoldResult> hold(TenantId tenantId, HoldCommand cmd) {
        Checks.notNull("command", cmd);
        Instant now = at(cmd.now());
        return locked(tenantId, t -> hold(t, cmd, now));
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
        // the student's dead holds: the one of this slot, then those overlapping it
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
                Waiter w = new Waiter(++t.waiterSeq, slot.slotId(), request.requestId(), request.studentId(),
                        cmd.bookingId(), now);
                t.waiters.put(w.requestId, w);
                row.waiters.add(w);
                return new StoreOutcome<>(new Waitlisted(entry(t, w), false), events, null, skipped);
            }
            return new StoreOutcome<>(new Full(slot.slotId()), events, null, skipped);
        }
        Booking booking = new Booking(t.id, cmd.bookingId(), request.requestId(), slot.slotId(),
                request.studentId(), seat, cmd.status(), now.plus(cmd.holdTtl()), now, now);
        seat(t, row, booking);
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

    private static Booking activeBooking(Tenant t, SlotId slotId, StudentId studentId) {
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

    /** Gives {@code booking} its seat and occupation (the seat is free). */
    private static void seat(Tenant t, SlotRow row, Booking booking) {
        row.free.remove(booking.seat());
        row.seats[booking.seat() - 1] = booking.bookingId();
        t.put(null, booking);
        t.occupy(new Occupied(ResourceRef.of(booking.studentId()), row.slot.studentTime(), booking.slotId(),
                booking.bookingId()));
    }

    /** Ends a live or dead booking with {@code status}: frees its seat and its occupation. */
    private static Booking end(Tenant t, Booking b, BookingStatus status, Instant now) {
        SlotRow row = t.slots.get(b.slotId());
        row.seats[b.seat() - 1] = null;
        row.free.add(b.seat());
        Booking ended = b.with(status, now);
        t.put(b, ended);
        t.releaseBooking(b);
        return ended;
    }

    /** Expires a dead hold (EXPIRED event) without promoting anyone: the caller takes the seat. */
    private static void expire(Tenant t, Booking dead, Instant now, List<BookingEvent> events) {
        events.add(new BookingEvent(Kind.EXPIRED, end(t, dead, BookingStatus.EXPIRED, now)));
    }

    /** Expires a dead hold and offers its seat to the slot's waiters. */
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
        Booking expired = end(t, dead, BookingStatus.EXPIRED, now);
        events.add(new BookingEvent(Kind.EXPIRED, expired));
        promote(t, t.slots.get(dead.slotId()), now, terms, events, skipped, holding);
        return expired;
    }

    /**
     * Gives a free seat of the slot to its first waiter who can take it: no booking of the slot, no
     * live overlapping booking, within limits. Those passed over are SKIPPED, with the reason.
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
            if (activeBooking(t, slot.slotId(), w.studentId) != null || w.studentId.equals(holding)) {
                reason = WaitlistEntry.SkipReason.ALREADY_BOOKED;
            } else if (!studentClashes(t, w.studentId, slot.studentTime(), now).isEmpty()) {
                reason = WaitlistEntry.SkipReason.CONFLICT;
            } else if (limitReached(t, w.studentId, row, terms.rules(), now).isPresent()) {
                reason = WaitlistEntry.SkipReason.LIMIT;
            }
            if (reason != null) {
                w.status = WaitlistEntry.Status.SKIPPED;
                w.reason = reason;
                skipped.add(entry(t, w));
                continue;
            }
            Booking booking = new Booking(t.id, w.bookingId, w.requestId, slot.slotId(), w.studentId,
                    row.free.first(), BookingStatus.HELD, now.plus(terms.holdTtl()), now, now);
            seat(t, row, booking);
            w.status = WaitlistEntry.Status.PROMOTED;
            events.add(new BookingEvent(Kind.PROMOTED, booking));
            return;
        }
    }

    @Override
    public StoreOutcome<ConfirmResult> confirm(TenantId tenantId, BookingId bookingId, StudentId studentId,
                                               Instant at, Terms terms) {
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
                t.put(b, confirmed);
                return StoreOutcome.of(new Confirmed(confirmed), List.of(new BookingEvent(Kind.CONFIRMED, confirmed)));
            }
            List<BookingEvent> events = new ArrayList<>();
            List<WaitlistEntry> skipped = new ArrayList<>();
            Booking expired = retire(t, b, now, terms, events, skipped);
            return new StoreOutcome<>(new HoldExpired(expired), events, null, skipped);
        });
    }

    @Override
    public StoreOutcome<CancelResult> cancel(TenantId tenantId, BookingId bookingId, StudentId studentId,
                                             Instant at, Terms terms) {
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
            CancellationPolicy policy = slot.cancellation() != null ? slot.cancellation()
                    : terms.rules().cancellation();
            Instant cutoff = policy.cutoffFor(slot.time().start());
            boolean late = cutoff != null && !now.isBefore(cutoff);
            if (late && studentId != null && policy.afterCutoff() == CancellationPolicy.LateCancel.REFUSE) {
                return StoreOutcome.<CancelResult>of(new TooLateToCancel(bookingId, cutoff));
            }
            Booking cancelled = end(t, b, BookingStatus.CANCELLED, now);
            events.add(new BookingEvent(late ? Kind.LATE_CANCELLED : Kind.CANCELLED, cancelled));
            promote(t, t.slots.get(b.slotId()), now, terms, events, skipped);
            return new StoreOutcome<>(new Cancelled(cancelled, late), events, null, skipped);
        });
    }

    @Override
    public StoreOutcome<CancelSlotResult> cancelSlot(TenantId tenantId, SlotId slotId, Instant at) {
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
            row.slot = row.slot.withStatus(SlotStatus.CANCELLED);
            List<BookingEvent> events = new ArrayList<>();
            for (int i = 0; i < row.seats.length; i++) {
                if (row.seats[i] != null) {
                    Booking b = t.bookings.get(row.seats[i]);
                    events.add(new BookingEvent(Kind.CANCELLED, end(t, b, BookingStatus.CANCELLED, now)));
                }
            }
            row.free.clear();
            for (ResourceRef r : List.of(ResourceRef.of(row.slot.coachId()), ResourceRef.of(row.slot.roomId()))) {
                t.of(r).removeIf(o -> o.slotId().equals(slotId));
            }
            return StoreOutcome.of(new SlotCancelled(row.slot, events.size()), events);
        });
    }

    @Override
    public StoreOutcome<Integer> expireDue(TenantId tenantId, Instant at, int limit, Terms terms) {
        Checks.positive("limit", limit);
        Checks.notNull("terms", terms);
        Instant now = at(at);
        return locked(tenantId, t -> {
            List<BookingEvent> events = new ArrayList<>();
            List<WaitlistEntry> skipped = new ArrayList<>();
            int expired = 0;
            while (expired < limit && !t.heldByDeadline.isEmpty()
                    && !t.heldByDeadline.first().heldUntil().isAfter(now)) {
                retire(t, t.heldByDeadline.first(), now, terms, events, skipped);
                expired++;
            }
            return new StoreOutcome<>(expired, events, null, skipped);
        });
    }

    @Override
    public StoreOutcome<LeaveResult> leaveWaitlist(TenantId tenantId, RequestId requestId, StudentId studentId,
                                                   Instant now) {
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
            w.status = WaitlistEntry.Status.LEFT;
            return StoreOutcome.<LeaveResult>of(new LeftWaitlist(entry(t, w)));
        });
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
    public List<Booking> roster(TenantId tenantId, SlotId slotId, Instant at, int offset, int limit) {
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
    public List<BookedSession> studentBookings(TenantId tenantId, StudentId studentId, Instant at, boolean upcoming,
                                               int offset, int limit) {
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
            throw new IllegalArgumentException("resource must be a COACH or a ROOM, got " + resource.kind());
        }
        return locked(tenantId, t -> t.slots.values().stream().map(r -> r.slot)
                .filter(s -> s.status() == SlotStatus.OPEN && s.time().overlaps(range))
                .filter(s -> (resource.kind() == ResourceKind.COACH ? s.coachId().value() : s.roomId().value())
                        .equals(resource.id()))
                .sorted(Comparator.comparing((Slot s) -> s.time().start()).thenComparing(Slot::slotId))
                .skip(offset).limit(limit).toList());
    }

    @Override
    public Optional<Availability> availability(TenantId tenantId, SlotId slotId, Instant at) {
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
    public Optional<LiveSlot> liveSlot(TenantId tenantId, SlotId slotId, Instant at) {
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
    public List<Slot> slots(TenantId tenantId, SlotId after, int limit) {
        Checks.positive("limit", limit);
        return locked(tenantId, t -> (after == null ? t.slots : t.slots.tailMap(after, false)).values().stream()
                .limit(limit).map(r -> r.slot).toList());
    }

    @Override
    public List<TenantId> tenants(TenantId after, int limit) {
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
}
