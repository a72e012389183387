package org.slotbook.jdbc.internal;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.ConcurrentHashMap;
import org.h2.engine.Session;
import org.h2.jdbc.JdbcConnection;
import org.jspecify.annotations.Nullable;
import org.slotbook.core.Attendance;
import org.slotbook.core.Booking;
import org.slotbook.core.BookingId;
import org.slotbook.core.BookingStatus;
import org.slotbook.core.CoachId;
import org.slotbook.core.CreditEntry;
import org.slotbook.core.HoldRequest;
import org.slotbook.core.LessonPackage;
import org.slotbook.core.PackageId;
import org.slotbook.core.RequestId;
import org.slotbook.core.ResourceKind;
import org.slotbook.core.ResourceRef;
import org.slotbook.core.RoomId;
import org.slotbook.core.SeriesId;
import org.slotbook.core.Slot;
import org.slotbook.core.SlotId;
import org.slotbook.core.SlotStatus;
import org.slotbook.core.StudentId;
import org.slotbook.core.TenantId;
import org.slotbook.core.TimeRange;
import org.slotbook.core.WaitlistEntry;
import org.slotbook.core.rules.Occupancy;
import org.slotbook.core.rules.RuleTx;
import org.slotbook.core.rules.StoredSlot;
import org.slotbook.core.rules.Waiter;

/**
 * The rules' transaction over H2's tables, on the nested connection H2 passes a routine (the caller's
 * session and transaction). Locks: a coach, room or student is its {@code resource_lock} row, created on
 * first use; a slot, booking or package read {@code forUpdate} is {@code SELECT ... FOR UPDATE}. A seat
 * row mirrors the booking that holds it (status, owner, deadline). {@link #rollback} goes back to the
 * savepoint taken when the routine started. A failed statement throws {@link Failure}, which carries
 * the {@link SQLException} out of the rules unchanged.
 */
final class H2Tx implements RuleTx {
    /** The earliest instant H2 stores: no lower bound on an occupation's start. */
    private static final OffsetDateTime EARLIEST = OffsetDateTime.of(1, 1, 1, 0, 0, 0, 0, ZoneOffset.UTC);
    /** The longest buffer a slot may have (SlotSpec.MAX_BUFFER). */
    private static final Duration MAX_BUFFER = Duration.ofHours(24);

    /** A failed statement, carried unchecked through the rules. */
    static final class Failure extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Failure(SQLException cause) {
            super(cause.getMessage(), cause, false, false);
        }

