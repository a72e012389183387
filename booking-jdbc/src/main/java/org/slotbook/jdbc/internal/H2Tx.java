package org.slotbook.jdbc.internal;

import static org.slotbook.jdbc.internal.H2Sql.instant;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.slotbook.core.Booking;
import org.slotbook.core.BookingId;
import org.slotbook.core.BookingStatus;
import org.slotbook.core.CreditEntry;
import org.slotbook.core.HoldRequest;
import org.slotbook.core.LessonPackage;
import org.slotbook.core.PackageId;
import org.slotbook.core.RequestId;
import org.slotbook.core.ResourceKind;
import org.slotbook.core.ResourceRef;
import org.slotbook.core.SeriesId;
import org.slotbook.core.Slot;
import org.slotbook.core.SlotId;
import org.slotbook.core.StudentId;
import org.slotbook.core.TenantId;
import org.slotbook.core.TimeRange;
import org.slotbook.core.WaitlistEntry;
import org.slotbook.core.rules.Occupancy;
import org.slotbook.core.rules.RuleTx;
import org.slotbook.core.rules.StoredSlot;
import org.slotbook.core.rules.Waiter;
import org.slotbook.core.spi.BookingEvent;
import org.slotbook.jdbc.internal.H2Sql.Failure;

/**
 * The rules' transaction over H2's tables, on the nested connection H2 passes a routine (the caller's
 * session and transaction). Locks: a coach, room or student is its {@code resource_lock} row, created on
 * first use; a slot, booking or package read {@code forUpdate} is {@code SELECT ... FOR UPDATE}. A seat row
 * mirrors the booking that holds it. {@link #rollback} goes back to the savepoint taken when the routine
 * started. A failed statement throws {@link Failure}, carrying the {@link SQLException} out unchanged.
 */
final class H2Tx extends H2Statements implements RuleTx {
    /** The earliest instant H2 stores: no lower bound on an occupation's start. */
    private static final Instant EARLIEST = OffsetDateTime.of(1, 1, 1, 0, 0, 0, 0, ZoneOffset.UTC).toInstant();
    /** The longest buffer a slot may have (SlotSpec.MAX_BUFFER). */
    private static final Duration MAX_BUFFER = Duration.ofHours(24);

    private final TenantId tenantId;
    private final RowReader<Booking> bookingRow;
    private final Savepoint start;
    /** No stored occupation is longer than this (session and buffer): how far back an overlap is looked for. */
    private @Nullable Duration longest;
    /** Taken before this call created its first resource_lock row; null when it created none. */
    private @Nullable Savepoint beforeNewLock;
    /** How many writes (but of resource_lock rows) and how many locks this call made so far. */
    private int writes;
    private int locks;
    /** The hold this call decides ({@link #expect}), and its time; null for other calls. */
    private @Nullable HoldRequest expected;
    private @Nullable Instant expectedAt;
    /** What the probe of the expected hold read; good until this call locks or writes. */
    private @Nullable H2Probe probe;
    /** The last overlap search: its resource, range and the locks and writes before it; and what it found. */
    private @Nullable List<Object> lastOverlapsOf;
    private List<Occupancy> lastOverlaps = List.of();
    /** Seats given to a booking not inserted yet: the seat row is written with the booking. */
    private final Map<String, Integer> pendingSeats = new HashMap<>(2);
    /** The bookings this call inserted, by id (a seat given after the insert). */
    private final Map<String, Booking> inserted = new HashMap<>(2);
    /** What this call holds locked (until a rollback): slots and resources, by id; nothing is locked twice. */
    private final Set<String> lockedSlots = new HashSet<>(4);
    private final Set<ResourceRef> lockedResources = new HashSet<>(4);

    H2Tx(Connection connection, H2Sql sql, TenantId tenantId) throws SQLException {
        super(connection, sql, tenantId.value());
        this.tenantId = tenantId;
        this.bookingRow = rs -> H2Sql.booking(tenantId, rs, 0);
        this.start = connection.setSavepoint();
    }

    /** Forgets the locks: a rollback to a savepoint taken before them released them. */
    private void unlocked() {
        lockedSlots.clear();
        lockedResources.clear();
    }

    /** Bounds the overlap searches: no stored session is longer than {@code longestSession}. */
    H2Tx longest(@Nullable Duration longestSession) {
        this.longest = longestSession == null ? null : longestSession.plus(MAX_BUFFER);
        return this;
    }

