package org.slotbook.core.spi;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.slotbook.core.AlreadyBooked;
import org.slotbook.core.AlreadyCancelled;
import org.slotbook.core.Availability;
import org.slotbook.core.BookedSession;
import org.slotbook.core.Booking;
import org.slotbook.core.BookingRules;
import org.slotbook.core.CancellationPolicy;
import org.slotbook.core.BookingId;
import org.slotbook.core.BookingStatus;
import org.slotbook.core.BookingStoreException;
import org.slotbook.core.CancelResult;
import org.slotbook.core.CancelSlotResult;
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
import org.slotbook.core.NotFound;
import org.slotbook.core.RequestId;
import org.slotbook.core.ResourceConflict;
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
import org.slotbook.core.WaitlistEntry;
import org.slotbook.core.internal.Checks;
import org.slotbook.core.spi.BookingEvent.Kind;

/**
 * A {@link BookingStore} made of a {@link SeatLedger} and a {@link ConflictDetector} that share one
 * transaction type: each decision runs their primitives in one transaction of the ledger, in the
 * same order as the database routines of the JDBC store. It decides first come, first served: seats,
 * overlaps, holds, cancels and expiry. The booking rules beyond that (booking windows, buffers,
 * cancellation policies, limits, waitlists), lesson packages, attendance and weekly series, and the read
 * calls of rosters and timetables need a store
 * that implements them ({@code InMemoryStore}, {@code JdbcStore}); asked for them, this store throws
 * {@link UnsupportedOperationException} and changes nothing.
 */
public final class StepwiseStore implements BookingStore {
    private static final TenantId PROBE = TenantId.of("slotbook-probe");

    private final SeatLedger ledger;
    private final ConflictDetector conflicts;
    private final Clock clock;

    private StepwiseStore(SeatLedger ledger, ConflictDetector conflicts, Clock clock) {
        this.ledger = ledger;
        this.conflicts = conflicts;
        this.clock = clock;
    }

    /**
     * The store of a ledger and the detector that joins its transactions. {@code clock} answers a
     * {@code now} of null.
     *
     * @param ledger the seat ledger
     * @param conflicts the conflict detector, in the same transactions as the ledger
     * @param clock the clock that decides every deadline
     * @return the store
     * @throws IllegalArgumentException when the detector does not accept the ledger's transactions
     */
    public static StepwiseStore of(SeatLedger ledger, ConflictDetector conflicts, Clock clock) {
        Checks.notNull("ledger", ledger);
        Checks.notNull("conflicts", conflicts);
        Checks.notNull("clock", clock);
        try {
            ledger.inTransaction(PROBE, tx -> {
                tx.setRollbackOnly();
                conflicts.lock(tx, List.of()); // a detector of another store refuses the transaction here
                return null;
            });
        } catch (BookingStoreException unreachable) {
            // the store is down right now; a mismatch would still show on first use
        }
        return new StepwiseStore(ledger, conflicts, clock);
    }

    /** {@return the ledger this store decides with} */
    public SeatLedger ledger() {
        return ledger;
    }

    /** {@return the conflict detector this store decides with} */
    public ConflictDetector conflicts() {
        return conflicts;
    }

    private Instant at(Instant now) {
        return now != null ? Checks.micros("now", now) : Checks.micros("clock.instant()", clock.instant());
    }

