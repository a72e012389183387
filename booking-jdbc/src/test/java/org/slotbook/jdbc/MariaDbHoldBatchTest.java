package org.slotbook.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.slotbook.core.BookingId;
import org.slotbook.core.BookingStatus;
import org.slotbook.core.Held;
import org.slotbook.core.HoldRequest;
import org.slotbook.core.HoldResult;
import org.slotbook.core.RequestId;
import org.slotbook.core.Scheduled;
import org.slotbook.core.Slot;
import org.slotbook.core.StudentId;
import org.slotbook.core.spi.HoldCommand;
import org.slotbook.core.TenantId;
import org.slotbook.jdbc.testing.TestDatabases;
import org.slotbook.jdbc.testing.TestDatabases.TestDatabase;

/** MariaDB's combined holds: the tests of {@link HoldBatchTests}, through the procedure {@code hold_batch}. */
class MariaDbHoldBatchTest extends HoldBatchTests {

    @Override
    protected TestDatabase openDatabase() {
        return TestDatabases.mariadb();
    }

    private static String record(String tenant, String booking, String request, String slot, String student) {
        char f = '\u001f';
        return String.join(String.valueOf(f), booking, request, slot, student, "HELD", "", "3600000000",
                "86400000000", "0", "0", "0", "0", "0", "AT_BOOKING", tenant);
    }

    @Override
    protected List<String> callBatch(Connection caller, TenantId tenant) throws SQLException {
        String records = record(tenant.value(), "b1", "r1", "locked", "st-a") + '\u001e'
                + record(tenant.value(), "b2", "r2", "open", "st-b");
        try (var ps = caller.prepareStatement("CALL " + db.prefix() + "hold_batch(?)")) {
            ps.setString(1, records);
            return rowsOf(ps);
        }
    }

    /** A seat taken plainly is one TAKEN row, which the store spells out as the booking and its event. */
    @Override
    protected List<String> retryThenTaken() {
        return List.of("1:RETRY", "2:TAKEN");
    }

    @Override
    protected void lockStudent(Connection connection, TenantId tenant, String student) throws SQLException {
        try (var ps = connection.prepareStatement("INSERT INTO " + db.table("resource_lock")
                + " (tenant_id, resource_kind, resource_id) VALUES (?, 'STUDENT', ?)"
                + " ON DUPLICATE KEY UPDATE resource_id = resource_id")) {
            ps.setString(1, tenant.value());
            ps.setString(2, student);
            ps.executeUpdate();
        }
    }

    /**
     * MariaDB shows the statement a procedure waits in, not the call: any waiting statement on these tables.
     * INNODB_TRX is refreshed only when it was not read for 0.1 s, so it is read 150 ms after each read.
     */
    @Override
    protected long blockedCall(String routine) throws InterruptedException {
        for (int i = 0; i < 34; i++) {
            Thread.sleep(150);
            List<Long> ids = sql.withHandle(h -> h.createQuery("SELECT t.trx_mysql_thread_id"
                    + " FROM information_schema.INNODB_TRX t JOIN information_schema.PROCESSLIST p"
                    + " ON p.ID = t.trx_mysql_thread_id WHERE t.trx_state = 'LOCK WAIT' AND p.INFO LIKE :q"
                    + " AND p.ID <> CONNECTION_ID()")
                    .bind("q", "%" + db.prefix() + "%").mapTo(Long.class).list());
            if (!ids.isEmpty()) {
                return ids.get(0);
            }
        }
        return -1;
    }

    @Override
    protected void kill(long connection) {
        sql.useHandle(h -> h.execute("KILL CONNECTION " + connection));
    }