    /** The end of a routine that did not fail: its savepoint is released. */
    void finish() throws SQLException {
        try {
            checkFenceOnce();
            connection.releaseSavepoint(start);
        } finally {
            releaseStatements();
        }
    }

    /**
     * Takes back the resource_lock rows this call created when it wrote nothing else: a replay writes nothing,
     * not even the lock row of a student new to the tenant (the request id may be another student's).
     */
    void undoNewLocks() {
        if (writes == 0 && beforeNewLock != null) {
            try {
                connection.rollback(beforeNewLock);
            } catch (SQLException e) {
                throw new Failure(e);
            }
            beforeNewLock = null;
            unlocked();
        }
    }

    /** The end of a routine that failed: every write of the call is undone. */
    void abort(Throwable failure) {
        try {
            connection.rollback(start);
        } catch (SQLException | RuntimeException undo) {
            failure.addSuppressed(undo);
        } finally {
            releaseStatements();
        }
    }

    /** {@return whether this call wrote anything but resource_lock rows} */
    boolean wrote() {
        return writes > 0;
    }

    /**
     * The hold this call decides: its reads of the slot, the request's booking and waitlist entry, the
     * student's booking of the slot, a free seat and a dead hold are answered by one statement when it
     * reads the slot, before its first lock (so they see one view of the committed rows: separate reads
     * could see a concurrent hold commit between them) and again once it locked the slot, until it
     * locks or writes anything else.
     */
    void expect(HoldRequest request, Instant now) {
        expected = request;
        expectedAt = now;
    }

    /** The probe, while it holds (nothing locked or written since), when it read {@code slotId}. */
    private @Nullable H2Probe probe(SlotId slotId) {
        return probe != null && probe.locks() == locks && probe.writes() == writes && expected.slotId().equals(slotId)
                ? probe : null;
    }

    /** The probe of the expected hold; under the slot's lock, with the student's occupations over the slot. */
    private H2Probe runProbe(boolean locked) {
        TimeRange over = locked && probe != null && probe.slot().isPresent()
                ? probe.slot().get().slot().studentTime() : null;
        try {
            return H2Probe.run(this, tenantId, expected, expectedAt, over, over == null ? null : lowest(over.start()),
                    locks, writes);
        } catch (SQLException e) {
            throw new Failure(e);
        }
    }

    /** No occupation that overlaps a range from {@code from} starts before this. */
    private Instant lowest(Instant from) {
        return longest == null ? EARLIEST : from.minus(longest);
    }

    @Override
    public TenantId tenantId() {
        return tenantId;
    }

    // ---------------------------------------------------------------- locks and the transaction

    @Override
    public boolean lock(List<ResourceRef> resources) {
        locks++;
        for (ResourceRef r : resources) {
            if (!lockedResources.add(r)) {
                continue; // locked by this call already
            }
            String kind = r.kind().name();
            if (!query("lockResource", rs -> 1, tenant, kind, r.id()).isEmpty()) {
                continue;
            }
            try {
                Savepoint before = connection.setSavepoint();
                try {
                    update("createResource", tenant, kind, r.id());
                    if (beforeNewLock == null) {
                        beforeNewLock = before;
                    }
                    continue;
                } catch (Failure e) {
                    // two first uses at once: the other one created the row, which is all we need
                    if (!"23505".equals(e.sql().getSQLState())) {
                        throw e;
                    }
                    connection.rollback(before);
                }
            } catch (SQLException e) {
                throw new Failure(e);
            }
            if (query("lockResource", rs -> 1, tenant, kind, r.id()).isEmpty()) {
                throw new IllegalStateException("resource_lock row " + kind + " '" + r.id() + "' could not be created");
            }
        }
        return true; // rows read before the locks may have changed
    }

    @Override
    public void rollback() {
        try {
            connection.rollback(start);
        } catch (SQLException e) {
            throw new Failure(e);
        }
        beforeNewLock = null;
        unlocked();
        writes = 0;
        probe = null;
        lastOverlapsOf = null;
        pendingSeats.clear();
        inserted.clear();
    }

    // ---------------------------------------------------------------- slots and seats