    @Override
    public ScheduleResult schedule(TenantId tenantId, Slot slot, Duration longestSession, ZoneId weekZone) {
        Checks.notNull("slot", slot);
        if (slot.opensAt() != null || slot.closesAt() != null || !slot.buffer().isZero()
                || slot.cancellation() != null) {
            throw unsupported("booking windows, buffers and per-slot cancellation policies");
        }
        if (slot.cost() > 0 || slot.classType() != null || slot.seriesId() != null) {
            throw unsupported("lesson packages and weekly series");
        }
        return ledger.inTransaction(tenantId, tx -> {
            List<ResourceRef> resources = List.of(ResourceRef.of(slot.coachId()), ResourceRef.of(slot.roomId()));
            conflicts.lock(tx, resources);
            Optional<Slot> existing = ledger.findSlot(tx, slot.slotId());
            if (existing.isPresent()) {
                return new Scheduled(existing.get());
            }
            List<ResourceConflict> clashes = conflicts.occupy(tx,
                    new Occupation(resources, slot.time(), slot.slotId(), null), longestSession);
            if (!clashes.isEmpty()) {
                tx.setRollbackOnly();
                return new Conflict(clashes);
            }
            if (!ledger.insertSlot(tx, slot)) {
                tx.setRollbackOnly();
                return new Scheduled(ledger.findSlot(tx, slot.slotId()).orElseThrow(() -> new BookingStoreException(
                        "slot '" + slot.slotId() + "' could be neither inserted nor found")));
            }
            return new Scheduled(slot);
        });
    }

    @Override
    public StoreOutcome<HoldResult> hold(TenantId tenantId, HoldCommand cmd) {
        Checks.notNull("command", cmd);
        if (cmd.request().waitlist() || !cmd.rules().equals(BookingRules.defaults())) {
            throw unsupported("waitlists and booking rules");
        }
        Instant now = at(cmd.now());
        return ledger.inTransaction(tenantId, tx -> holdInTx(tx, cmd, now));
    }

    private StoreOutcome<HoldResult> holdInTx(StoreTransaction tx, HoldCommand cmd, Instant now) {
        HoldRequest request = cmd.request();
        Optional<Slot> found = ledger.findSlot(tx, request.slotId());
        if (found.isEmpty()) {
            return StoreOutcome.of(new NotFound());
        }
        Slot slot = found.get();
        if (slot.status() != SlotStatus.OPEN || !now.isBefore(slot.time().end())) {
            Optional<Booking> replay = ledger.findByRequest(tx, request.requestId());
            if (replay.isPresent()) {
                return StoreOutcome.of(new Held(replay.get(), true));
            }
            return StoreOutcome.of(new SlotNotOpen(slot.slotId(), slot.status()));
        }
        if (!cmd.gateHeld() && !ledger.hasFreeSeat(tx, slot.slotId(), now)) {
            tx.setRollbackOnly();
            return StoreOutcome.of(answerFull(tx, request, slot, now));
        }
        // Everything about this student is decided under his lock: a concurrent attempt of the same
        // request commits first, and is seen here.
        ResourceRef student = ResourceRef.of(request.studentId());
        conflicts.lock(tx, List.of(student));
        Optional<Booking> replay = ledger.findByRequest(tx, request.requestId());
        if (replay.isPresent()) {
            return StoreOutcome.of(new Held(replay.get(), true));
        }
        List<BookingEvent> events = new ArrayList<>(2);
        Optional<Booking> active = ledger.findActive(tx, slot.slotId(), request.studentId());
        if (active.isPresent()) {
            Booking existing = active.get();
            if (existing.isLive(now)) {
                return StoreOutcome.of(new AlreadyBooked(existing));
            }
            retire(tx, existing, now, events);
        }
        List<ResourceConflict> clashes = occupyStudent(tx, student, slot, cmd, now, events);
        if (!clashes.isEmpty()) {
            tx.setRollbackOnly();
            return StoreOutcome.of(new Conflict(clashes));
        }
        Optional<SeatClaim> claim = ledger.claimSeat(tx, new NewBooking(cmd.bookingId(), request.requestId(),
                slot.slotId(), request.studentId(), cmd.status(), now.plus(cmd.holdTtl())), now);
        if (claim.isEmpty()) {
            tx.setRollbackOnly();
            return StoreOutcome.of(new Full(slot.slotId()));
        }
        Optional<BookingId> displaced = claim.get().displaced();
        if (displaced.isPresent()) {
            conflicts.releaseBooking(tx, displaced.get());
            ledger.findBooking(tx, displaced.get()).ifPresent(b -> events.add(new BookingEvent(Kind.EXPIRED, b)));
        }
        Booking booking = claim.get().booking();
        events.add(new BookingEvent(cmd.status() == BookingStatus.CONFIRMED ? Kind.CONFIRMED : Kind.HELD, booking));
        return StoreOutcome.of(new Held(booking, false), events);
    }