    /**
     * The student check comes before capacity, and the booking an AlreadyBooked names is the one decided
     * on. Slot f has one seat, st-a holds it; st-a asks again under a new request while a cancel of his
     * booking is written and not yet committed (the booking CANCELLED, the seat FREE, in an open
     * transaction). The hold finds the slot full and his booking live, waits for the row, and the cancel
     * commits: the hold is then decided as after it (the freed seat), never answered AlreadyBooked with
     * a booking that is already CANCELLED.
     */
    @Test
    void aHoldWhileTheStudentsCancelCommitsIsDecidedAfterIt() throws Exception {
        TenantId tenant = TenantId.of("own-cancel-" + UUID.randomUUID());
        JdbcStore store = JdbcStore.builder(db.dataSource()).tablePrefix(db.prefix()).dialect(db.dialect())
                .holdLanes(0).build();
        Slot full = slot(tenant, "f", 0, 1);
        assertThat(store.schedule(tenant, full, LONGEST, java.time.ZoneOffset.UTC)).isInstanceOf(Scheduled.class);
        HoldResult first = store.hold(tenant, command(full, "st-a", null)).result();
        assertThat(first).isInstanceOf(Held.class);
        String booking = ((Held) first).booking().bookingId().value();
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newSingleThreadExecutor();
        try (Connection cancel = db.dataSource().getConnection()) {
            cancel.setAutoCommit(false);
            try (Statement st = cancel.createStatement()) {
                String tenantIs = " WHERE tenant_id = '" + tenant.value() + "'";
                st.executeUpdate("UPDATE " + db.table("booking") + " SET status = 'CANCELLED'" + tenantIs
                        + " AND booking_id = '" + booking + "'");
                st.executeUpdate("UPDATE " + db.table("slot_seat") + " SET status = 'FREE', booking_id = NULL,"
                        + " student_id = NULL, held_until = NULL" + tenantIs + " AND booking_id = '" + booking + "'");
                st.executeUpdate("UPDATE " + db.table("occupancy") + " SET active = FALSE" + tenantIs
                        + " AND booking_id = '" + booking + "'");
            }
            var again = pool.submit(() -> store.hold(tenant, command(full, "st-a", null)).result());
            assertThat(blockedCall("hold")).as("the hold waits for the booking's row").isPositive();
            cancel.commit();
            HoldResult answer = again.get(30, java.util.concurrent.TimeUnit.SECONDS);
            if (answer instanceof org.slotbook.core.AlreadyBooked already) {
                assertThat(already.existing().status().isActive()).as("AlreadyBooked names " + already.existing())
                        .isTrue();
            }
            assertThat(answer).as("the seat his cancel freed").isInstanceOf(Held.class);
        } finally {
            pool.shutdownNow();
        }
        assertThat(count("SELECT COUNT(*) FROM " + db.table("slot_seat") + " WHERE tenant_id = ? AND status = 'HELD'",
                tenant.value())).isEqualTo(1);
        assertThat(count("SELECT COUNT(*) FROM " + db.table("booking") + " WHERE tenant_id = ? AND status = 'HELD'",
                tenant.value())).isEqualTo(1);
    }