    @Override
    public Optional<StoredSlot> slot(SlotId slotId, boolean forUpdate) {
        if (expected != null && expected.slotId().equals(slotId) && (forUpdate || locks + writes == 0)) {
            if (forUpdate) {
                // under the slot's lock (and the student's) what the probe reads stays as read until this call writes
                if (!lockedSlots.contains(slotId.value())
                        && !query("lockSlotRow", rs -> 1, tenant, slotId.value()).isEmpty()) {
                    lockedSlots.add(slotId.value()); // the probe reads the row
                }
                locks++;
            }
            probe = runProbe(forUpdate);
            return probe.slot();
        }
        locks += forUpdate ? 1 : 0;
        // a slot this call locked already is read as it is (nobody else can change it)
        boolean lock = forUpdate && !lockedSlots.contains(slotId.value());
        Optional<StoredSlot> found = first(query(lock ? "lockSlot" : "findSlot",
                rs -> H2Sql.storedSlot(tenantId, rs, 0), tenant, slotId.value()));
        if (lock && found.isPresent()) {
            lockedSlots.add(slotId.value());
        }
        return found;
    }

    @Override
    public boolean insertSlot(StoredSlot stored) {
        Slot s = stored.slot();
        try {
            write("insertSlot", tenant, s.slotId().value(), s.coachId().value(), s.roomId().value(),
                    s.time().start(), s.time().end(), s.capacity(), s.status().name(), s.opensAt(),
                    s.closesAt(), (int) s.buffer().toSeconds(), Facts.policyName(s.cancellation()),
                    s.cancellation() == null || s.cancellation().cutoff() == null ? null
                            : (int) s.cancellation().cutoff().toSeconds(), stored.weekStart(),
                    stored.weekEnd(), s.bufferStudents(), s.classType(), s.cost(),
                    s.seriesId() == null ? null : s.seriesId().value());
        } catch (Failure e) {
            if ("23505".equals(e.sql().getSQLState())) {
                return false;
            }
            throw e;
        }
        write("insertSeats", tenant, s.slotId().value(), s.capacity());
        return true;
    }

    @Override
    public void updateSlot(Slot slot) {
        write("updateSlot", slot.status().name(), tenant, slot.slotId().value());
    }

    @Override
    public List<Slot> slots(@Nullable SlotId after, int limit) {
        return query("slots", rs -> H2Sql.slot(tenantId, rs, 0), tenant, after == null ? "" : after.value(), limit);
    }

    @Override
    public List<Slot> seriesSlots(SeriesId seriesId) {
        return query("seriesSlots", rs -> H2Sql.slot(tenantId, rs, 0), tenant, seriesId.value());
    }

    @Override
    public OptionalInt freeSeat(SlotId slotId) {
        H2Probe p = probe(slotId);
        if (p != null) {
            return p.free();
        }
        List<Integer> free = query("freeSeat", rs -> rs.getInt(1), tenant, slotId.value());
        return free.isEmpty() ? OptionalInt.empty() : OptionalInt.of(free.get(0));
    }

    @Override
    public void takeSeat(SlotId slotId, int seat, BookingId bookingId) {
        Booking booking = inserted.get(bookingId.value());
        if (booking != null) {
            seatTo(booking, seat);
        } else {
            pendingSeats.put(bookingId.value(), seat);
        }
    }

    /** Writes the seat row of a booking: its status, student and deadline. */
    private void seatTo(Booking b, int seat) {
        if (write("takeFreeSeat", b.status().name(), b.bookingId().value(), b.studentId().value(),
                b.heldUntil(), tenant, b.slotId().value(), seat) != 1) {
            throw new IllegalStateException("seat " + seat + " of slot '" + b.slotId() + "' is not free");
        }
    }

    @Override
    public void freeSeat(SlotId slotId, int seat) {
        write("releaseSeat", tenant, slotId.value(), seat);
    }

    @Override
    public void closeSeats(SlotId slotId) {
        write("closeSeats", tenant, slotId.value());
    }

    @Override
    public List<Booking> seated(SlotId slotId) {
        return query("seated", bookingRow, tenant, slotId.value());
    }

    // ---------------------------------------------------------------- bookings

    @Override
    public Optional<Booking> booking(BookingId bookingId, boolean forUpdate) {
        locks += forUpdate ? 1 : 0;
        // a confirm locks no slot: a booking read for update is locked (every write of a booking locks its row)
        if (!forUpdate && fenceWithFirst()) {
            Optional<Booking> found = Optional.empty();
            try (ResultSet rs = bind("findBookingFenced", tenant, bookingId.value(), tenant).executeQuery()) {
                while (rs.next()) {
                    if (rs.getInt(1) == 0) {
                        found = Optional.of(H2Sql.booking(tenantId, rs, 1));
                    } else {
                        fence(rs.getString(2), Long.parseLong(rs.getString(3)));
                    }
                }
            } catch (SQLException e) {
                throw new Failure(e);
            }
            return found;
        }
        return first(query(forUpdate ? "lockBooking" : "findBooking", bookingRow, tenant, bookingId.value()));
    }