    /**
     * Occupies the student over the slot's time. A clash with one of the student's own holds whose
     * deadline passed does not count: that hold is retired here and the check runs again.
     */
    private List<ResourceConflict> occupyStudent(StoreTransaction tx, ResourceRef student, Slot slot,
                                                 HoldCommand cmd, Instant now, List<BookingEvent> events) {
        Occupation occupation = new Occupation(List.of(student), slot.time(), slot.slotId(), cmd.bookingId());
        for (int round = 0; ; round++) {
            List<ResourceConflict> clashes = conflicts.occupy(tx, occupation, cmd.longestSession());
            if (clashes.isEmpty() || round > 0) {
                return clashes;
            }
            boolean retired = false;
            for (ResourceConflict clash : clashes) {
                if (clash.bookingId().isEmpty()) {
                    return clashes;
                }
                Optional<Booking> other = ledger.findBooking(tx, clash.bookingId().get());
                if (other.isEmpty() || other.get().status() != BookingStatus.HELD || other.get().isLive(now)) {
                    return clashes;
                }
            }
            for (ResourceConflict clash : clashes) {
                Booking dead = ledger.findBooking(tx, clash.bookingId().get()).orElseThrow();
                retired |= retire(tx, dead, now, events);
            }
            if (!retired) {
                return clashes;
            }
        }
    }

    /** Expires a HELD booking whose deadline passed, frees its seat and occupation. */
    private boolean retire(StoreTransaction tx, Booking dead, Instant now, List<BookingEvent> events) {
        if (ledger.expire(tx, dead.bookingId(), now)) {
            conflicts.releaseBooking(tx, dead.bookingId());
            events.add(new BookingEvent(Kind.EXPIRED, dead.with(BookingStatus.EXPIRED, now)));
            return true;
        }
        return false;
    }

    private HoldResult answerFull(StoreTransaction tx, HoldRequest request, Slot slot, Instant now) {
        Optional<Booking> replay = ledger.findByRequest(tx, request.requestId());
        if (replay.isPresent()) {
            return new Held(replay.get(), true);
        }
        Optional<Booking> mine = ledger.findActive(tx, slot.slotId(), request.studentId());
        if (mine.isPresent() && mine.get().isLive(now)) {
            return new AlreadyBooked(mine.get());
        }
        return new Full(slot.slotId());
    }

    @Override
    public StoreOutcome<ConfirmResult> confirm(TenantId tenantId, BookingId bookingId, StudentId studentId,
                                               @Nullable Instant at, Terms terms) {
        Checks.notNull("bookingId", bookingId);
        Checks.notNull("studentId", studentId);
        Instant now = at(at);
        return ledger.inTransaction(tenantId, tx -> {
            for (int attempt = 0; attempt < 2; attempt++) {
                Optional<Booking> found = ledger.findBooking(tx, bookingId);
                if (found.isEmpty() || !found.get().studentId().equals(studentId)) {
                    return StoreOutcome.<ConfirmResult>of(new NotFound());
                }
                Booking b = found.get();
                switch (b.status()) {
                    case CONFIRMED:
                        return StoreOutcome.of(new Confirmed(b));
                    case CANCELLED:
                        return StoreOutcome.of(new AlreadyCancelled());
                    case EXPIRED:
                        return StoreOutcome.of(new HoldExpired(b));
                    case HELD:
                    default:
                        if (now.isBefore(b.heldUntil())) {
                            if (ledger.confirm(tx, bookingId, now)) {
                                Booking confirmed = b.with(BookingStatus.CONFIRMED, now);
                                return StoreOutcome.of(new Confirmed(confirmed),
                                        List.of(new BookingEvent(Kind.CONFIRMED, confirmed)));
                            }
                        } else if (ledger.expire(tx, bookingId, now)) {
                            conflicts.releaseBooking(tx, bookingId);
                            Booking expired = b.with(BookingStatus.EXPIRED, now);
                            return StoreOutcome.of(new HoldExpired(expired),
                                    List.of(new BookingEvent(Kind.EXPIRED, expired)));
                        }
                        // changed under us (a concurrent cancel or expiry): read it again
                }
            }
            throw new BookingStoreException("booking '" + bookingId + "' changed state twice during confirm");
        });
    }