    /**
     * The holds of a batch that a full slot refuses are found by one read before the others are decided,
     * and answered as hold would answer each: a replay of the request that took the seat REPLAY, another
     * request of its student ALREADY, a new student FULL (a request id with a double quote and a
     * backslash in it), while a hold the gate counted or one that may wait goes its own way (here RETRY:
     * the batch waits for nothing). Nothing is written.
     */
    @Test
    void holdsAFullSlotRefusesAreAnsweredAsAlone() throws Exception {
        TenantId tenant = TenantId.of("full-" + UUID.randomUUID());
        JdbcStore store = JdbcStore.builder(db.dataSource()).tablePrefix(db.prefix()).dialect(db.dialect()).build();
        Slot slot = slot(tenant, "one", 0, 1);
        assertThat(store.schedule(tenant, slot, LONGEST, java.time.ZoneOffset.UTC)).isInstanceOf(Scheduled.class);
        HoldCommand first = new HoldCommand(BookingId.of("b-a"), HoldRequest.of(RequestId.of("r-a"), slot.slotId(),
                StudentId.of("st-a")), BookingStatus.HELD, null, HOUR, LONGEST, false);
        assertThat(store.hold(tenant, first).result()).isInstanceOf(Held.class);
        String t = tenant.value();
        String records = String.join(String.valueOf('\u001e'),
                record(t, "b1", "r-a", "one", "st-a"),
                record(t, "b2", "r-a2", "one", "st-a"),
                record(t, "b3", "r\"3\\", "one", "st-c"),
                record(t, "b4", "r4", "one", "st-d").replace("\u001f0\u001f0\u001f0\u001f0\u001f0\u001fAT_BOOKING",
                        "\u001f1\u001f0\u001f0\u001f0\u001f0\u001fAT_BOOKING"),
                record(t, "b5", "r5", "one", "st-e").replace("\u001f0\u001f0\u001f0\u001f0\u001f0\u001fAT_BOOKING",
                        "\u001f0\u001f1\u001f0\u001f0\u001f0\u001fAT_BOOKING"));
        try (Connection caller = db.dataSource().getConnection();
                var ps = caller.prepareStatement("CALL " + db.prefix() + "hold_batch(?)")) {
            ps.setString(1, records);
            assertThat(rowsOf(ps)).containsExactly("1:REPLAY", "2:ALREADY", "3:FULL", "4:RETRY", "5:RETRY");
            // a status hold refuses is refused on a full slot too, not answered FULL
            ps.setString(1, record(t, "b6", "r6", "one", "st-f").replace("\u001fHELD\u001f", "\u001fBOGUS\u001f"));
            org.assertj.core.api.Assertions.assertThatThrownBy(ps::executeQuery).isInstanceOf(SQLException.class)
                    .hasMessageContaining("p_status");
        }
        assertThat(count("SELECT COUNT(*) FROM " + db.table("booking") + " WHERE tenant_id = ?", t)).isEqualTo(1);
        assertThat(count("SELECT COUNT(*) FROM " + db.table("waiter") + " WHERE tenant_id = ?", t)).isZero();
        assertThat(count("SELECT COUNT(*) FROM " + db.table("resource_lock") + " WHERE tenant_id = ?"
                + " AND resource_kind = 'STUDENT'", t)).isEqualTo(1);
    }

