package org.slotbook.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.slotbook.core.Availability;
import org.slotbook.core.Booking;
import org.slotbook.core.BookingId;
import org.slotbook.core.BookingStatus;
import org.slotbook.core.BookingStoreException;
import org.slotbook.core.Cancelled;
import org.slotbook.core.CoachId;
import org.slotbook.core.Conflict;
import org.slotbook.core.Full;
import org.slotbook.core.Held;
import org.slotbook.core.HoldRequest;
import org.slotbook.core.HoldResult;
import org.slotbook.core.RequestId;
import org.slotbook.core.ResourceKind;
import org.slotbook.core.RoomId;
import org.slotbook.core.Scheduled;
import org.slotbook.core.Slot;
import org.slotbook.core.SlotId;
import org.slotbook.core.SlotStatus;
import org.slotbook.core.StudentId;
import org.slotbook.core.TenantId;
import org.slotbook.core.TimeRange;
import org.slotbook.core.spi.HoldCommand;
import org.slotbook.core.tck.Concurrent;
import org.slotbook.jdbc.testing.TestDatabases.TestDatabase;

/**
 * What the JDBC store must show on each database beyond the store contract: invariants read back
 * with SQL after races, instants, tenancy and hostile ids stored as data, failures that surface as
 * {@link BookingStoreException}, and a connection killed in the middle of a decision.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class JdbcStoreTests {
    static final Instant T0 = Instant.parse("2030-03-10T09:00:00.123456Z");
    static final Duration HOUR = Duration.ofHours(1);
    static final Duration LONGEST = Duration.ofHours(24);

    TestDatabase db;
    JdbcStore store;
    Jdbi sql;

    protected abstract TestDatabase openDatabase();

    /** SQL listing the server ids of connections blocked in a hold call, or null when killing is not tested. */
    protected String blockedHoldQuery() {
        return null;
    }

    /**
     * SQL that takes a student's lock in the caller's transaction, as the routines take it: an advisory
     * lock on PostgreSQL, the student's lock row elsewhere.
     */
    protected String lockStudent(TenantId t, String student) {
        return db.dialect() == JdbcDialect.POSTGRESQL
                ? "SELECT " + db.prefix() + "lock_student('" + t.value() + "', '" + student + "')"
                : "INSERT INTO " + db.table("resource_lock") + " (tenant_id, resource_kind, resource_id)"
                        + " VALUES ('" + t.value() + "', 'STUDENT', '" + student + "')";
    }

    /** Kills the server connection {@code id} from another connection. */
    protected void kill(long id) {
        throw new UnsupportedOperationException();
    }

    @BeforeAll
    void openStore() {
        db = openDatabase();
        store = db.store();
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
        assertThat(store.schedule(slot.tenantId(), slot, LONGEST, java.time.ZoneOffset.UTC)).isInstanceOf(Scheduled.class);
    }

    HoldResult hold(Slot slot, String student, Instant now) {
        return hold(slot, student, RequestId.random(), now);
    }

    HoldResult hold(Slot slot, String student, RequestId request, Instant now) {
        return store.hold(slot.tenantId(), new HoldCommand(BookingId.random(),
                HoldRequest.of(request, slot.slotId(), StudentId.of(student)), BookingStatus.HELD, now, HOUR, LONGEST,
                false)).result();
    }

    static Booking held(HoldResult result) {
        assertThat(result).isInstanceOf(Held.class);
        return ((Held) result).booking();
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
        Slot s = slot(t, "precise", TimeRange.of(T0, Duration.ofMinutes(45)), 3);
        schedule(s);
        Booking b = held(hold(s, "ana", T0.minusSeconds(60)));
        assertThat(store.slots(t, null, 10)).containsExactly(s);
        Booking read = store.findBooking(t, b.bookingId()).orElseThrow();
        assertThat(read).isEqualTo(b);
        assertThat(read.heldUntil()).isEqualTo(T0.minusSeconds(60).plus(HOUR));
        assertThat(read.createdAt()).isEqualTo(T0.minusSeconds(60));
    }

    @Test
    void hundredThreadsRaceForTenSeats() throws Exception {
        TenantId t = tenant();
        Slot s = slot(t, "hot", 10);
        schedule(s);
        List<HoldResult> results = Concurrent.run(100, i -> hold(s, "student-" + i, T0.minusSeconds(60)));
        assertThat(results).filteredOn(r -> r instanceof Held).hasSize(10);
        assertBalanced(t, s.slotId(), 10);
        assertThat(count("SELECT COUNT(DISTINCT seat) FROM " + db.table("booking")
                + " WHERE tenant_id = ? AND status = 'HELD'", t.value())).isEqualTo(10);
        assertThat(activeOccupations(t, ResourceKind.STUDENT)).isEqualTo(10);
    }

    /**
     * A store built on the host's Jdbi takes its connections through Jdbi handles (one built on a
     * DataSource takes them from the DataSource directly): the same race, read back from the tables.
     */
    @Test
    void aStoreBuiltOnAJdbiDecidesAsOneBuiltOnItsDataSource() throws Exception {
        JdbcStore onJdbi = JdbiStores.builder(Jdbi.create(db.dataSource())).tablePrefix(db.prefix()).build();
        TenantId t = tenant();
        Slot s = slot(t, "jdbi", 5);
        assertThat(onJdbi.schedule(t, s, LONGEST, java.time.ZoneOffset.UTC)).isInstanceOf(Scheduled.class);
        List<HoldResult> results = Concurrent.run(30, i -> onJdbi.hold(t, new HoldCommand(BookingId.random(),
                HoldRequest.of(RequestId.random(), s.slotId(), StudentId.of("student-" + i)), BookingStatus.HELD,
                T0.minusSeconds(60), HOUR, LONGEST, false)).result());
        assertThat(results).filteredOn(r -> r instanceof Held).hasSize(5);
        assertThat(results).filteredOn(r -> r instanceof Full).hasSize(25);
        assertBalanced(t, s.slotId(), 5);
        assertThat(activeOccupations(t, ResourceKind.STUDENT)).isEqualTo(5);
        Booking first = ((Held) results.stream().filter(r -> r instanceof Held).findFirst().orElseThrow()).booking();
        assertThat(store.findBooking(t, first.bookingId())).contains(first);
    }

    @Test
    void studentsRacingForOverlappingSlotsGetOneEach() throws Exception {
        TenantId t = tenant();
        Slot morning = slot(t, "morning", TimeRange.of(T0, HOUR), 20);
        Slot overlapping = slot(t, "overlapping", TimeRange.of(T0.plusSeconds(1800), HOUR), 20);
        schedule(morning);
        schedule(overlapping);
        int students = 20;
        List<HoldResult> results = Concurrent.run(students * 2, i -> hold(i % 2 == 0 ? morning : overlapping,
                "student-" + (i / 2), T0.minusSeconds(60)));
        assertThat(results).filteredOn(r -> r instanceof Held).hasSize(students);
        assertThat(results).filteredOn(r -> r instanceof Conflict).hasSize(students);
        assertThat(activeBookings(t, morning.slotId()) + activeBookings(t, overlapping.slotId())).isEqualTo(students);
        assertThat(count("SELECT COUNT(DISTINCT student_id) FROM " + db.table("booking")
                + " WHERE tenant_id = ? AND status = 'HELD'", t.value())).isEqualTo(students);
        assertBalanced(t, morning.slotId(), activeBookings(t, morning.slotId()));
        assertBalanced(t, overlapping.slotId(), activeBookings(t, overlapping.slotId()));
    }

    /**
     * Rounds of {@link #manyStudentsRacingForOverlappingSlotsNeverHoldTwo}; raise it with
     * {@code -Dslotbook.test.overlapRounds=N} to hunt a rare interleaving.
     */
    static final int OVERLAP_ROUNDS = Integer.getInteger("slotbook.test.overlapRounds", 25);

    @Test
    void manyStudentsRacingForOverlappingSlotsNeverHoldTwo() throws Exception {
        int students = 24;
        for (int round = 1; round <= OVERLAP_ROUNDS; round++) {
            // a fresh tenant each round: no student has a lock row yet, so the first holds create it
            TenantId t = tenant();
            List<Slot> slots = List.of(
                    slot(t, "early", TimeRange.of(T0, HOUR), students),
                    slot(t, "middle", TimeRange.of(T0.plusSeconds(900), HOUR), students),
                    slot(t, "late", TimeRange.of(T0.plusSeconds(1800), HOUR), students));
            slots.forEach(this::schedule);
            int n = slots.size();
            // a student's holds are submitted next to each other, so they tend to meet on the pool
            List<HoldResult> results = Concurrent.run(students * n,
                    i -> hold(slots.get(i % n), "student-" + (i / n), T0.minusSeconds(60)));
            String active = " FROM " + db.table("booking") + " WHERE tenant_id = ? AND status IN ('HELD', 'CONFIRMED')";
            List<String> doubled = sql.withHandle(h -> h.createQuery("SELECT student_id" + active
                            + " GROUP BY student_id HAVING COUNT(*) > 1 ORDER BY student_id")
                    .bind(0, t.value()).mapTo(String.class).list());
            assertThat(doubled).as("round %d: students with two active bookings of overlapping slots", round)
                    .isEmpty();
            assertThat(count("SELECT COUNT(DISTINCT student_id)" + active, t.value()))
                    .as("round %d: students with a booking", round).isEqualTo(students);
            assertThat(activeOccupations(t, ResourceKind.STUDENT)).as("round %d: student occupations", round)
                    .isEqualTo(students);
            assertThat(overlappingOccupations(t)).as("round %d: overlapping active occupations", round).isZero();
            assertThat(results).as("round %d", round).filteredOn(r -> r instanceof Held).hasSize(students);
            assertThat(results).as("round %d", round).filteredOn(r -> r instanceof Conflict)
                    .hasSize(students * (n - 1));
            for (Slot s : slots) {
                assertBalanced(t, s.slotId(), activeBookings(t, s.slotId()));
            }
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
        RequestId sameRequest = RequestId.of("same-request");
        Booking b1 = held(hold(s1, "same-student", sameRequest, T0.minusSeconds(60)));
        Booking b2 = held(hold(s2, "same-student", sameRequest, T0.minusSeconds(60)));
        assertThat(b1.tenantId()).isEqualTo(one);
        assertThat(b2.tenantId()).isEqualTo(two);
        assertThat(store.cancel(one, b1.bookingId(), StudentId.of("same-student"), T0.minusSeconds(30), org.slotbook.core.spi.Terms.defaults()).result())
                .isInstanceOf(Cancelled.class);
        assertThat(store.findBooking(two, b2.bookingId()).orElseThrow().status()).isEqualTo(BookingStatus.HELD);
        assertThat(store.availability(two, s2.slotId(), T0.minusSeconds(30)).orElseThrow().held()).isEqualTo(1);
        assertThat(store.availability(one, s1.slotId(), T0.minusSeconds(30)).orElseThrow().remaining()).isEqualTo(1);
        assertThat(store.slots(one, null, 10)).containsExactly(s1);
        TenantId third = tenant();
        assertThat(store.findBooking(third, b1.bookingId())).isEmpty();
        assertThat(store.findByRequest(third, sameRequest)).isEmpty();
        assertThat(store.availability(third, s1.slotId(), T0)).isEmpty();
        assertThat(store.cancel(third, b2.bookingId(), StudentId.of("same-student"), T0, org.slotbook.core.spi.Terms.defaults()).result())
                .isInstanceOf(org.slotbook.core.NotFound.class);
        assertThat(store.findBooking(two, b2.bookingId()).orElseThrow().status()).isEqualTo(BookingStatus.HELD);
    }

    @Test
    void quotesAndSemicolonsAreStoredAsPlainData() {
        TenantId t = TenantId.of("o'brien\"; DROP TABLE " + db.table("booking") + "; -- "
                + UUID.randomUUID().toString().substring(0, 8));
        String nasty = "x'); DELETE FROM " + db.table("slot_seat") + "; --";
        Slot s = new Slot(t, SlotId.of(nasty), CoachId.of("c'; --"), RoomId.of("r\"; /*"), TimeRange.of(T0, HOUR), 2,
                SlotStatus.OPEN);
        schedule(s);
        Booking b = held(hold(s, "st' OR '1'='1", RequestId.of("req';--"), T0.minusSeconds(60)));
        assertThat(store.findByRequest(t, RequestId.of("req';--"))).contains(b);
        assertThat(store.liveSlot(t, SlotId.of(nasty), T0.minusSeconds(30)).orElseThrow().live()).containsExactly(b);
        assertThat(store.slots(t, null, 5)).containsExactly(s);
        assertThat(count("SELECT COUNT(*) FROM " + db.table("booking") + " WHERE tenant_id = ? AND slot_id = ?",
                t.value(), nasty)).isEqualTo(1);
        assertThat(count("SELECT COUNT(*) FROM " + db.table("slot_seat") + " WHERE tenant_id = ?", t.value()))
                .isEqualTo(2);
        assertBalanced(t, s.slotId(), 1);
    }

    @Test
    void aTenantWithALoneSurrogateIsRefusedSoItCannotCollideWithAQuestionMark() {
        String base = "acme-" + UUID.randomUUID().toString().substring(0, 8);
        // PostgreSQL would store base + "\uD800" as base + "?", MariaDB would drop the surrogate
        assertThatThrownBy(() -> TenantId.of(base + "\uD800")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("tenantId").hasMessageContaining("\\uD800");
        assertThatThrownBy(() -> TenantId.of(base + "\uDC00")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("tenantId");
        assertThatThrownBy(() -> StudentId.of("sam\uD800")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("studentId");
        // the tenant whose id really has a question mark keeps its own data
        TenantId question = TenantId.of(base + "?");
        Slot s = slot(question, "yoga", 2);
        schedule(s);
        Booking b = held(hold(s, "sam", T0.minusSeconds(60)));
        assertThat(store.slots(question, null, 10)).containsExactly(s);
        assertThat(store.findBooking(question, b.bookingId()).orElseThrow().tenantId()).isEqualTo(question);
        // a well-formed pair (one character outside the BMP) round-trips as itself
        TenantId emoji = TenantId.of(base + "\uD83D\uDE00");
        Slot e = slot(emoji, "yoga", 2);
        schedule(e);
        assertThat(store.slots(emoji, null, 10)).containsExactly(e);
        assertThat(store.slots(question, null, 10)).containsExactly(s);
        assertThat(count("SELECT COUNT(*) FROM " + db.table("slot") + " WHERE tenant_id = ?", question.value()))
                .isEqualTo(1);
    }

    @Test
    void badInputIsRefusedWithItsName() {
        TenantId t = tenant();
        assertThatThrownBy(() -> store.hold(null, null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("tenantId");
        assertThatThrownBy(() -> store.hold(t, null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("command");
        assertThatThrownBy(() -> store.slots(t, null, 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("limit");
        assertThatThrownBy(() -> store.expireDue(t, T0, 0, org.slotbook.core.spi.Terms.defaults())).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("limit");
        assertThatThrownBy(() -> store.cancel(t, null, StudentId.of("s"), T0, org.slotbook.core.spi.Terms.defaults()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("bookingId");
        assertThatThrownBy(() -> JdbcStore.builder(db.dataSource()).tablePrefix("x; drop"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("tablePrefix");
        assertThatThrownBy(() -> JdbcStore.builder(db.dataSource()).maxRetries(-1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxRetries");
    }

    @Test
    void aMissingTableOrRoutineIsAStoreExceptionNotARawSqlException() {
        JdbcStore broken = JdbcStore.builder(db.dataSource()).tablePrefix("missing_").build();
        assertThatThrownBy(() -> broken.findBooking(tenant(), BookingId.of("b")))
                .isExactlyInstanceOf(BookingStoreException.class).hasMessageContaining("read booking b");
        Slot s = slot(tenant(), "s", 1);
        assertThatThrownBy(() -> broken.schedule(s.tenantId(), s, LONGEST, java.time.ZoneOffset.UTC))
                .isExactlyInstanceOf(BookingStoreException.class).hasMessageContaining("schedule slot s");
    }

    @Test
    void occupationsOfOneTenantNeverClashWithAnother() {
        TenantId one = tenant();
        TenantId two = tenant();
        TimeRange time = TimeRange.of(T0, HOUR);
        Slot a = new Slot(one, SlotId.of("a"), CoachId.of("shared-name"), RoomId.of("r1"), time, 1, SlotStatus.OPEN);
        Slot b = new Slot(two, SlotId.of("b"), CoachId.of("shared-name"), RoomId.of("r1"), time, 1, SlotStatus.OPEN);
        schedule(a);
        schedule(b);
        Slot again = new Slot(one, SlotId.of("a2"), CoachId.of("shared-name"), RoomId.of("r2"), time, 1,
                SlotStatus.OPEN);
        assertThat(store.schedule(one, again, LONGEST, java.time.ZoneOffset.UTC)).isInstanceOf(Conflict.class);
        assertThat(store.cancelSlot(two, SlotId.of("b"), T0.minusSeconds(60)).result())
                .isInstanceOf(org.slotbook.core.SlotCancelled.class);
        assertThat(activeOccupations(one, ResourceKind.COACH)).isEqualTo(1);
        assertThat(activeOccupations(two, ResourceKind.COACH)).isZero();
    }

    // ------------------------------------------------------------------ what a failure says

    @Test
    void retriesThatRunOutAreRetryableAndChangedNothing() throws Exception {
        TenantId t = tenant();
        Slot s = slot(t, "locked", 2);
        schedule(s);
        held(hold(s, "warm-up", T0.minusSeconds(60)));
        HikariConfig config = new HikariConfig();
        if (db.dataSource().getJdbcUrl() != null) {
            config.setJdbcUrl(db.dataSource().getJdbcUrl());
        } else {
            config.setDataSource(db.dataSource().getDataSource());
        }
        config.setMaximumPoolSize(2);
        config.setPoolName("slotbook-impatient");
        config.setTransactionIsolation("TRANSACTION_READ_COMMITTED");
        // every lock wait times out fast: a lock wait timeout is retried like a deadlock
        config.setConnectionInitSql(switch (db.dialect()) {
            case POSTGRESQL -> "SET lock_timeout = '300ms'";
            case MARIADB -> "SET SESSION innodb_lock_wait_timeout = 1";
            case H2 -> "SET LOCK_TIMEOUT 300";
        });
        try (HikariDataSource impatientPool = new HikariDataSource(config);
             Connection blocker = db.dataSource().getConnection(); Statement st = blocker.createStatement()) {
            JdbcStore impatient = JdbcStore.builder(impatientPool).tablePrefix(db.prefix()).maxRetries(1).build();
            blocker.setAutoCommit(false);
            st.execute(lockStudent(t, "waiting"));
            HoldCommand waiting = new HoldCommand(BookingId.random(),
                    HoldRequest.of(RequestId.random(), s.slotId(), StudentId.of("waiting")), BookingStatus.HELD,
                    T0.minusSeconds(60), HOUR, LONGEST, false);
            BookingStoreException failure = catchThrowableOfType(BookingStoreException.class,
                    () -> impatient.hold(t, waiting));
            blocker.rollback();
            assertThat(failure).as("the hold gave up").isNotNull();
            assertThat(failure).hasMessageContaining("gave up after 2 attempts");
            assertThat(failure.retryable()).as("retryable: " + failure).isTrue();
            assertThat(failure.outcomeUnknown()).as("rolled back: " + failure).isFalse();
        }
        assertBalanced(t, s.slotId(), 1);
        held(hold(s, "waiting", T0.minusSeconds(60)));
    }

    @Test
    void aStatementTheDatabaseRefusesIsNeitherRetryableNorUnknown() {
        JdbcStore broken = JdbcStore.builder(db.dataSource()).tablePrefix("missing_").build();
        BookingStoreException failure = catchThrowableOfType(BookingStoreException.class,
                () -> broken.findBooking(tenant(), BookingId.of("b")));
        assertThat(failure.retryable()).as(failure.toString()).isFalse();
        assertThat(failure.outcomeUnknown()).as(failure.toString()).isFalse();
    }

    // ------------------------------------------------------------------ a killed connection

    @Test
    void aConnectionKilledMidHoldLeavesNothingHalfTaken() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(blockedHoldQuery() != null,
                "killing connections is tested on servers");
        TenantId t = tenant();
        Slot s = slot(t, "crash", 2);
        schedule(s);
        held(hold(s, "warm-up", T0.minusSeconds(60))); // the student lock table has rows; the victim's is new
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try (Connection blocker = db.dataSource().getConnection(); Statement st = blocker.createStatement()) {
            blocker.setAutoCommit(false);
            // hold the victim's lock row, so the hold call waits inside the routine
            st.execute(lockStudent(t, "victim"));
            Future<HoldResult> victim = pool.submit(() -> hold(s, "victim", T0.minusSeconds(60)));
            long id = -1;
            for (int i = 0; i < 200 && id < 0; i++) {
                Thread.sleep(25);
                List<Long> ids = sql.withHandle(h -> h.createQuery(blockedHoldQuery()).mapTo(Long.class).list());
                id = ids.isEmpty() ? -1 : ids.get(0);
            }
            assertThat(id).as("server id of the blocked hold").isPositive();
            kill(id);
            blocker.rollback();
            assertThatThrownBy(() -> victim.get(30, TimeUnit.SECONDS)).hasCauseInstanceOf(BookingStoreException.class)
                    .satisfies(e -> {
                        BookingStoreException failure = (BookingStoreException) e.getCause();
                        assertThat(failure.outcomeUnknown()).as("sent, then the connection died: " + failure)
                                .isTrue();
                        assertThat(failure.retryable()).isTrue();
                    });
        } finally {
            pool.shutdownNow();
        }
        assertBalanced(t, s.slotId(), 1);
        assertThat(activeOccupations(t, ResourceKind.STUDENT)).isEqualTo(1);
        // the pool recovers and the student can book
        held(hold(s, "victim", T0.minusSeconds(60)));
        assertBalanced(t, s.slotId(), 2);
        Availability seats = store.availability(t, s.slotId(), T0.minusSeconds(30)).orElseThrow();
        assertThat(seats.remaining()).isZero();
    }

    // ------------------------------------------------------------------ one clock: the database's

    /** Records the {@code now} the engine passes with every hold, confirm and cancel. */
    static final class NowRecorder extends org.slotbook.core.tck.ForwardingStore {
        final List<Instant> seen = java.util.Collections.synchronizedList(new ArrayList<>());

        NowRecorder(org.slotbook.core.spi.BookingStore delegate) {
            super(delegate);
        }

        @Override
        public org.slotbook.core.spi.StoreOutcome<HoldResult> hold(TenantId tenantId, HoldCommand command) {
            seen.add(command.now());
            return super.hold(tenantId, command);
        }

        @Override
        public org.slotbook.core.spi.StoreOutcome<org.slotbook.core.ConfirmResult> confirm(TenantId t, BookingId b,
                StudentId s, Instant now, org.slotbook.core.spi.Terms terms) {
            seen.add(now);
            return super.confirm(t, b, s, now, terms);
        }
    }

    /**
     * A sale opens by the database's clock: an engine without an explicit clock (and so without
     * telling the database the time) is refused before {@code opensAt} and sells after it, with every
     * request of the early flood answered by the store without a row written.
     */
    @Test
    void aSaleOpensByTheDatabaseClock() throws Exception {
        TenantId t = tenant();
        Instant opensAt = Instant.now().plusMillis(1500).truncatedTo(java.time.temporal.ChronoUnit.MILLIS);
        Slot s = new Slot(t, SlotId.of("opens-soon"), CoachId.of("c"), RoomId.of("r"), TimeRange.of(T0, HOUR), 3,
                SlotStatus.OPEN, opensAt, null, Duration.ZERO, null);
        schedule(s);
        org.slotbook.core.BookingEngine engine = org.slotbook.core.BookingEngine.builder().store(store).build();
        List<HoldResult> early = Concurrent.run(20, i -> engine.hold(t,
                HoldRequest.of(RequestId.random(), s.slotId(), StudentId.of("early-" + i))));
        assertThat(early).containsOnly(new org.slotbook.core.NotOpenYet(s.slotId(), opensAt));
        assertThat(count("SELECT COUNT(*) FROM " + db.table("booking") + " WHERE tenant_id = ?", t.value())).isZero();
        Thread.sleep(Math.max(0, Duration.between(Instant.now(), opensAt).toMillis()) + 300);
        held(engine.hold(t, HoldRequest.of(RequestId.random(), s.slotId(), StudentId.of("on-time"))));
        assertThat(count("SELECT COUNT(*) FROM " + db.table("booking") + " WHERE tenant_id = ? AND status = 'HELD'",
                t.value())).isEqualTo(1);
    }

    /**
     * Two engines, as on two app nodes, built without an explicit clock: neither passes its time to
     * the database, which judges the hold's deadline by its own clock. Ann's confirm shortly before
     * her deadline succeeds, the other node cannot take her seat before it, and takes it over after.
     */
    @Test
    void deadlinesAreJudgedByTheDatabaseClockNotTheNodes() throws Exception {
        TenantId t = tenant();
        Slot s = slot(t, "one-clock", 1);
        schedule(s);
        NowRecorder recorder = new NowRecorder(store);
        org.slotbook.core.HoldPolicy policy = org.slotbook.core.HoldPolicy.ofDefaults()
                .withHoldTtl(Duration.ofMillis(1500)).withCacheGrace(Duration.ZERO);
        org.slotbook.core.BookingEngine nodeA = org.slotbook.core.BookingEngine.builder().store(recorder)
                .holdPolicy(policy).build();
        org.slotbook.core.BookingEngine nodeB = org.slotbook.core.BookingEngine.builder().store(recorder)
                .holdPolicy(policy).build();
        Slot other = slot(t, "one-clock-2", TimeRange.of(T0.plus(Duration.ofHours(2)), HOUR), 1);
        schedule(other);
        Booking ann = held(nodeA.hold(t, HoldRequest.of(RequestId.random(), s.slotId(), StudentId.of("ann"))));
        Booking dee = held(nodeA.hold(t, HoldRequest.of(RequestId.random(), other.slotId(), StudentId.of("dee"))));
        Thread.sleep(700);
        assertThat(nodeB.hold(t, HoldRequest.of(RequestId.random(), s.slotId(), StudentId.of("bob"))))
                .as("before Ann's deadline by the database's clock").isInstanceOf(org.slotbook.core.Full.class);
        assertThat(nodeB.confirm(t, dee.bookingId(), dee.studentId()))
                .as("a confirm before the deadline, on the other node").isInstanceOf(org.slotbook.core.Confirmed.class);
        Thread.sleep(1200);
        held(nodeB.hold(t, HoldRequest.of(RequestId.random(), s.slotId(), StudentId.of("cy"))));
        assertThat(nodeA.confirm(t, ann.bookingId(), ann.studentId()))
                .as("a confirm after the deadline").isInstanceOf(org.slotbook.core.HoldExpired.class);
        assertThat(recorder.seen).as("the nodes never told the database what time it is")
                .isNotEmpty().containsOnlyNulls();
        assertThat(store.findBooking(t, ann.bookingId()).orElseThrow().status()).isEqualTo(BookingStatus.EXPIRED);
        assertBalanced(t, s.slotId(), 1);
    }
}