    @Override
    public StoreOutcome<CancelResult> cancel(TenantId tenantId, BookingId bookingId, @Nullable StudentId studentId,
                                             @Nullable Instant at, Terms terms) {
        Checks.notNull("bookingId", bookingId);
        if (studentId == null) {
            throw unsupported("staff cancels");
        }
        if (!terms.rules().cancellation().equals(CancellationPolicy.free())) {
            throw unsupported("cancellation policies");
        }
        Instant now = at(at);
        return ledger.inTransaction(tenantId, tx -> {
            Optional<Booking> found = ledger.findBooking(tx, bookingId);
            if (found.isEmpty() || !found.get().studentId().equals(studentId)) {
                return StoreOutcome.<CancelResult>of(new NotFound());
            }
            Booking b = found.get();
            if (!b.status().isActive()) {
                return new StoreOutcome<>(new AlreadyCancelled(), List.of(), b);
            }
            if (b.status() == BookingStatus.HELD && !now.isBefore(b.heldUntil())) {
                List<BookingEvent> events = new ArrayList<>(1);
                retire(tx, b, now, events);
                return new StoreOutcome<>(new AlreadyCancelled(), events, b.with(BookingStatus.EXPIRED, now));
            }
            if (!ledger.cancel(tx, bookingId, now)) {
                return new StoreOutcome<>(new AlreadyCancelled(), List.of(), b);
            }
            conflicts.releaseBooking(tx, bookingId);
            Booking cancelled = b.with(BookingStatus.CANCELLED, now);
            return StoreOutcome.of(new Cancelled(cancelled), List.of(new BookingEvent(Kind.CANCELLED, cancelled)));
        });
    }

    @Override
    public StoreOutcome<CancelSlotResult> cancelSlot(TenantId tenantId, SlotId slotId, @Nullable Instant at) {
        Instant now = at(at);
        return ledger.inTransaction(tenantId, tx -> {
            Optional<Slot> found = ledger.findSlot(tx, slotId);
            if (found.isEmpty()) {
                return StoreOutcome.<CancelSlotResult>of(new NotFound());
            }
            if (found.get().status() == SlotStatus.CANCELLED) {
                return StoreOutcome.of(new AlreadyCancelled());
            }
            List<BookingId> released = ledger.cancelSlot(tx, slotId, now);
            conflicts.releaseSlot(tx, slotId);
            List<BookingEvent> events = new ArrayList<>(released.size());
            for (BookingId id : released) {
                ledger.findBooking(tx, id).ifPresent(b -> events.add(new BookingEvent(Kind.CANCELLED, b)));
            }
            return StoreOutcome.of(new SlotCancelled(found.get().withStatus(SlotStatus.CANCELLED), released.size()),
                    events);
        });
    }

    @Override
    public StoreOutcome<Integer> expireDue(TenantId tenantId, @Nullable Instant at, int limit, Terms terms) {
        Instant now = at(at);
        List<Booking> expired = ledger.inTransaction(tenantId, tx -> {
            List<Booking> due = ledger.expireDue(tx, now, limit);
            for (Booking b : due) {
                conflicts.releaseBooking(tx, b.bookingId());
            }
            return due;
        });
        return StoreOutcome.of(expired.size(), expired.stream().map(b -> new BookingEvent(Kind.EXPIRED, b)).toList());
    }