    /**
     * Plain holds (free slot, no waitlist, no limits, nothing of the student's there) are locked and
     * checked together and written together at the end of the batch: the rows are those hold writes, at
     * the hold's own now. A hold of a student with an overlapping booking goes through hold_do and
     * answers CONFLICT; a student twice in the batch is decided hold by hold.
     */
    @Test
    void plainHoldsAreWrittenTogetherAsAHoldWritesThem() throws Exception {
        TenantId tenant = TenantId.of("plain-" + UUID.randomUUID());
        JdbcStore store = JdbcStore.builder(db.dataSource()).tablePrefix(db.prefix()).dialect(db.dialect()).build();
        Slot p1 = slot(tenant, "p1", 0, 4);
        Slot p2 = slot(tenant, "p2", 0, 4);
        Slot p3 = slot(tenant, "p3", 1, 4);
        for (Slot s : List.of(p1, p2, p3)) {
            assertThat(store.schedule(tenant, s, LONGEST, java.time.ZoneOffset.UTC)).isInstanceOf(Scheduled.class);
        }
        Instant now = T0.minus(java.time.Duration.ofDays(1));
        HoldCommand other = new HoldCommand(BookingId.of("b-x2"), HoldRequest.of(RequestId.of("r-x2"), p2.slotId(),
                StudentId.of("st-x")), BookingStatus.HELD, now, HOUR, LONGEST, false);
        assertThat(store.hold(tenant, other).result()).isInstanceOf(Held.class);
        String t = tenant.value();
        String at = String.valueOf(java.time.temporal.ChronoUnit.MICROS.between(Instant.EPOCH, now));
        String records = String.join(String.valueOf('\u001e'),
                record(t, "b-a", "r-a", "p1", "st-a").replace("\u001fHELD\u001f\u001f", "\u001fHELD\u001f" + at + "\u001f"),
                record(t, "b-b", "r-b", "p1", "st-b").replace("\u001fHELD\u001f\u001f", "\u001fCONFIRMED\u001f" + at + "\u001f"),
                record(t, "b-d1", "r-d1", "p1", "st-d"),
                record(t, "b-d3", "r-d3", "p3", "st-d"),
                record(t, "b-x1", "r-x1", "p1", "st-x").replace("\u001fHELD\u001f\u001f", "\u001fHELD\u001f" + at + "\u001f"));
        try (Connection caller = db.dataSource().getConnection();
                var ps = caller.prepareStatement("CALL " + db.prefix() + "hold_batch(?)")) {
            ps.setString(1, records);
            assertThat(rowsOf(ps)).containsExactly("1:TAKEN", "2:TAKEN", "3:TAKEN", "4:TAKEN", "5:CONFLICT");
        }
        String heldUntil = now.plus(HOUR).toString().replace("T", " ").replace("Z", "");
        String created = now.toString().replace("T", " ").replace("Z", "");
        assertThat(count("SELECT COUNT(*) FROM " + db.table("booking") + " WHERE tenant_id = ? AND booking_id = 'b-a'"
                + " AND request_id = 'r-a' AND slot_id = 'p1' AND student_id = 'st-a' AND status = 'HELD'"
                + " AND held_until = '" + heldUntil + "' AND created_at = '" + created + "' AND updated_at = created_at",
                t)).isEqualTo(1);
        assertThat(count("SELECT COUNT(*) FROM " + db.table("booking") + " WHERE tenant_id = ? AND booking_id = 'b-b'"
                + " AND status = 'CONFIRMED'", t)).isEqualTo(1);
        // every booking's seat is the seat row it owns
        assertThat(count("SELECT COUNT(*) FROM " + db.table("booking") + " b JOIN " + db.table("slot_seat") + " s"
                + " ON s.tenant_id = b.tenant_id AND s.slot_id = b.slot_id AND s.seq = b.seat AND s.booking_id = b.booking_id"
                + " AND s.student_id = b.student_id AND s.status = b.status AND s.held_until = b.held_until"
                + " WHERE b.tenant_id = ?", t)).isEqualTo(5);
        assertThat(count("SELECT COUNT(*) FROM " + db.table("occupancy") + " o JOIN " + db.table("slot") + " s"
                + " ON s.tenant_id = o.tenant_id AND s.slot_id = o.slot_id AND s.starts_at = o.starts_at"
                + " AND s.ends_at = o.ends_at WHERE o.tenant_id = ? AND o.resource_kind = 'STUDENT' AND o.active = TRUE"
                + " AND o.booking_id IN ('b-a', 'b-b', 'b-d1', 'b-d3', 'b-x2')", t)).isEqualTo(5);
        assertThat(count("SELECT COUNT(*) FROM " + db.table("booking") + " WHERE tenant_id = ? AND student_id = 'st-x'",
                t)).isEqualTo(1);
        assertThat(count("SELECT COUNT(*) FROM " + db.table("resource_lock") + " WHERE tenant_id = ?"
                + " AND resource_kind = 'STUDENT'", t)).isEqualTo(4);
    }

