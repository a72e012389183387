package org.slotbook.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.slotbook.core.Booking;
import org.slotbook.core.BookingId;
import org.slotbook.core.BookingStatus;
import org.slotbook.core.BookingStoreException;
import org.slotbook.core.CoachId;
import org.slotbook.core.RequestId;
import org.slotbook.core.ResourceConflict;
import org.slotbook.core.ResourceKind;
import org.slotbook.core.ResourceRef;
import org.slotbook.core.RoomId;
import org.slotbook.core.Slot;
import org.slotbook.core.SlotId;
import org.slotbook.core.SlotStatus;
import org.slotbook.core.StudentId;
import org.slotbook.core.TenantId;
import org.slotbook.core.TimeRange;
import org.slotbook.core.spi.ConflictDetector;
import org.slotbook.core.spi.DuplicateBookingException;
import org.slotbook.core.spi.NewBooking;
import org.slotbook.core.spi.Occupation;
import org.slotbook.core.spi.SeatClaim;
import org.slotbook.core.spi.SeatCount;
import org.slotbook.core.spi.SeatLedger;
import org.slotbook.core.spi.StoreTransaction;
import org.slotbook.jdbc.internal.JdbcTx;
import org.slotbook.jdbc.testing.TestDatabases.TestDatabase;

/**
 * The JDBC store on one database: the seat claim, transitions, conflict locks, tenancy, injection,
 * time precision, races and a killed connection. Invariants are read back from the tables with plain
 * SQL, not from return values.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class JdbcStoreTests {
    static final Instant T0 = Instant.parse("2030-03-10T09:00:00.123456Z");
    static final Duration HOUR = Duration.ofHours(1);
    static final Duration LONGEST = Duration.ofHours(24);

    TestDatabase db;
    JdbcStore store;
    SeatLedger ledger;
    ConflictDetector conflicts;
    Jdbi sql;

    protected abstract TestDatabase openDatabase();

    /** SQL that returns the current connection's server-side id, or null when killing is not tested. */
    protected String connectionIdQuery() {
        return null;
    }

    /** Kills the server connection {@code id} from another connection. */
    protected void kill(long id) {
        throw new UnsupportedOperationException();
    }

    @BeforeAll
    void openStore() {
        db = openDatabase();
        store = db.store();
        ledger = store.ledger();
        conflicts = store.conflicts();
        sql = Jdbi.create(db.dataSource());
    }

    @AfterAll
    void closeStore() {
        if (db != null) {
            db.close();
        }
    }

    // ------------------------------------------------------------------ helpers

    static TenantId tenant() {
        return TenantId.of("tenant-" + UUID.randomUUID());
    }

    static Slot slot(TenantId tenant, String id, TimeRange time, int capacity) {
        return new Slot(tenant, SlotId.of(id), CoachId.of("coach-" + id), RoomId.of("room-" + id), time, capacity,
                SlotStatus.OPEN);
    }

    static Slot slot(TenantId tenant, String id, int capacity) {
        return slot(tenant, id, TimeRange.of(T0, HOUR), capacity);
    }

    void schedule(Slot slot) {
        boolean inserted = ledger.inTransaction(slot.tenantId(), tx -> {
            List<ResourceConflict> clash = conflicts.occupy(tx, new Occupation(
                    List.of(ResourceRef.of(slot.coachId()), ResourceRef.of(slot.roomId())), slot.time(),
                    slot.slotId(), null), LONGEST);
            assertThat(clash).isEmpty();
            return ledger.insertSlot(tx, slot);
        });
        assertThat(inserted).isTrue();
    }

    /** What the engine does for a hold: lock and check the student, claim a seat, all in one transaction. */
    sealed interface Outcome permits Got, Clash, NoSeat {
    }

    record Got(SeatClaim claim) implements Outcome {
    }

    record Clash(List<ResourceConflict> conflicts) implements Outcome {
    }

    record NoSeat() implements Outcome {
    }

    Outcome hold(Slot slot, String student, Instant now, Duration ttl) {
        return hold(slot, student, RequestId.random(), now, ttl);
    }

    Outcome hold(Slot slot, String student, RequestId request, Instant now, Duration ttl) {
        BookingId bookingId = BookingId.random();
        return ledger.inTransaction(slot.tenantId(), tx -> {
            List<ResourceConflict> clash = conflicts.occupy(tx, new Occupation(
                    List.of(ResourceRef.of(StudentId.of(student))), slot.time(), slot.slotId(), bookingId), LONGEST);
            if (!clash.isEmpty()) {
                tx.setRollbackOnly();
                return new Clash(clash);
            }
            Optional<SeatClaim> claim = ledger.claimSeat(tx, new NewBooking(bookingId, request, slot.slotId(),
                    StudentId.of(student), BookingStatus.HELD, now.plus(ttl)), now);
            if (claim.isEmpty()) {
                tx.setRollbackOnly();
                return new NoSeat();
            }
            claim.get().displaced().ifPresent(old -> conflicts.releaseBooking(tx, old));
            return new Got(claim.get());
        });
    }

    Booking held(Outcome outcome) {
        assertThat(outcome).isInstanceOf(Got.class);
        return ((Got) outcome).claim().booking();
    }

    int count(String query, Object... args) {
        return sql.withHandle(h -> {
            var q = h.createQuery(query);
            for (int i = 0; i < args.length; i++) {
                q.bind(i, args[i]);
            }
            return q.mapTo(Integer.class).one();
        });
    }

    int activeBookings(TenantId tenant, SlotId slot) {
        return count("SELECT COUNT(*) FROM " + db.table("booking")
                + " WHERE tenant_id = ? AND slot_id = ? AND status IN ('HELD', 'CONFIRMED')", tenant.value(), slot.value());
    }

    int takenSeats(TenantId tenant, SlotId slot) {
        return count("SELECT COUNT(*) FROM " + db.table("slot_seat")
                + " WHERE tenant_id = ? AND slot_id = ? AND status IN ('HELD', 'CONFIRMED')", tenant.value(), slot.value());
    }

    /** Taken seats whose booking row agrees (same booking, seat number, active status). */
    int consistentSeats(TenantId tenant, SlotId slot) {
        return count("SELECT COUNT(*) FROM " + db.table("slot_seat") + " s JOIN " + db.table("booking") + " b"
                + " ON b.tenant_id = s.tenant_id AND b.booking_id = s.booking_id AND b.slot_id = s.slot_id"
                + " AND b.seat = s.seq AND b.student_id = s.student_id AND b.status = s.status"
                + " WHERE s.tenant_id = ? AND s.slot_id = ?", tenant.value(), slot.value());
    }

    int overlappingOccupations(TenantId tenant) {
        String occ = db.table("occupancy");
        return count("SELECT COUNT(*) FROM " + occ + " a JOIN " + occ + " b ON a.tenant_id = b.tenant_id"
                + " AND a.resource_kind = b.resource_kind AND a.resource_id = b.resource_id AND a.id < b.id"
                + " AND a.starts_at < b.ends_at AND a.ends_at > b.starts_at"
                + " WHERE a.active = TRUE AND b.active = TRUE AND a.tenant_id = ?", tenant.value());
    }

    int activeOccupations(TenantId tenant, ResourceKind kind) {
        return count("SELECT COUNT(*) FROM " + db.table("occupancy")
                + " WHERE tenant_id = ? AND resource_kind = ? AND active = TRUE", tenant.value(), kind.name());
    }

    void assertBalanced(TenantId tenant, SlotId slot, int expectedTaken) {
        assertThat(takenSeats(tenant, slot)).as("taken seats").isEqualTo(expectedTaken);
        assertThat(activeBookings(tenant, slot)).as("active bookings").isEqualTo(expectedTaken);
        assertThat(consistentSeats(tenant, slot)).as("seats agreeing with their booking").isEqualTo(expectedTaken);
        assertThat(overlappingOccupations(tenant)).as("overlapping active occupations").isZero();
    }

    // ------------------------------------------------------------------ basics

    @Test
    void instantsRoundTripAtMicrosecondPrecision() {
        TenantId t = tenant();
        TimeRange time = TimeRange.of(Instant.parse("2031-10-19T03:30:00.000001Z"),
                Instant.parse("2031-10-19T04:15:59.999999Z"));
        Slot s = slot(t, "precise", time, 3);
        schedule(s);
        Instant now = Instant.parse("2031-10-01T12:00:00.654321Z");
        Booking b = held(hold(s, "st", now, Duration.ofNanos(123_457_000)));

        Slot stored = ledger.inTransaction(t, tx -> ledger.findSlot(tx, s.slotId())).orElseThrow();
        assertThat(stored).isEqualTo(s);
        Booking read = ledger.inTransaction(t, tx -> ledger.findBooking(tx, b.bookingId())).orElseThrow();
        assertThat(read).isEqualTo(b);
        assertThat(read.heldUntil()).isEqualTo(Instant.parse("2031-10-01T12:00:00.777778Z"));
        assertThat(read.createdAt()).isEqualTo(now);
    }

    @Test
    void insertSlotTwiceReturnsFalseAndTheTransactionGoesOn() {
        TenantId t = tenant();
        Slot s = slot(t, "twice", 2);
        schedule(s);
        Optional<Slot> again = ledger.inTransaction(t, tx -> {
            assertThat(ledger.insertSlot(tx, s.withStatus(SlotStatus.OPEN))).isFalse();
            return ledger.findSlot(tx, s.slotId());
        });
        assertThat(again).contains(s);
        assertThat(count("SELECT COUNT(*) FROM " + db.table("slot_seat") + " WHERE tenant_id = ?", t.value()))
                .isEqualTo(2);
    }

    @Test
    void claimsFillTheSlotThenAnswerNoSeat() {
        TenantId t = tenant();
        Slot s = slot(t, "small", 2);
        schedule(s);
        Booking a = held(hold(s, "a", T0, HOUR));
        Booking b = held(hold(s, "b", T0, HOUR));
        assertThat(List.of(a.seat(), b.seat())).containsExactlyInAnyOrder(1, 2);
        assertThat(hold(s, "c", T0, HOUR)).isInstanceOf(NoSeat.class);
        assertThat(ledger.<SeatCount>inTransaction(t, tx -> ledger.count(tx, s.slotId(), T0))).isEqualTo(new SeatCount(2, 0));
        assertThat(ledger.<List<Booking>>inTransaction(t, tx -> ledger.liveBookings(tx, s.slotId(), T0)))
                .extracting(Booking::bookingId).containsExactly(a.bookingId(), b.bookingId());
        assertBalanced(t, s.slotId(), 2);
        assertThat(activeOccupations(t, ResourceKind.STUDENT)).isEqualTo(2);
    }

    @Test
    void secondCancelChangesNothing() {
        TenantId t = tenant();
        Slot s = slot(t, "cancel", 1);
        schedule(s);
        Booking b = held(hold(s, "st", T0, HOUR));
        Instant later = T0.plusSeconds(5);
        assertThat(ledger.<Boolean>inTransaction(t, tx -> ledger.cancel(tx, b.bookingId(), later))).isTrue();
        assertThat(ledger.<Boolean>inTransaction(t, tx -> ledger.cancel(tx, b.bookingId(), later.plusSeconds(5)))).isFalse();
        Booking read = ledger.inTransaction(t, tx -> ledger.findBooking(tx, b.bookingId())).orElseThrow();
        assertThat(read.status()).isEqualTo(BookingStatus.CANCELLED);
        assertThat(read.updatedAt()).isEqualTo(later);
        assertBalanced(t, s.slotId(), 0);
        // the seat is free again
        held(hold(s, "other", later, HOUR));
        assertBalanced(t, s.slotId(), 1);
    }

    @Test
    void confirmOnlyALiveHoldAndOnlyOnce() {
        TenantId t = tenant();
        Slot s = slot(t, "confirm", 2);
        schedule(s);
        Booking live = held(hold(s, "live", T0, Duration.ofMinutes(10)));
        Booking late = held(hold(s, "late", T0, Duration.ofMinutes(10)));
        Instant deadline = T0.plus(Duration.ofMinutes(10));
        assertThat(ledger.<Boolean>inTransaction(t, tx -> ledger.confirm(tx, live.bookingId(), deadline.minusNanos(1000))))
                .isTrue();
        assertThat(ledger.<Boolean>inTransaction(t, tx -> ledger.confirm(tx, live.bookingId(), deadline.minusNanos(1000))))
                .isFalse();
        assertThat(ledger.<Boolean>inTransaction(t, tx -> ledger.confirm(tx, late.bookingId(), deadline))).isFalse();
        assertThat(ledger.<Boolean>inTransaction(t, tx -> ledger.expire(tx, live.bookingId(), deadline))).isFalse();
        assertThat(ledger.<Boolean>inTransaction(t, tx -> ledger.expire(tx, late.bookingId(), deadline))).isTrue();
        assertThat(ledger.<Boolean>inTransaction(t, tx -> ledger.expire(tx, late.bookingId(), deadline))).isFalse();
        assertThat(ledger.<SeatCount>inTransaction(t, tx -> ledger.count(tx, s.slotId(), deadline))).isEqualTo(new SeatCount(0, 1));
        assertThat(ledger.<Optional<Booking>>inTransaction(t, tx -> ledger.findBooking(tx, late.bookingId())).orElseThrow().status())
                .isEqualTo(BookingStatus.EXPIRED);
        assertBalanced(t, s.slotId(), 1);
    }

    @Test
    void aClaimTakesOverAnExpiredHold() {
        TenantId t = tenant();
        Slot s = slot(t, "takeover", 1);
        schedule(s);
        Booking old = held(hold(s, "first", T0, Duration.ofSeconds(10)));
        assertThat(hold(s, "early", T0.plusSeconds(9), HOUR)).isInstanceOf(NoSeat.class);
        SeatClaim claim = ((Got) hold(s, "second", T0.plusSeconds(10), HOUR)).claim();
        assertThat(claim.displaced()).contains(old.bookingId());
        assertThat(claim.booking().seat()).isEqualTo(1);
        assertThat(ledger.<Optional<Booking>>inTransaction(t, tx -> ledger.findBooking(tx, old.bookingId())).orElseThrow().status())
                .isEqualTo(BookingStatus.EXPIRED);
        assertThat(activeOccupations(t, ResourceKind.STUDENT)).isEqualTo(1);
        assertBalanced(t, s.slotId(), 1);
    }

    @Test
    void duplicateRequestOrStudentIsRefusedAndRolledBack() {
        TenantId t = tenant();
        Slot s = slot(t, "dup", 3);
        Slot other = slot(t, "dup-other", TimeRange.of(T0.plus(Duration.ofDays(1)), HOUR), 3);
        schedule(s);
        schedule(other);
        RequestId request = RequestId.of("req-1");
        held(hold(s, "st", request, T0, HOUR));
        assertThatThrownBy(() -> hold(other, "st2", request, T0, HOUR))
                .isInstanceOf(DuplicateBookingException.class).hasMessageContaining("req-1");
        assertThatThrownBy(() -> ledger.inTransaction(t, tx -> ledger.claimSeat(tx, new NewBooking(BookingId.random(),
                RequestId.random(), s.slotId(), StudentId.of("st"), BookingStatus.CONFIRMED, T0.plus(HOUR)), T0)))
                .isInstanceOf(DuplicateBookingException.class);
        assertBalanced(t, s.slotId(), 1);
        assertBalanced(t, other.slotId(), 0);
        assertThat(activeOccupations(t, ResourceKind.STUDENT)).isEqualTo(1);
    }

    @Test
    void aWorkThatSwallowsTheDuplicateCommitsNothing() {
        TenantId t = tenant();
        Slot s = slot(t, "swallow", 3);
        schedule(s);
        held(hold(s, "st", T0, HOUR));
        String answer = ledger.inTransaction(t, tx -> {
            ledger.claimSeat(tx, new NewBooking(BookingId.random(), RequestId.random(), s.slotId(),
                    StudentId.of("newcomer"), BookingStatus.HELD, T0.plus(HOUR)), T0).orElseThrow();
            try {
                ledger.claimSeat(tx, new NewBooking(BookingId.random(), RequestId.random(), s.slotId(),
                        StudentId.of("st"), BookingStatus.HELD, T0.plus(HOUR)), T0);
            } catch (DuplicateBookingException expected) {
                return "refused";
            }
            return "taken";
        });
        // the newcomer's claim in that work was not committed: the transaction rolled back
        assertThat(answer).isEqualTo("refused");
        assertBalanced(t, s.slotId(), 1);
    }

    @Test
    void rollbackOnlyWritesNothing() {
        TenantId t = tenant();
        Slot s = slot(t, "rollback", 2);
        schedule(s);
        ledger.inTransaction(t, tx -> {
            ledger.claimSeat(tx, new NewBooking(BookingId.random(), RequestId.random(), s.slotId(),
                    StudentId.of("st"), BookingStatus.HELD, T0.plus(HOUR)), T0);
            tx.setRollbackOnly();
            return null;
        });
        assertBalanced(t, s.slotId(), 0);
    }

    @Test
    void cancelSlotCancelsEveryBookingOnce() {
        TenantId t = tenant();
        Slot s = slot(t, "called-off", 4);
        schedule(s);
        List<BookingId> ids = new ArrayList<>();
        for (String st : List.of("a", "b", "c")) {
            ids.add(held(hold(s, st, T0, HOUR)).bookingId());
        }
        assertThat(ledger.<Boolean>inTransaction(t, tx -> ledger.confirm(tx, ids.get(0), T0))).isTrue();
        List<BookingId> cancelled = ledger.inTransaction(t, tx -> {
            List<BookingId> result = ledger.cancelSlot(tx, s.slotId(), T0.plusSeconds(1));
            conflicts.releaseSlot(tx, s.slotId());
            return result;
        });
        assertThat(cancelled).containsExactlyInAnyOrderElementsOf(ids);
        assertThat(ledger.<List<BookingId>>inTransaction(t, tx -> ledger.cancelSlot(tx, s.slotId(), T0.plusSeconds(2)))).isEmpty();
        assertThat(hold(s, "d", T0.plusSeconds(3), HOUR)).isInstanceOf(NoSeat.class);
        assertThat(ledger.<Optional<Slot>>inTransaction(t, tx -> ledger.findSlot(tx, s.slotId())).orElseThrow().status())
                .isEqualTo(SlotStatus.CANCELLED);
        assertBalanced(t, s.slotId(), 0);
        assertThat(activeOccupations(t, ResourceKind.STUDENT)).isZero();
        assertThat(activeOccupations(t, ResourceKind.COACH)).isZero();
    }

    @Test
    void expireDueSweepsEachHoldOnce() throws Exception {
        TenantId t = tenant();
        Slot s = slot(t, "sweep", 6);
        schedule(s);
        for (int i = 0; i < 5; i++) {
            held(hold(s, "st" + i, T0, Duration.ofSeconds(10 + i)));
        }
        held(hold(s, "keeps", T0, HOUR));
        Instant now = T0.plusSeconds(60);
        ExecutorService pool = Executors.newFixedThreadPool(3);
        try {
            List<Future<List<Booking>>> sweeps = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                sweeps.add(pool.submit(() -> ledger.inTransaction(t, tx -> ledger.expireDue(tx, now, 2))));
            }
            List<BookingId> swept = new ArrayList<>();
            for (Future<List<Booking>> sweep : sweeps) {
                sweep.get(30, TimeUnit.SECONDS).forEach(b -> {
                    assertThat(b.status()).isEqualTo(BookingStatus.EXPIRED);
                    swept.add(b.bookingId());
                });
            }
            swept.addAll(ledger.inTransaction(t, tx -> ledger.expireDue(tx, now, 10)).stream()
                    .map(Booking::bookingId).toList());
            assertThat(swept).hasSize(5).doesNotHaveDuplicates();
        } finally {
            pool.shutdownNow();
        }
        assertBalanced(t, s.slotId(), 1);
    }

    @Test
    void slotsArePagedInIdOrder() {
        TenantId t = tenant();
        for (int i = 0; i < 5; i++) {
            schedule(slot(t, "page-" + i, TimeRange.of(T0.plus(Duration.ofDays(i)), HOUR), 1));
        }
        List<Slot> first = ledger.inTransaction(t, tx -> ledger.slots(tx, null, 3));
        List<Slot> rest = ledger.inTransaction(t, tx -> ledger.slots(tx, first.get(2).slotId(), 3));
        assertThat(first).extracting(x -> x.slotId().value()).containsExactly("page-0", "page-1", "page-2");
        assertThat(rest).extracting(x -> x.slotId().value()).containsExactly("page-3", "page-4");
    }

    // ------------------------------------------------------------------ conflicts

    @Test
    void overlapIsHalfOpenAndReleasedOccupationsDoNotCount() {
        TenantId t = tenant();
        CoachId coach = CoachId.of("c1");
        ResourceRef c = ResourceRef.of(coach);
        TimeRange nine = TimeRange.of(T0, HOUR);
        occupy(t, c, nine, "s9", null, true);
        assertThat(occupy(t, c, TimeRange.of(T0.plus(HOUR), HOUR), "s10", null, true)).isEmpty();
        assertThat(occupy(t, c, TimeRange.of(T0.minus(HOUR), HOUR), "s8", null, true)).isEmpty();
        List<ResourceConflict> clash = occupy(t, c, TimeRange.of(T0.plusSeconds(1800), HOUR), "x", null, false);
        assertThat(clash).extracting(ResourceConflict::slotId)
                .containsExactlyInAnyOrder(SlotId.of("s9"), SlotId.of("s10"));
        assertThat(clash.get(0).resource()).isEqualTo(c);
        assertThat(clash).extracting(ResourceConflict::time).contains(nine);
        assertThat(ledger.<Integer>inTransaction(t, tx -> conflicts.releaseSlot(tx, SlotId.of("s9")))).isEqualTo(1);
        assertThat(ledger.<Integer>inTransaction(t, tx -> conflicts.releaseSlot(tx, SlotId.of("s9")))).isZero();
        assertThat(occupy(t, c, TimeRange.of(T0.plusSeconds(1800), Duration.ofMinutes(30)), "y", null, true))
                .isEmpty();
        assertThat(overlappingOccupations(t)).isZero();
    }

    @Test
    void oneQueryCoversEveryResourceOfTheRequest() {
        TenantId t = tenant();
        TimeRange time = TimeRange.of(T0, HOUR);
        occupy(t, ResourceRef.of(RoomId.of("r1")), time, "a", null, true);
        occupy(t, ResourceRef.of(StudentId.of("st")), time, "b", BookingId.of("bk"), true);
        List<ResourceConflict> clash = ledger.inTransaction(t, tx -> conflicts.occupy(tx, new Occupation(
                List.of(ResourceRef.of(StudentId.of("st")), ResourceRef.of(CoachId.of("c9")),
                        ResourceRef.of(RoomId.of("r1"))), time, SlotId.of("c"), null), LONGEST));
        assertThat(clash).extracting(ResourceConflict::kind)
                .containsExactlyInAnyOrder(ResourceKind.ROOM, ResourceKind.STUDENT);
        assertThat(clash).filteredOn(x -> x.kind() == ResourceKind.STUDENT).first()
                .extracting(ResourceConflict::bookingId).isEqualTo(Optional.of(BookingId.of("bk")));
        assertThat(activeOccupations(t, ResourceKind.COACH)).isZero();
        assertThat(ledger.<Integer>inTransaction(t, tx -> conflicts.releaseBooking(tx, BookingId.of("bk")))).isEqualTo(1);
        assertThat(ledger.<Integer>inTransaction(t, tx -> conflicts.releaseBooking(tx, BookingId.of("bk")))).isZero();
    }

    List<ResourceConflict> occupy(TenantId t, ResourceRef resource, TimeRange time, String slot, BookingId booking,
                                  boolean expectFree) {
        List<ResourceConflict> clash = ledger.inTransaction(t, tx -> conflicts.occupy(tx,
                new Occupation(List.of(resource), time, SlotId.of(slot), booking), LONGEST));
        if (expectFree) {
            assertThat(clash).isEmpty();
        }
        return clash;
    }

    @Test
    void schedulingRaceGivesTheCoachOneSession() throws Exception {
        TenantId t = tenant();
        int threads = 12;
        List<Outcome> results = race(threads, i -> {
            Slot s = new Slot(t, SlotId.of("race-" + i), CoachId.of("busy-coach"), RoomId.of("room-" + i),
                    TimeRange.of(T0.plus(Duration.ofMinutes(i)), HOUR), 5, SlotStatus.OPEN);
            return ledger.inTransaction(t, tx -> {
                List<ResourceConflict> clash = conflicts.occupy(tx, new Occupation(
                        List.of(ResourceRef.of(s.coachId()), ResourceRef.of(s.roomId())), s.time(), s.slotId(),
                        null), LONGEST);
                if (!clash.isEmpty()) {
                    tx.setRollbackOnly();
                    return new Clash(clash);
                }
                ledger.insertSlot(tx, s);
                return new NoSeat();
            });
        });
        assertThat(results).filteredOn(r -> r instanceof Clash).hasSize(threads - 1);
        assertThat(count("SELECT COUNT(*) FROM " + db.table("slot") + " WHERE tenant_id = ?", t.value())).isEqualTo(1);
        assertThat(activeOccupations(t, ResourceKind.COACH)).isEqualTo(1);
        assertThat(overlappingOccupations(t)).isZero();
    }

    @Test
    void opposedLockOrdersDeadlockAndAreRetried() throws Exception {
        TenantId t = tenant();
        ResourceRef a = ResourceRef.of(StudentId.of("a"));
        ResourceRef b = ResourceRef.of(StudentId.of("b"));
        ledger.inTransaction(t, tx -> {
            conflicts.lock(tx, List.of(a, b));
            return null;
        });
        CyclicBarrier bothHoldOne = new CyclicBarrier(2);
        AtomicInteger attempts = new AtomicInteger();
        List<Outcome> results = race(2, i -> ledger.inTransaction(t, tx -> {
            int attempt = attempts.incrementAndGet();
            conflicts.lock(tx, List.of(i == 0 ? a : b));
            if (attempt <= 2) {
                await(bothHoldOne);
            }
            conflicts.lock(tx, List.of(i == 0 ? b : a));
            return new NoSeat();
        }));
        assertThat(results).hasSize(2);
        assertThat(attempts.get()).as("attempts of the two transactions").isGreaterThan(2);
    }

    static void await(CyclicBarrier barrier) {
        try {
            barrier.await(20, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    // ------------------------------------------------------------------ the race

    @Test
    void hundredThreadsRaceForTenSeats() throws Exception {
        TenantId t = tenant();
        Slot s = slot(t, "hot", 10);
        schedule(s);
        List<Outcome> results = race(100, i -> hold(s, "student-" + i, T0, HOUR));
        assertThat(results).filteredOn(r -> r instanceof Got).hasSize(10);
        assertBalanced(t, s.slotId(), 10);
        assertThat(count("SELECT COUNT(DISTINCT seat) FROM " + db.table("booking")
                + " WHERE tenant_id = ? AND status = 'HELD'", t.value())).isEqualTo(10);
        assertThat(activeOccupations(t, ResourceKind.STUDENT)).isEqualTo(10);
    }

    @Test
    void studentsRacingForOverlappingSlotsGetOneEach() throws Exception {
        TenantId t = tenant();
        Slot morning = slot(t, "morning", TimeRange.of(T0, HOUR), 20);
        Slot overlapping = slot(t, "overlapping", TimeRange.of(T0.plusSeconds(1800), HOUR), 20);
        schedule(morning);
        schedule(overlapping);
        int students = 20;
        List<Outcome> results = race(students * 2, i -> hold(i % 2 == 0 ? morning : overlapping,
                "student-" + (i / 2), T0, HOUR));
        assertThat(results).filteredOn(r -> r instanceof Got).hasSize(students);
        assertThat(results).filteredOn(r -> r instanceof Clash).hasSize(students);
        assertThat(activeBookings(t, morning.slotId()) + activeBookings(t, overlapping.slotId())).isEqualTo(students);
        assertThat(count("SELECT COUNT(DISTINCT student_id) FROM " + db.table("booking")
                + " WHERE tenant_id = ? AND status = 'HELD'", t.value())).isEqualTo(students);
        assertBalanced(t, morning.slotId(), activeBookings(t, morning.slotId()));
        assertBalanced(t, overlapping.slotId(), activeBookings(t, overlapping.slotId()));
    }

    interface Attempt {
        Outcome run(int index) throws Exception;
    }

    List<Outcome> race(int threads, Attempt attempt) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        CountDownLatch start = new CountDownLatch(1);
        try {
            List<Future<Outcome>> futures = new ArrayList<>();
            for (int i = 0; i < threads; i++) {
                int index = i;
                futures.add(pool.submit(() -> {
                    start.await();
                    return attempt.run(index);
                }));
            }
            start.countDown();
            List<Outcome> results = new ArrayList<>();
            for (Future<Outcome> f : futures) {
                results.add(f.get(60, TimeUnit.SECONDS));
            }
            return results;
        } finally {
            pool.shutdownNow();
        }
    }

    // ------------------------------------------------------------------ tenancy and input

    @Test
    void tenantsWithTheSameIdsNeverSeeEachOther() {
        TenantId one = tenant();
        TenantId two = tenant();
        Slot s1 = slot(one, "same-slot", 1);
        Slot s2 = slot(two, "same-slot", 1);
        schedule(s1);
        schedule(s2);
        BookingId sameBooking = BookingId.of("same-booking");
        RequestId sameRequest = RequestId.of("same-request");
        for (Slot s : List.of(s1, s2)) {
            SeatClaim claim = ledger.inTransaction(s.tenantId(), tx -> ledger.claimSeat(tx, new NewBooking(
                    sameBooking, sameRequest, s.slotId(), StudentId.of("same-student"), BookingStatus.HELD,
                    T0.plus(HOUR)), T0)).orElseThrow();
            assertThat(claim.booking().tenantId()).isEqualTo(s.tenantId());
        }
        assertThat(ledger.<Boolean>inTransaction(one, tx -> ledger.cancel(tx, sameBooking, T0))).isTrue();
        assertThat(ledger.<Optional<Booking>>inTransaction(two, tx -> ledger.findBooking(tx, sameBooking)).orElseThrow().status())
                .isEqualTo(BookingStatus.HELD);
        assertThat(ledger.<SeatCount>inTransaction(two, tx -> ledger.count(tx, s2.slotId(), T0))).isEqualTo(new SeatCount(1, 0));
        assertThat(ledger.<SeatCount>inTransaction(one, tx -> ledger.count(tx, s1.slotId(), T0))).isEqualTo(new SeatCount(0, 0));
        assertThat(ledger.<List<Slot>>inTransaction(one, tx -> ledger.slots(tx, null, 10))).containsExactly(s1);
        TenantId third = tenant();
        assertThat(ledger.<Optional<Booking>>inTransaction(third, tx -> ledger.findBooking(tx, sameBooking))).isEmpty();
        assertThat(ledger.<Optional<Slot>>inTransaction(third, tx -> ledger.findSlot(tx, s1.slotId()))).isEmpty();
        assertThat(ledger.<List<BookingId>>inTransaction(third, tx -> ledger.cancelSlot(tx, s1.slotId(), T0))).isEmpty();
    }

    @Test
    void quotesAndSemicolonsAreStoredAsPlainData() {
        TenantId t = TenantId.of("o'brien\"; DROP TABLE " + db.table("booking") + "; -- "
                + UUID.randomUUID().toString().substring(0, 8));
        String nasty = "x'); DELETE FROM " + db.table("slot_seat") + "; --";
        Slot s = new Slot(t, SlotId.of(nasty), CoachId.of("c'; --"), RoomId.of("r\"; /*"), TimeRange.of(T0, HOUR), 2,
                SlotStatus.OPEN);
        schedule(s);
        Booking b = held(hold(s, "st' OR '1'='1", RequestId.of("req';--"), T0, HOUR));
        assertThat(ledger.<Optional<Booking>>inTransaction(t, tx -> ledger.findByRequest(tx, RequestId.of("req';--")))).contains(b);
        assertThat(ledger.<Optional<Booking>>inTransaction(t, tx -> ledger.findActive(tx, SlotId.of(nasty), StudentId.of("st' OR '1'='1"))))
                .contains(b);
        assertThat(ledger.<Optional<Slot>>inTransaction(t, tx -> ledger.findSlot(tx, SlotId.of(nasty)))).contains(s);
        assertThat(count("SELECT COUNT(*) FROM " + db.table("booking") + " WHERE tenant_id = ? AND slot_id = ?",
                t.value(), nasty)).isEqualTo(1);
        assertThat(count("SELECT COUNT(*) FROM " + db.table("slot_seat") + " WHERE tenant_id = ?", t.value()))
                .isEqualTo(2);
        assertBalanced(t, s.slotId(), 1);
    }

    @Test
    void foreignTransactionsAndBadInputAreRefusedWithTheirName() {
        TenantId t = tenant();
        JdbcStore other = db.store();
        assertThatThrownBy(() -> ledger.inTransaction(t, tx -> other.ledger().findSlot(tx, SlotId.of("x"))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("tx");
        assertThatThrownBy(() -> ledger.inTransaction(t, tx -> {
            other.conflicts().lock(tx, List.of(ResourceRef.of(CoachId.of("c"))));
            return null;
        })).isInstanceOf(IllegalArgumentException.class);
        StoreTransaction fake = new StoreTransaction() {
            @Override
            public TenantId tenantId() {
                return t;
            }

            @Override
            public void setRollbackOnly() {
            }

            @Override
            public boolean isRollbackOnly() {
                return false;
            }
        };
        assertThatThrownBy(() -> ledger.findSlot(fake, SlotId.of("x"))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ledger.inTransaction(t, tx -> ledger.claimSeat(tx, null, T0)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("booking");
        assertThatThrownBy(() -> ledger.inTransaction(t, tx -> ledger.slots(tx, null, 0)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("limit");
        assertThatThrownBy(() -> ledger.inTransaction(t, tx -> conflicts.occupy(tx, new Occupation(
                List.of(ResourceRef.of(CoachId.of("c"))), TimeRange.of(T0, HOUR), SlotId.of("s"), null), Duration.ZERO)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("longestSession");
        assertThatThrownBy(() -> ledger.inTransaction(null, tx -> null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("tenantId");
        assertThatThrownBy(() -> JdbcStore.builder(db.dataSource()).tablePrefix("x; drop"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("tablePrefix");
        StoreTransaction[] leaked = new StoreTransaction[1];
        ledger.inTransaction(t, tx -> leaked[0] = tx);
        assertThatThrownBy(() -> ledger.findSlot(leaked[0], SlotId.of("x"))).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void aMissingTableIsAStoreExceptionNotARawSqlException() {
        JdbcStore broken = JdbcStore.builder(db.dataSource()).tablePrefix("missing_").build();
        assertThatThrownBy(() -> broken.ledger().inTransaction(tenant(),
                tx -> broken.ledger().findSlot(tx, SlotId.of("s"))))
                .isExactlyInstanceOf(BookingStoreException.class).hasMessageContaining("read slot s");
    }

    @Test
    void retriesRunOutIntoAPlainStoreException() {
        JdbcStore strict = JdbcStore.builder(db.dataSource()).tablePrefix(db.prefix()).maxRetries(2).build();
        AtomicInteger attempts = new AtomicInteger();
        assertThatThrownBy(() -> strict.ledger().inTransaction(tenant(), tx -> {
            attempts.incrementAndGet();
            throw new org.slotbook.jdbc.internal.SqlErrors.TransientStoreException("simulated deadlock", null);
        })).isExactlyInstanceOf(BookingStoreException.class).hasMessageContaining("gave up after 3 attempts");
        assertThat(attempts).hasValue(3);
        assertThatThrownBy(() -> JdbcStore.builder(db.dataSource()).maxRetries(-1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxRetries");
    }

    @Test
    void occupationsOfOneTenantNeverClashWithAnother() {
        TenantId one = tenant();
        TenantId two = tenant();
        ResourceRef coach = ResourceRef.of(CoachId.of("shared-name"));
        TimeRange time = TimeRange.of(T0, HOUR);
        occupy(one, coach, time, "s", null, true);
        occupy(two, coach, time, "s", null, true);
        assertThat(occupy(one, coach, time, "s2", null, false)).hasSize(1);
        assertThat(ledger.<Integer>inTransaction(two, tx -> conflicts.releaseSlot(tx, SlotId.of("s")))).isEqualTo(1);
        assertThat(activeOccupations(one, ResourceKind.COACH)).isEqualTo(1);
    }

    // ------------------------------------------------------------------ a killed connection

    @Test
    void aConnectionKilledMidHoldLeavesNothingHalfTaken() {
        org.junit.jupiter.api.Assumptions.assumeTrue(connectionIdQuery() != null, "killing connections is tested on servers");
        TenantId t = tenant();
        Slot s = slot(t, "crash", 2);
        schedule(s);
        BookingId bookingId = BookingId.random();
        assertThatThrownBy(() -> ledger.inTransaction(t, tx -> {
            long id = ((JdbcTx) tx).handle().createQuery(connectionIdQuery()).mapTo(Long.class).one();
            conflicts.occupy(tx, new Occupation(List.of(ResourceRef.of(StudentId.of("victim"))), s.time(), s.slotId(),
                    bookingId), LONGEST);
            ledger.claimSeat(tx, new NewBooking(bookingId, RequestId.random(), s.slotId(), StudentId.of("victim"),
                    BookingStatus.HELD, T0.plus(HOUR)), T0).orElseThrow();
            kill(id);
            return ledger.confirm(tx, bookingId, T0);
        })).isInstanceOf(BookingStoreException.class);
        assertBalanced(t, s.slotId(), 0);
        assertThat(activeOccupations(t, ResourceKind.STUDENT)).isZero();
        // the pool recovers and the student can book
        held(hold(s, "victim", T0, HOUR));
        assertBalanced(t, s.slotId(), 1);
    }
}