    @Override
    public StoreOutcome<LeaveResult> leaveWaitlist(TenantId tenantId, RequestId requestId, StudentId studentId,
                                                   @Nullable Instant now) {
        throw unsupported("waitlists");
    }

    @Override
    public Optional<WaitlistEntry> findWaiter(TenantId tenantId, RequestId requestId) {
        return Optional.empty();
    }

    @Override
    public List<WaitlistEntry> waitlist(TenantId tenantId, SlotId slotId, int offset, int limit) {
        return List.of();
    }

    @Override
    public List<Booking> roster(TenantId tenantId, SlotId slotId, @Nullable Instant at, int offset, int limit) {
        Instant now = at(at);
        return read(tenantId, tx -> ledger.liveBookings(tx, slotId, now).stream()
                .sorted(java.util.Comparator.comparingInt(Booking::seat)).skip(offset).limit(limit).toList());
    }

    @Override
    public List<BookedSession> studentBookings(TenantId tenantId, StudentId studentId, @Nullable Instant now,
                                               boolean upcoming, int offset, int limit) {
        throw unsupported("a student's bookings");
    }

    @Override
    public List<Slot> timetable(TenantId tenantId, ResourceRef resource, TimeRange range, int offset, int limit) {
        throw unsupported("timetables");
    }

    private static UnsupportedOperationException unsupported(String what) {
        return new UnsupportedOperationException("StepwiseStore decides first come, first served only: " + what
                + " need a store that implements them (InMemoryStore, JdbcStore)");
    }

    @Override
    public Optional<Availability> availability(TenantId tenantId, SlotId slotId, @Nullable Instant at) {
        Instant now = at(at);
        return read(tenantId, tx -> ledger.findSlot(tx, slotId).map(slot -> {
            if (slot.status() == SlotStatus.CANCELLED) {
                return new Availability(slotId, slot.status(), slot.capacity(), 0, 0, 0);
            }
            SeatCount count = ledger.count(tx, slotId, now);
            return new Availability(slotId, slot.status(), slot.capacity(), count.held(), count.confirmed(),
                    Math.max(0, slot.capacity() - count.taken()));
        }));
    }

    @Override
    public Optional<LiveSlot> liveSlot(TenantId tenantId, SlotId slotId, @Nullable Instant at) {
        Instant now = at(at);
        return read(tenantId, tx -> ledger.findSlot(tx, slotId).map(slot -> new LiveSlot(slot,
                slot.status() == SlotStatus.OPEN ? ledger.liveBookings(tx, slotId, now) : List.of())));
    }

    @Override
    public Optional<Booking> findBooking(TenantId tenantId, BookingId bookingId) {
        return read(tenantId, tx -> ledger.findBooking(tx, bookingId));
    }

    @Override
    public Optional<Booking> findByRequest(TenantId tenantId, RequestId requestId) {
        return read(tenantId, tx -> ledger.findByRequest(tx, requestId));
    }

    @Override
    public List<Slot> slots(TenantId tenantId, @Nullable SlotId after, int limit) {
        return read(tenantId, tx -> ledger.slots(tx, after, limit));
    }

    @Override
    public List<TenantId> tenants(@Nullable TenantId after, int limit) {
        Checks.positive("limit", limit);
        return ledger.tenants(after, limit);
    }

    private <T> T read(TenantId tenantId, java.util.function.Function<StoreTransaction, T> work) {
        return ledger.inTransaction(tenantId, tx -> {
            tx.setRollbackOnly();
            return work.apply(tx);
        });
    }

    @Override
    public String toString() {
        return "StepwiseStore[" + ledger + ", " + conflicts + "]";
    }
}