    /**
     * Plain holds whose slot the batch names once take their seats together, by one locking read and one
     * update: each the first free seat of its slot, at its own now and status, with ids that need quoting.
     * A first free seat another transaction has locked is skipped without waiting and that hold takes the
     * next free seat on its own; a slot whose only free seat is locked answers RETRY and writes nothing.
     * The rows are those hold writes: the booking owns its seat row, and the occupation ends with the
     * session or, where the slot pads its students, with the buffer.
     */
    @Test
    void plainHoldsOfSlotsNamedOnceTakeTheirSeatsTogether() throws Exception {
        TenantId tenant = TenantId.of("claim-" + UUID.randomUUID());
        JdbcStore store = JdbcStore.builder(db.dataSource()).tablePrefix(db.prefix()).dialect(db.dialect()).build();
        Slot a = slot(tenant, "a\"1\\", 0, 3);
        Slot b = slot(tenant, "b", 1, 3);
        Slot plain = slot(tenant, "c", 2, 3);
        Slot c = new Slot(tenant, plain.slotId(), plain.coachId(), plain.roomId(), plain.time(), 3,
                org.slotbook.core.SlotStatus.OPEN, null, null, java.time.Duration.ofMinutes(15), null, true);
        Slot d = slot(tenant, "d", 3, 1);
        for (Slot s : List.of(a, b, c, d)) {
            assertThat(store.schedule(tenant, s, LONGEST, java.time.ZoneOffset.UTC)).isInstanceOf(Scheduled.class);
        }
        Instant now = T0.minus(java.time.Duration.ofDays(1));
        String t = tenant.value();
        String at = String.valueOf(java.time.temporal.ChronoUnit.MICROS.between(Instant.EPOCH, now));
        String records = String.join(String.valueOf('\u001e'),
                record(t, "b-a\"\\", "r-a\"\\", "a\"1\\", "st-a\"\\"),
                record(t, "b-b", "r-b", "b", "st-b").replace("\u001fHELD\u001f\u001f", "\u001fCONFIRMED\u001f" + at + "\u001f"),
                record(t, "b-c", "r-c", "c", "st-c").replace("\u001fHELD\u001f\u001f", "\u001fHELD\u001f" + at + "\u001f"),
                record(t, "b-d", "r-d", "d", "st-d"));
        try (Connection holder = db.dataSource().getConnection(); Connection caller = db.dataSource().getConnection()) {
            holder.setAutoCommit(false);
            // another transaction holds the first free seat of b and the only one of d (each row by its key)
            for (String locked : List.of("b", "d")) {
                try (var lock = holder.prepareStatement("SELECT seq FROM " + db.table("slot_seat") + " FORCE INDEX (PRIMARY)"
                        + " WHERE tenant_id = ? AND slot_id = ? AND seq = 1 FOR UPDATE")) {
                    lock.setString(1, t);
                    lock.setString(2, locked);
                    lock.executeQuery().close();
                }
            }
            try (var st = caller.createStatement()) {
                st.execute("SET SESSION innodb_lock_wait_timeout = 3");
            }
            long started = System.nanoTime();
            try (var ps = caller.prepareStatement("CALL " + db.prefix() + "hold_batch(?)")) {
                ps.setString(1, records);
                assertThat(rowsOf(ps)).containsExactly("1:TAKEN", "2:TAKEN", "3:TAKEN", "4:RETRY");
            } finally {
                try (var st = caller.createStatement()) {
                    st.execute("SET SESSION innodb_lock_wait_timeout = DEFAULT");
                }
                holder.rollback();
            }
            assertThat(java.time.Duration.ofNanos(System.nanoTime() - started)).as("the batch waited for a lock")
                    .isLessThan(java.time.Duration.ofSeconds(2));
        }
        String heldUntil = now.plus(HOUR).toString().replace("T", " ").replace("Z", "");
        String created = now.toString().replace("T", " ").replace("Z", "");
        // each booking owns its seat row: a and c their first seat, b the second (the first was locked)
        assertThat(count("SELECT COUNT(*) FROM " + db.table("booking") + " bk JOIN " + db.table("slot_seat") + " s"
                + " ON s.tenant_id = bk.tenant_id AND s.slot_id = bk.slot_id AND s.seq = bk.seat"
                + " AND s.booking_id = bk.booking_id AND s.student_id = bk.student_id AND s.status = bk.status"
                + " AND s.held_until = bk.held_until WHERE bk.tenant_id = ? AND ((bk.booking_id = 'b-a\"\\\\'"
                + " AND bk.request_id = 'r-a\"\\\\' AND bk.slot_id = 'a\"1\\\\' AND bk.student_id = 'st-a\"\\\\'"
                + " AND bk.seat = 1 AND bk.status = 'HELD')"
                + " OR (bk.booking_id = 'b-b' AND bk.seat = 2 AND bk.status = 'CONFIRMED' AND bk.held_until = '"
                + heldUntil + "' AND bk.created_at = '" + created + "' AND bk.updated_at = bk.created_at)"
                + " OR (bk.booking_id = 'b-c' AND bk.seat = 1 AND bk.status = 'HELD' AND bk.held_until = '"
                + heldUntil + "'))", t)).isEqualTo(3);
        assertThat(count("SELECT COUNT(*) FROM " + db.table("booking") + " WHERE tenant_id = ?", t)).isEqualTo(3);
        assertThat(count("SELECT COUNT(*) FROM " + db.table("slot_seat") + " WHERE tenant_id = ? AND status <> 'FREE'",
                t)).isEqualTo(3);
        // the student's time: the session, and for c the session and its buffer
        assertThat(count("SELECT COUNT(*) FROM " + db.table("occupancy") + " o JOIN " + db.table("slot") + " s"
                + " ON s.tenant_id = o.tenant_id AND s.slot_id = o.slot_id AND s.starts_at = o.starts_at"
                + " AND o.ends_at = IF(s.slot_id = 'c', s.ends_at + INTERVAL 15 MINUTE, s.ends_at)"
                + " WHERE o.tenant_id = ? AND o.resource_kind = 'STUDENT' AND o.active = TRUE"
                + " AND o.booking_id IN ('b-a\"\\\\', 'b-b', 'b-c')", t)).isEqualTo(3);
        // the RETRY left no lock row behind; the others' stay
        assertThat(count("SELECT COUNT(*) FROM " + db.table("resource_lock") + " WHERE tenant_id = ?"
                + " AND resource_kind = 'STUDENT'", t)).isEqualTo(3);
    }