    @Override
    public Optional<Booking> bookingOfRequest(RequestId requestId) {
        H2Probe p = expected == null ? null : probe(expected.slotId());
        if (p != null && expected.requestId().equals(requestId)) {
            return p.ofRequest();
        }
        return first(query("bookingOfRequest", bookingRow, tenant, requestId.value()));
    }

    @Override
    public Optional<Booking> seatedBooking(SlotId slotId, StudentId studentId) {
        H2Probe p = probe(slotId);
        if (p != null && expected.studentId().equals(studentId)) {
            return p.mine();
        }
        return first(query("findActive", bookingRow, tenant, slotId.value(), studentId.value()));
    }

    @Override
    public Optional<Booking> oldestDeadHold(SlotId slotId, Instant now) {
        H2Probe p = probe(slotId);
        if (p != null && now.equals(expectedAt)) {
            return p.dead() == null ? Optional.empty() : booking(BookingId.of(p.dead()), false);
        }
        return first(query("oldestDeadHold", bookingRow, tenant, slotId.value(), now));
    }

    @Override
    public void recordEvents(List<BookingEvent> events) {
        events.forEach(e -> write("insertEvent", H2Sql.eventRow(tenant, e)));
    }

    @Override
    public void insertBooking(Booking b) {
        write("insertBooking", tenant, b.bookingId().value(), b.requestId().value(), b.slotId().value(),
                b.studentId().value(), b.seat(), b.status().name(), b.heldUntil(), b.createdAt(),
                b.updatedAt(), b.packageId() == null ? null : b.packageId().value(), b.credits(),
                b.attendance().name());
        inserted.put(b.bookingId().value(), b);
        Integer seat = pendingSeats.remove(b.bookingId().value());
        if (seat != null) {
            seatTo(b, seat);
        }
    }

    @Override
    public void updateBooking(Booking b) {
        if (write("updateBooking", b.status().name(), b.updatedAt(),
                b.packageId() == null ? null : b.packageId().value(), b.credits(), b.attendance().name(), tenant,
                b.bookingId().value()) != 1) {
            throw new IllegalStateException("booking '" + b.bookingId() + "' is missing");
        }
        if (b.status() == BookingStatus.CONFIRMED) {
            write("syncSeat", b.status().name(), tenant, b.slotId().value(), b.seat(), b.bookingId().value(),
                    b.status().name());
        }
    }

    /** Marks a cancelled booking late (a column the rules' booking does not carry). */
    void markLate(BookingId bookingId) {
        write("lateCancel", tenant, bookingId.value());
    }

    @Override
    public List<Booking> dueHolds(Instant now, int limit) {
        return query("dueHolds", bookingRow, tenant, now, limit);
    }

    @Override
    public List<Booking> unattended(Instant endedBy, int limit) {
        return query("unattended", bookingRow, tenant, endedBy, limit);
    }

    @Override
    public List<Booking> bookingsOf(StudentId studentId) {
        return query("bookingsOf", bookingRow, tenant, studentId.value());
    }

    // ---------------------------------------------------------------- occupations

    @Override
    public List<Occupancy> occupations(ResourceRef resource, Instant from, Instant to) {
        // asked twice in a row by a hold (its clashes, then its dead holds): read once while nothing changed
        List<Object> key = List.of(resource, from, to, locks, writes);
        if (key.equals(lastOverlapsOf)) {
            return lastOverlaps;
        }
        H2Probe p = expected == null ? null : probe(expected.slotId());
        if (p != null && p.over() != null && p.over().start().equals(from) && p.over().end().equals(to)
                && resource.equals(ResourceRef.of(expected.studentId()))) {
            return p.overlaps();
        }
        Instant lowest = lowest(from);
        lastOverlapsOf = key;
        return lastOverlaps = query("overlaps", rs -> {
            String bookingId = rs.getString(6);
            return new Occupancy(new ResourceRef(ResourceKind.valueOf(rs.getString(1)), rs.getString(2)),
                    TimeRange.of(instant(rs, 3), instant(rs, 4)), SlotId.of(rs.getString(5)),
                    bookingId == null ? null : BookingId.of(bookingId));
        }, tenant, resource.kind().name(), resource.id(), to, from, lowest);
    }