        SQLException sql() {
            return (SQLException) getCause();
        }
    }

    private final Connection connection;
    private final H2Sql sql;
    private final Prepared prepared;
    private final TenantId tenantId;
    private final String tenant;
    private final Savepoint start;
    /** No stored occupation is longer than this (session and buffer): how far back an overlap is looked for. */
    private @Nullable Duration longest;
    /** Taken before this call created its first resource_lock row; null when it created none. */
    private @Nullable Savepoint beforeNewLock;
    /** Whether this call wrote anything but resource_lock rows. */
    private boolean wrote;
    /** Whether this call took a lock. */
    private boolean locked;
    /** Seats given to a booking not inserted yet: the seat row is written with the booking. */
    private final Map<String, Integer> pendingSeats = new HashMap<>(2);
    /** The bookings this call inserted, by id (a seat given after the insert). */
    private final Map<String, Booking> inserted = new HashMap<>(2);

    H2Tx(Connection connection, H2Sql sql, TenantId tenantId) throws SQLException {
        this.connection = connection;
        this.sql = sql;
        this.prepared = Prepared.of(connection);
        this.tenantId = tenantId;
        this.tenant = tenantId.value();
        this.start = connection.setSavepoint();
    }

    /** Bounds the overlap searches: no stored session is longer than {@code longestSession}. */
    H2Tx longest(@Nullable Duration longestSession) {
        this.longest = longestSession == null ? null : longestSession.plus(MAX_BUFFER);
        return this;
    }

    /** The end of a routine that did not fail: its savepoint is released. */
    void finish() throws SQLException {
        try {
            connection.releaseSavepoint(start);
        } finally {
            prepared.release();
        }
    }

    /**
     * Takes back the resource_lock rows this call created when it wrote nothing else: a replay writes
     * nothing, not even the lock row of a student new to the tenant (the request id may be another
     * student's: the caller refuses that).
     */
    void undoNewLocks() {
        if (!wrote && beforeNewLock != null) {
            try {
                connection.rollback(beforeNewLock);
            } catch (SQLException e) {
                throw new Failure(e);
            }
            beforeNewLock = null;
        }
    }

    /** The end of a routine that failed: every write of the call is undone. */
    void abort(Throwable failure) {
        try {
            connection.rollback(start);
        } catch (SQLException | RuntimeException undo) {
            failure.addSuppressed(undo);
        } finally {
            prepared.release();
        }
    }

    /** {@return whether this call wrote anything but resource_lock rows} */
    boolean wrote() {
        return wrote;
    }

    /** Refuses a tenant this database does not serve: its tenant_fence row is FENCED or MOVED. */
    void fenceCheck() throws SQLException {
        List<String> fence = query(sql.fenceState, rs -> rs.getString(1) + " on this database (fence epoch "
                + rs.getLong(2) + ")", tenant);
        if (!fence.isEmpty() && !fence.get(0).startsWith("OWNED ")) {
            throw new SQLException("tenant " + tenant + " is " + fence.get(0) + ": call its current shard",
                    SqlErrors.FENCED);
        }
    }

    @Override
    public TenantId tenantId() {
        return tenantId;
    }

    // ---------------------------------------------------------------- locks and the transaction

    @Override
    public void lock(List<ResourceRef> resources) {
        locked = true;
        for (ResourceRef r : resources) {
            String kind = r.kind().name();
            if (!query(sql.lockResource, rs -> 1, tenant, kind, r.id()).isEmpty()) {
                continue;
            }
            try {
                Savepoint before = connection.setSavepoint();
                try {
                    update(sql.createResource, tenant, kind, r.id());
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
            if (query(sql.lockResource, rs -> 1, tenant, kind, r.id()).isEmpty()) {
                throw new IllegalStateException("resource_lock row " + kind + " '" + r.id() + "' could not be created");
            }
        }
    }

    @Override
    public void rollback() {
        try {
            connection.rollback(start);
        } catch (SQLException e) {
            throw new Failure(e);
        }
        beforeNewLock = null;
        wrote = false;
        pendingSeats.clear();
        inserted.clear();
    }

    // ---------------------------------------------------------------- slots and seats

    @Override
    public Optional<StoredSlot> slot(SlotId slotId, boolean forUpdate) {
        locked |= forUpdate;
        return first(query(forUpdate ? sql.lockSlot : sql.findSlot, this::storedSlot, tenant, slotId.value()));
    }

    @Override
    public boolean insertSlot(StoredSlot stored) {
        Slot s = stored.slot();
        try {
            write(sql.insertSlot, tenant, s.slotId().value(), s.coachId().value(), s.roomId().value(),
                    at(s.time().start()), at(s.time().end()), s.capacity(), s.status().name(), at(s.opensAt()),
                    at(s.closesAt()), (int) s.buffer().toSeconds(), Facts.policyName(s.cancellation()),
                    s.cancellation() == null || s.cancellation().cutoff() == null ? null
                            : (int) s.cancellation().cutoff().toSeconds(), at(stored.weekStart()),
                    at(stored.weekEnd()), s.bufferStudents(), s.classType(), s.cost(),
                    s.seriesId() == null ? null : s.seriesId().value());
        } catch (Failure e) {
            if ("23505".equals(e.sql().getSQLState())) {
                return false;
            }
            throw e;
        }
        write(sql.insertSeats, tenant, s.slotId().value(), s.capacity());
        return true;
    }

    @Override
    public void updateSlot(Slot slot) {
        write(sql.updateSlot, slot.status().name(), tenant, slot.slotId().value());
    }

    @Override
    public List<Slot> slots(@Nullable SlotId after, int limit) {
        return query(sql.slots, this::slot, tenant, after == null ? "" : after.value(), limit);
    }

    @Override
    public List<Slot> seriesSlots(SeriesId seriesId) {
        return query(sql.seriesSlots, this::slot, tenant, seriesId.value());
    }

    @Override
    public OptionalInt freeSeat(SlotId slotId) {
        List<Integer> free = query(sql.freeSeat, rs -> rs.getInt(1), tenant, slotId.value());
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
        if (write(sql.takeFreeSeat, b.status().name(), b.bookingId().value(), b.studentId().value(),
                at(b.heldUntil()), tenant, b.slotId().value(), seat) != 1) {
            throw new IllegalStateException("seat " + seat + " of slot '" + b.slotId() + "' is not free");
        }
    }

    @Override
    public void freeSeat(SlotId slotId, int seat) {
        write(sql.releaseSeat, tenant, slotId.value(), seat);
    }

    @Override
    public void closeSeats(SlotId slotId) {
        write(sql.closeSeats, tenant, slotId.value());
    }

    @Override
    public List<Booking> seated(SlotId slotId) {
        return query(sql.seated, this::booking, tenant, slotId.value());
    }

    // ---------------------------------------------------------------- bookings

    @Override
    public Optional<Booking> booking(BookingId bookingId, boolean forUpdate) {
        locked |= forUpdate;
        return first(query(forUpdate ? sql.lockBooking : sql.findBooking, this::booking, tenant, bookingId.value()));
    }

    @Override
    public Optional<Booking> bookingOfRequest(RequestId requestId) {
        return first(query(sql.bookingOfRequest, this::booking, tenant, requestId.value()));
    }

    @Override
    public Optional<Booking> seatedBooking(SlotId slotId, StudentId studentId) {
        return first(query(sql.findActive, this::booking, tenant, slotId.value(), studentId.value()));
    }

    /**
     * What is stored of a hold's request, read by one statement (to check an answer the rules gave from
     * several reads without a lock): 1 for its booking or its waitlist entry, 2 for its student's booking
     * of its slot.
     */
    List<Integer> requestTaken(HoldRequest r) {
        return query(sql.requestTaken, rs -> rs.getInt(1), tenant, r.requestId().value(), tenant,
                r.requestId().value(), tenant, r.slotId().value(), r.studentId().value());
    }

    /** {@return whether this call has locked nothing and written nothing} */
    boolean untouched() {
        return !locked && !wrote;
    }

    @Override
    public Optional<Booking> oldestDeadHold(SlotId slotId, Instant now) {
        return first(query(sql.oldestDeadHold, this::booking, tenant, slotId.value(), at(now)));
    }

    @Override
    public void insertBooking(Booking b) {
        write(sql.insertBooking, tenant, b.bookingId().value(), b.requestId().value(), b.slotId().value(),
                b.studentId().value(), b.seat(), b.status().name(), at(b.heldUntil()), at(b.createdAt()),
                at(b.updatedAt()), b.packageId() == null ? null : b.packageId().value(), b.credits(),
                b.attendance().name());
        inserted.put(b.bookingId().value(), b);
        Integer seat = pendingSeats.remove(b.bookingId().value());
        if (seat != null) {
            seatTo(b, seat);
        }
    }

    @Override
    public void updateBooking(Booking b) {
        if (write(sql.updateBooking, b.status().name(), at(b.updatedAt()),
                b.packageId() == null ? null : b.packageId().value(), b.credits(), b.attendance().name(), tenant,
                b.bookingId().value()) != 1) {
            throw new IllegalStateException("booking '" + b.bookingId() + "' is missing");
        }
        if (b.status() == BookingStatus.CONFIRMED) {
            write(sql.syncSeat, b.status().name(), tenant, b.slotId().value(), b.seat(), b.bookingId().value(),
                    b.status().name());
        }
    }

    /** Marks a cancelled booking late (a column the rules' booking does not carry). */
    void markLate(BookingId bookingId) {
        write(sql.lateCancel, tenant, bookingId.value());
    }

    @Override
    public List<Booking> dueHolds(Instant now, int limit) {
        return query(sql.dueHolds, this::booking, tenant, at(now), limit);
    }

    @Override
    public List<Booking> unattended(Instant endedBy, int limit) {
        return query(sql.unattended, this::booking, tenant, at(endedBy), limit);
    }

    @Override
    public List<Booking> bookingsOf(StudentId studentId) {
        return query(sql.bookingsOf, this::booking, tenant, studentId.value());
    }

    // ---------------------------------------------------------------- occupations

    @Override
    public List<Occupancy> occupations(ResourceRef resource, Instant from, Instant to) {
        OffsetDateTime lowest = longest == null ? EARLIEST : at(from).minus(longest);
        return query(sql.overlaps, rs -> {
            String bookingId = rs.getString(6);
            return new Occupancy(new ResourceRef(ResourceKind.valueOf(rs.getString(1)), rs.getString(2)),
                    TimeRange.of(instant(rs, 3), instant(rs, 4)), SlotId.of(rs.getString(5)),
                    bookingId == null ? null : BookingId.of(bookingId));
        }, tenant, resource.kind().name(), resource.id(), at(to), at(from), lowest);
    }

    @Override
    public void occupy(Occupancy o) {
        write(sql.insertOccupation, tenant, o.resource().kind().name(), o.resource().id(), at(o.time().start()),
                at(o.time().end()), o.slotId().value(), o.bookingId() == null ? null : o.bookingId().value());
    }

    @Override
    public void vacate(SlotId slotId, @Nullable BookingId bookingId) {
        if (bookingId == null) {
            write(sql.releaseSlot, tenant, slotId.value());
        } else {
            write(sql.releaseBooking, tenant, bookingId.value());
        }
    }

    // ---------------------------------------------------------------- waitlists

    @Override
    public Optional<Waiter> waiter(RequestId requestId) {
        return first(query(sql.findWaiter, H2Tx::waiter, tenant, requestId.value()));
    }

    @Override
    public List<Waiter> waiting(SlotId slotId) {
        return query(sql.waitingOfSlot, H2Tx::waiter, tenant, slotId.value());
    }

    @Override
    public Waiter join(SlotId slotId, RequestId requestId, StudentId studentId, BookingId bookingId, Instant now) {
        write(sql.insertWaiter, tenant, requestId.value(), slotId.value(), studentId.value(), bookingId.value(), at(now),
                at(now));
        return waiter(requestId).orElseThrow(() -> new IllegalStateException(
                "the waitlist entry of request '" + requestId + "' is missing after its insert"));
    }

    @Override
    public void markWaiter(RequestId requestId, WaitlistEntry.Status status, WaitlistEntry.@Nullable SkipReason reason,
                           Instant now) {
        write(sql.setWaiter, status.name(), reason == null ? null : reason.name(), at(now), tenant, requestId.value());
    }

    // ---------------------------------------------------------------- packages and credits

    @Override
    public Optional<LessonPackage> lessonPackage(PackageId packageId, boolean forUpdate) {
        return first(query(forUpdate ? sql.lockPackage : sql.findPackage, this::lessonPackage, tenant,
                packageId.value()));
    }

    @Override
    public List<LessonPackage> packagesOf(StudentId studentId) {
        return query(sql.packagesOf, this::lessonPackage, tenant, studentId.value());
    }

    @Override
    public void insertPackage(LessonPackage p) {
        write(sql.insertPackage, tenant, p.packageId().value(), p.studentId().value(), p.credits(), p.remaining(),
                at(p.validFrom()), at(p.validUntil()), Facts.classTypes(p.classTypes()), at(p.grantedAt()));
    }

    @Override
    public void appendCredit(PackageId packageId, CreditEntry.Reason reason, int delta, @Nullable Booking booking,
                             Instant now) {
        if (write(sql.movePackage, delta, tenant, packageId.value(), delta) != 1) {
            throw new IllegalStateException("package '" + packageId + "' cannot move by " + delta + " credits");
        }
        try {
            write(sql.insertEntry, tenant, packageId.value(), reason.name(), delta,
                    booking == null ? null : booking.bookingId().value(),
                    booking == null ? null : booking.requestId().value(), at(now));
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
        return query(sql.journal, rs -> {
            String bookingId = rs.getString(4);
            String requestId = rs.getString(5);
            return new CreditEntry(tenantId, packageId, rs.getLong(1), CreditEntry.Reason.valueOf(rs.getString(2)),
                    rs.getInt(3), bookingId == null ? null : BookingId.of(bookingId),
                    requestId == null ? null : RequestId.of(requestId), instant(rs, 6));
        }, tenant, packageId.value(), limit, offset);
    }

    // ---------------------------------------------------------------- rows

    private StoredSlot storedSlot(ResultSet rs) throws SQLException {
        Slot slot = slot(rs);
        Instant weekStart = instant(rs, 13);
        Instant weekEnd = instant(rs, 14);
        // a slot stored before weeks were kept counts in an empty week
        return weekStart == null || weekEnd == null ? new StoredSlot(slot, slot.time().start(), slot.time().start())
                : new StoredSlot(slot, weekStart, weekEnd);
    }

    /** {@link H2Sql#SLOT_COLUMNS}. */
    private Slot slot(ResultSet rs) throws SQLException {
        int cutoff = rs.getInt(12);
        Long cutoffSeconds = rs.wasNull() ? null : (long) cutoff;
        String series = rs.getString(18);
        return new Slot(tenantId, SlotId.of(rs.getString(1)), CoachId.of(rs.getString(2)), RoomId.of(rs.getString(3)),
                TimeRange.of(instant(rs, 4), instant(rs, 5)), rs.getInt(6), SlotStatus.valueOf(rs.getString(7)),
                instant(rs, 8), instant(rs, 9), Duration.ofSeconds(rs.getInt(10)),
                Facts.cancellation(rs.getString(11), cutoffSeconds), rs.getBoolean(15), rs.getString(16),
                rs.getInt(17), series == null ? null : SeriesId.of(series));
    }

    /** {@link H2Sql#BOOKING_COLUMNS}. */
    private Booking booking(ResultSet rs) throws SQLException {
        String packageId = rs.getString(10);
        return new Booking(tenantId, BookingId.of(rs.getString(1)), RequestId.of(rs.getString(2)),
                SlotId.of(rs.getString(3)), StudentId.of(rs.getString(4)), rs.getInt(5),
                BookingStatus.valueOf(rs.getString(6)), instant(rs, 7), instant(rs, 8), instant(rs, 9),
                packageId == null ? null : PackageId.of(packageId), rs.getInt(11), Attendance.valueOf(rs.getString(12)));
    }

    /** {@link H2Sql#WAITER_COLUMNS}. */
    private static Waiter waiter(ResultSet rs) throws SQLException {
        String reason = rs.getString(8);
        return new Waiter(rs.getLong(1), SlotId.of(rs.getString(2)), RequestId.of(rs.getString(3)),
                StudentId.of(rs.getString(4)), BookingId.of(rs.getString(5)), instant(rs, 6),
                WaitlistEntry.Status.valueOf(rs.getString(7)),
                reason == null ? null : WaitlistEntry.SkipReason.valueOf(reason));
    }

    /** {@link H2Sql#PACKAGE_COLUMNS}. */
    private LessonPackage lessonPackage(ResultSet rs) throws SQLException {
        return new LessonPackage(tenantId, PackageId.of(rs.getString(1)), StudentId.of(rs.getString(2)), rs.getInt(3),
                rs.getInt(4), instant(rs, 5), instant(rs, 6), Facts.classTypes(rs.getString(7)), instant(rs, 8));
    }

    static @Nullable Instant instant(ResultSet rs, int column) throws SQLException {
        OffsetDateTime value = rs.getObject(column, OffsetDateTime.class);
        return value == null ? null : value.toInstant();
    }

    static @Nullable OffsetDateTime at(@Nullable Instant instant) {
        return instant == null ? null : instant.atOffset(ZoneOffset.UTC);
    }

    private static <T> Optional<T> first(List<T> rows) {
        return rows.isEmpty() ? Optional.empty() : Optional.of(rows.get(0));
    }

    // ---------------------------------------------------------------- statements

    @FunctionalInterface
    private interface RowReader<T> {
        T read(ResultSet rs) throws SQLException;
    }

    /** A write of the rules' (not a resource_lock row): the call is no longer one that changed nothing. */
    private int write(String statement, Object... args) {
        wrote = true;
        return update(statement, args);
    }

    private int update(String statement, Object... args) {
        try {
            return bind(statement, args).executeUpdate();
        } catch (SQLException e) {
            throw new Failure(e);
        }
    }

    private <T> List<T> query(String statement, RowReader<T> reader, Object... args) {
        try (ResultSet rs = bind(statement, args).executeQuery()) {
            List<T> rows = new ArrayList<>(2);
            while (rs.next()) {
                rows.add(reader.read(rs));
            }
            return rows;
        } catch (SQLException e) {
            throw new Failure(e);
        }
    }

    /** The session's prepared statement, every parameter bound (each call binds them all). */
    private PreparedStatement bind(String statement, Object... args) throws SQLException {
        PreparedStatement ps = prepared.get(connection, statement);
        for (int i = 0; i < args.length; i++) {
            ps.setObject(i + 1, args[i]);
        }
        return ps;
    }

    /**
     * The prepared statements of one H2 session, by SQL text, most recently used last: a routine
     * prepares each of its statements once per session rather than once per call (H2's own query
     * cache keeps 8 commands per session, fewer than a hold runs). The nested connections H2 hands a
     * routine are new objects over the same session, and a statement prepared on one of them runs on
     * the session, so it serves every later call; H2 recompiles it itself after a schema change.
     */
    private static final class Prepared {
        /** Enough for every statement of a few prefixes; the least recently used one is closed beyond. */
        private static final int LIMIT = 256;
        private static final Map<Session, Prepared> BY_SESSION = new ConcurrentHashMap<>();

        private final Map<String, PreparedStatement> statements = new LinkedHashMap<>(64, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, PreparedStatement> eldest) {
                if (size() <= LIMIT) {
                    return false;
                }
                closeQuietly(eldest.getValue());
                return true;
            }
        };
        /** Whether the statements outlive the call (kept for the session) or close when it ends. */
        private final boolean kept;

        private Prepared(boolean kept) {
            this.kept = kept;
        }

        /** The statements of the connection's session; a connection that is not H2's own gets a set of its own. */
        static Prepared of(Connection connection) {
            if (!(connection instanceof JdbcConnection jdbc) || jdbc.getSession() == null) {
                return new Prepared(false);
            }
            Session session = jdbc.getSession();
            Prepared found = BY_SESSION.get(session);
            if (found != null) {
                return found;
            }
            // a new session: forget those closed since (their statements went with them)
            BY_SESSION.keySet().removeIf(Session::isClosed);
            return BY_SESSION.computeIfAbsent(session, s -> new Prepared(true));
        }

        PreparedStatement get(Connection connection, String sql) throws SQLException {
            PreparedStatement ps = statements.get(sql);
            if (ps == null || ps.isClosed()) {
                ps = connection.prepareStatement(sql);
                statements.put(sql, ps);
            }
            return ps;
        }

        /** The end of a call: a set of the call's own is closed. */
        void release() {
            if (!kept) {
                statements.values().forEach(Prepared::closeQuietly);
                statements.clear();
            }
        }

        private static void closeQuietly(PreparedStatement ps) {
            try {
                ps.close();
            } catch (SQLException ignored) {
                // the session is going away, and the statement with it
            }
        }
    }
}