    /**
     * Plain holds whose slot the batch names once take their seats together at the same cost on slots of
     * 20,000 seats as on slots of 3: each slot's first free seat is one entry of the claim index, not a
     * read of every free seat. Counted by the rows InnoDB hands the call (the session's handler reads).
     */
    @Test
    void holdsClaimedTogetherReadNoMoreRowsOnLargeSlotsThanOnSmallOnes() throws Exception {
        TenantId tenant = TenantId.of("large-" + UUID.randomUUID());
        JdbcStore store = JdbcStore.builder(db.dataSource()).tablePrefix(db.prefix()).dialect(db.dialect()).build();
        int large = 20_000;
        List<Slot> slots = List.of(slot(tenant, "small-a", 0, 3), slot(tenant, "small-b", 1, 3),
                slot(tenant, "large-a", 2, large), slot(tenant, "large-b", 3, large));
        for (Slot s : slots) {
            assertThat(store.schedule(tenant, s, LONGEST, java.time.ZoneOffset.UTC)).isInstanceOf(Scheduled.class);
        }
        String t = tenant.value();
        long small;
        long big;
        try (Connection caller = db.dataSource().getConnection();
                var ps = caller.prepareStatement("CALL " + db.prefix() + "hold_batch(?)")) {
            long before = rowsRead(caller);
            ps.setString(1, record(t, "b1", "r1", "small-a", "st-1") + '\u001e' + record(t, "b2", "r2", "small-b", "st-2"));
            assertThat(rowsOf(ps)).containsExactly("1:TAKEN", "2:TAKEN");
            long between = rowsRead(caller);
            ps.setString(1, record(t, "b3", "r3", "large-a", "st-3") + '\u001e' + record(t, "b4", "r4", "large-b", "st-4"));
            assertThat(rowsOf(ps)).containsExactly("1:TAKEN", "2:TAKEN");
            small = between - before;
            big = rowsRead(caller) - between;
        }
        assertThat(big).as("rows read by the batch on slots of %d seats, against %d on slots of 3", large, small)
                .isLessThanOrEqualTo(small + 20);
        // each hold took the first seat of its slot
        assertThat(count("SELECT COUNT(*) FROM " + db.table("booking") + " b JOIN " + db.table("slot_seat") + " s"
                + " ON s.tenant_id = b.tenant_id AND s.slot_id = b.slot_id AND s.seq = b.seat AND s.booking_id = b.booking_id"
                + " WHERE b.tenant_id = ? AND b.seat = 1 AND s.status = 'HELD'", t)).isEqualTo(4);
    }