    @Override
    public void occupy(Occupancy o) {
        write("insertOccupation", tenant, o.resource().kind().name(), o.resource().id(), o.time().start(),
                o.time().end(), o.slotId().value(), o.bookingId() == null ? null : o.bookingId().value());
    }

    @Override
    public void vacate(SlotId slotId, @Nullable BookingId bookingId) {
        if (bookingId == null) {
            write("releaseSlot", tenant, slotId.value());
        } else {
            write("releaseBooking", tenant, bookingId.value());
        }
    }

    // ---------------------------------------------------------------- waitlists

    @Override
    public Optional<Waiter> waiter(RequestId requestId) {
        H2Probe p = expected == null ? null : probe(expected.slotId());
        if (p != null && expected.requestId().equals(requestId)) {
            return p.waiter();
        }
        return first(query("findWaiter", rs -> H2Sql.waiter(rs, 0), tenant, requestId.value()));
    }

    @Override
    public List<Waiter> waiting(SlotId slotId) {
        return query("waitingOfSlot", rs -> H2Sql.waiter(rs, 0), tenant, slotId.value());
    }

    @Override
    public Waiter join(SlotId slotId, RequestId requestId, StudentId studentId, BookingId bookingId, Instant now) {
        write("insertWaiter", tenant, requestId.value(), slotId.value(), studentId.value(), bookingId.value(), now,
                now);
        return waiter(requestId).orElseThrow(() -> new IllegalStateException(
                "the waitlist entry of request '" + requestId + "' is missing after its insert"));
    }

    @Override
    public void markWaiter(RequestId requestId, WaitlistEntry.Status status, WaitlistEntry.@Nullable SkipReason reason,
                           Instant now) {
        write("setWaiter", status.name(), reason == null ? null : reason.name(), now, tenant, requestId.value());
    }

    // ---------------------------------------------------------------- packages and credits

    @Override
    public Optional<LessonPackage> lessonPackage(PackageId packageId, boolean forUpdate) {
        return first(query(forUpdate ? "lockPackage" : "findPackage", rs -> H2Sql.lessonPackage(tenantId, rs), tenant,
                packageId.value()));
    }

    @Override
    public List<LessonPackage> packagesOf(StudentId studentId) {
        return query("packagesOf", rs -> H2Sql.lessonPackage(tenantId, rs), tenant, studentId.value());
    }

    @Override
    public void insertPackage(LessonPackage p) {
        write("insertPackage", tenant, p.packageId().value(), p.studentId().value(), p.credits(), p.remaining(),
                p.validFrom(), p.validUntil(), Facts.classTypes(p.classTypes()), p.grantedAt());
    }

    @Override
    public void appendCredit(PackageId packageId, CreditEntry.Reason reason, int delta, @Nullable Booking booking,
                             Instant now) {
        if (write("movePackage", delta, tenant, packageId.value(), delta) != 1) {
            throw new IllegalStateException("package '" + packageId + "' cannot move by " + delta + " credits");
        }
        try {
            write("insertEntry", tenant, packageId.value(), reason.name(), delta,
                    booking == null ? null : booking.bookingId().value(),
                    booking == null ? null : booking.requestId().value(), now);
        } catch (Failure e) {
            if ("23505".equals(e.sql().getSQLState())) {
                throw new IllegalStateException("booking '" + booking.bookingId() + "' has a " + reason
                        + " entry already", e.sql());
            }
            throw e;
        }
    }

    @Override
    public List<CreditEntry> journal(PackageId packageId, int offset, int limit) {
        return query("journal", rs -> {
            String bookingId = rs.getString(4);
            String requestId = rs.getString(5);
            return new CreditEntry(tenantId, packageId, rs.getLong(1), CreditEntry.Reason.valueOf(rs.getString(2)),
                    rs.getInt(3), bookingId == null ? null : BookingId.of(bookingId),
                    requestId == null ? null : RequestId.of(requestId), instant(rs, 6));
        }, tenant, packageId.value(), limit, offset);
    }

    /** A write of the rules' (not a resource_lock row): the call is no longer one that changed nothing. */
    private int write(String statement, Object... args) {
        writes++;
        return update(statement, args);
    }
}