    /** The rows the session's statements have read so far, by key, in index order and by scan. */
    private static long rowsRead(Connection connection) throws SQLException {
        long rows = 0;
        try (var st = connection.createStatement(); var rs = st.executeQuery("SHOW SESSION STATUS WHERE Variable_name IN"
                + " ('Handler_read_key', 'Handler_read_next', 'Handler_read_prev', 'Handler_read_rnd_next')")) {
            while (rs.next()) {
                rows += rs.getLong(2);
            }
        }
        return rows;
    }

    /**
     * A batch locks no slot row: plain holds are decided while another transaction holds a slot's row
     * (as a cancel or a promotion does), instead of waiting for it, and their rows are written.
     */
    @Test
    void aBatchDoesNotWaitForALockedSlotRow() throws Exception {
        TenantId tenant = TenantId.of("slotlock-" + UUID.randomUUID());
        JdbcStore store = JdbcStore.builder(db.dataSource()).tablePrefix(db.prefix()).dialect(db.dialect()).build();
        Slot slot = slot(tenant, "busy", 0, 3);
        assertThat(store.schedule(tenant, slot, LONGEST, java.time.ZoneOffset.UTC)).isInstanceOf(Scheduled.class);
        String t = tenant.value();
        try (Connection holder = db.dataSource().getConnection(); Connection caller = db.dataSource().getConnection()) {
            holder.setAutoCommit(false);
            try (var lock = holder.prepareStatement("SELECT status FROM " + db.table("slot")
                    + " WHERE tenant_id = ? AND slot_id = 'busy' FOR UPDATE")) {
                lock.setString(1, t);
                lock.executeQuery().close();
            }
            try (var st = caller.createStatement()) {
                st.execute("SET SESSION innodb_lock_wait_timeout = 3");
            }
            try (var ps = caller.prepareStatement("CALL " + db.prefix() + "hold_batch(?)")) {
                ps.setString(1, record(t, "b1", "r1", "busy", "st-a") + '\u001e' + record(t, "b2", "r2", "busy", "st-b"));
                assertThat(rowsOf(ps)).containsExactly("1:TAKEN", "2:TAKEN");
            } finally {
                try (var st = caller.createStatement()) {
                    st.execute("SET SESSION innodb_lock_wait_timeout = DEFAULT");
                }
                holder.rollback();
            }
        }
        assertThat(count("SELECT COUNT(*) FROM " + db.table("booking") + " b JOIN " + db.table("slot_seat") + " s"
                + " ON s.tenant_id = b.tenant_id AND s.slot_id = b.slot_id AND s.seq = b.seat AND s.booking_id = b.booking_id"
                + " WHERE b.tenant_id = ? AND s.status = 'HELD'", t)).isEqualTo(2);
        assertThat(count("SELECT COUNT(*) FROM " + db.table("occupancy") + " WHERE tenant_id = ?"
                + " AND resource_kind = 'STUDENT' AND active = TRUE", t)).isEqualTo(2);
    }
}
