package org.slotbook.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.slotbook.core.Booking;
import org.slotbook.core.BookingEngine;
import org.slotbook.core.BookingRules;
import org.slotbook.core.CoachId;
import org.slotbook.core.Held;
import org.slotbook.core.HoldRequest;
import org.slotbook.core.HoldResult;
import org.slotbook.core.PackageGrant;
import org.slotbook.core.PackageId;
import org.slotbook.core.RequestId;
import org.slotbook.core.RoomId;
import org.slotbook.core.Scheduled;
import org.slotbook.core.Slot;
import org.slotbook.core.SlotId;
import org.slotbook.core.SlotSpec;
import org.slotbook.core.StudentId;
import org.slotbook.core.TenantId;
import org.slotbook.core.TimeRange;
import org.slotbook.core.Waitlisted;
import org.slotbook.jdbc.internal.SchemaObjects;
import org.slotbook.jdbc.internal.SqlDialect;
import org.slotbook.jdbc.internal.Tables;
import org.slotbook.jdbc.testing.TestDatabases.TestDatabase;

/**
 * A refused request changes nothing: every table's rows of the tenant are counted before and after
 * requests the engine refuses (a request id reused for another student, slot or kind of request, a
 * package id reused with other terms) and bad input that reaches a routine directly, on each database.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class RefusedRequestTests {
    private static final Instant NOW = Instant.parse("2030-04-01T08:00:00Z");

    TestDatabase db;
    JdbcStore store;

    protected abstract TestDatabase openDatabase();

    @BeforeAll
    void openStore() {
        db = openDatabase();
        store = db.store();
    }

    @AfterAll
    void closeStore() {
        if (db != null) {
            db.close();
        }
    }

    /** The tenant's rows of every table of the schema, by table. */
    private Map<String, Integer> rows(TenantId tenant) throws SQLException {
        Map<String, Integer> counts = new LinkedHashMap<>();
        try (Connection c = db.dataSource().getConnection()) {
            for (String table : SchemaObjects.of(db.dialect(), db.prefix()).tables()) {
                try (PreparedStatement ps = c.prepareStatement("SELECT COUNT(*) FROM " + table + " WHERE tenant_id = ?")) {
                    ps.setString(1, tenant.value());
                    try (ResultSet rs = ps.executeQuery()) {
                        rs.next();
                        counts.put(table, rs.getInt(1));
                    }
                }
            }
        }
        return counts;
    }

    private static Booking held(HoldResult result) {
        assertThat(result).isInstanceOf(Held.class);
        return ((Held) result).booking();
    }

    @Test
    void requestsRefusedForAReusedIdLeaveEveryRowAsItWas() throws SQLException {
        TenantId t = TenantId.of("refused-" + UUID.randomUUID());
        BookingEngine engine = BookingEngine.builder().store(store).rules(BookingRules.defaults()).build();
        TimeRange time = TimeRange.of(Instant.now().plus(Duration.ofDays(2)).truncatedTo(java.time.temporal.ChronoUnit.HOURS),
                Duration.ofHours(1));
        Slot open = ((Scheduled) engine.schedule(t, new SlotSpec(SlotId.of("open"), CoachId.of("c1"), RoomId.of("r1"),
                time, 3))).slot();
        Slot full = ((Scheduled) engine.schedule(t, new SlotSpec(SlotId.of("full"), CoachId.of("c2"), RoomId.of("r2"),
                TimeRange.of(time.start().plus(Duration.ofHours(2)), Duration.ofHours(1)), 1))).slot();
        HoldRequest annHolds = HoldRequest.of(RequestId.of("ann-1"), open.slotId(), StudentId.of("ann"));
        held(engine.hold(t, annHolds));
        held(engine.book(t, HoldRequest.of(RequestId.of("kim-1"), full.slotId(), StudentId.of("kim"))));
        HoldRequest leoWaits = HoldRequest.of(RequestId.of("leo-1"), full.slotId(), StudentId.of("leo")).orWaitlist();
        assertThat(engine.hold(t, leoWaits)).isInstanceOf(Waitlisted.class);
        engine.grantPackage(t, PackageGrant.of(PackageId.of("p"), StudentId.of("ann"), 5, time.start().minus(
                Duration.ofDays(10)), time.start().plus(Duration.ofDays(10))));
        Map<String, Integer> before = rows(t);
        assertThat(before.values()).as("the tenant has rows to keep").anySatisfy(n -> assertThat(n).isPositive());

        int refused = 0;
        // ann's request id, by students new to the tenant (no lock row of theirs yet), on both slots
        for (String student : new String[] {"bob", "cy", "dee", "eve", "fay"}) {
            HoldRequest reused = HoldRequest.of(annHolds.requestId(), open.slotId(), StudentId.of(student));
            assertThatThrownBy(() -> engine.hold(t, reused)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("requestId 'ann-1'");
            refused++;
        }
        // ann's request id for another slot; leo's waitlist request by another student; a book with the id
        // of ann's unconfirmed hold; kim's request id joining a waitlist for another student
        Runnable[] others = {
            () -> engine.hold(t, HoldRequest.of(annHolds.requestId(), full.slotId(), StudentId.of("ann"))),
            () -> engine.hold(t, HoldRequest.of(leoWaits.requestId(), full.slotId(), StudentId.of("gus")).orWaitlist()),
            () -> engine.book(t, annHolds),
            () -> engine.hold(t, HoldRequest.of(RequestId.of("kim-1"), full.slotId(), StudentId.of("hal")).orWaitlist()),
            () -> engine.grantPackage(t, PackageGrant.of(PackageId.of("p"), StudentId.of("ivy"), 5, time.start()
                    .minus(Duration.ofDays(10)), time.start().plus(Duration.ofDays(10))))};
        for (Runnable request : others) {
            assertThatThrownBy(request::run).isInstanceOf(IllegalArgumentException.class);
            refused++;
        }
        assertThat(rows(t)).as("rows of every table after %d refused requests", refused).isEqualTo(before);
    }

    @Test
    void concurrentHoldsRefusedForAReusedIdLeaveEveryRowAsItWas() throws SQLException {
        int students = 16;
        TenantId t = TenantId.of("refused-race-" + UUID.randomUUID());
        BookingEngine engine = BookingEngine.builder().store(store).build();
        TimeRange time = TimeRange.of(Instant.now().plus(Duration.ofDays(2)).truncatedTo(java.time.temporal.ChronoUnit.HOURS),
                Duration.ofHours(1));
        Slot open = ((Scheduled) engine.schedule(t, new SlotSpec(SlotId.of("open"), CoachId.of("c1"), RoomId.of("r1"),
                time, students))).slot();
        HoldRequest annHolds = HoldRequest.of(RequestId.of("ann-1"), open.slotId(), StudentId.of("ann"));
        held(engine.hold(t, annHolds));
        Map<String, Integer> before = rows(t);
        // students new to the tenant, all at once: with hold lanes, some go to the database in one batch
        java.util.List<Boolean> refused = org.slotbook.core.tck.Concurrent.run(students, k -> {
            try {
                engine.hold(t, HoldRequest.of(annHolds.requestId(), open.slotId(), StudentId.of("new-" + k)));
                return false;
            } catch (IllegalArgumentException expected) {
                return true;
            }
        });
        assertThat(refused.stream().filter(r -> r).count()).as("refused of %d", students).isEqualTo(students);
        assertThat(rows(t)).as("rows of every table after %d concurrent refused holds", students).isEqualTo(before);
    }

    @Test
    void badInputThatReachesARoutineLeavesEveryRowAsItWas() throws SQLException {
        TenantId t = TenantId.of("bad-" + UUID.randomUUID());
        Slot s = new Slot(t, SlotId.of("s"), CoachId.of("c"), RoomId.of("r"),
                TimeRange.of(NOW.plus(Duration.ofDays(1)), Duration.ofHours(1)), 2, org.slotbook.core.SlotStatus.OPEN);
        assertThat(store.schedule(t, s, Duration.ofHours(24), java.time.ZoneOffset.UTC)).isInstanceOf(Scheduled.class);
        Booking b = held(store.hold(t, new org.slotbook.core.spi.HoldCommand(org.slotbook.core.BookingId.random(),
                HoldRequest.of(RequestId.random(), s.slotId(), StudentId.of("ann")),
                org.slotbook.core.BookingStatus.CONFIRMED, NOW, Duration.ofMinutes(10), Duration.ofHours(24), false))
                .result());
        Map<String, Integer> before = rows(t);
        SqlDialect sql = SqlDialect.of(db.dialect(), new Tables(db.prefix()));
        long minute = 60_000_000L;
        long day = 24 * 60 * minute;
        int refused = 0;
        try (Connection c = db.dataSource().getConnection()) {
            c.setAutoCommit(true);
            // a hold of a student new to the tenant with a status that is neither HELD nor CONFIRMED
            assertThat(callFails(c, sql.call("hold", 15), sql, t.value(), "b-bad", "r-bad", "s", "newcomer", "SOLD",
                    NOW, 10 * minute, day, false, false, 0, 0, 0L, "AT_BOOKING")).isTrue();
            refused++;
            // a hold with a credit policy no routine knows
            assertThat(callFails(c, sql.call("hold", 15), sql, t.value(), "b-bad2", "r-bad2", "s", "newcomer2",
                    "HELD", NOW, 10 * minute, day, false, false, 0, 0, 0L, "WHENEVER")).isTrue();
            refused++;
            // a cancel of ann's booking under a cancel policy no routine knows
            assertThat(callFails(c, sql.call("cancel", 12), sql, t.value(), b.bookingId().value(), "ann", NOW,
                    "SOMETIMES", 60 * minute, 10 * minute, day, 0, 0, 0L, "AT_BOOKING")).isTrue();
            refused++;
        }
        assertThat(rows(t)).as("rows of every table after %d refused routine calls", refused).isEqualTo(before);
        assertThat(store.findBooking(t, b.bookingId()).orElseThrow().status())
                .isEqualTo(org.slotbook.core.BookingStatus.CONFIRMED);
    }

    /** Calls a routine with the given arguments (instants bound as the dialect binds them); whether it failed. */
    private static boolean callFails(Connection c, String call, SqlDialect sql, Object... args) {
        try (PreparedStatement ps = c.prepareStatement(call)) {
            int i = sql.bindPrefix(ps);
            for (Object arg : args) {
                if (arg instanceof Instant instant) {
                    sql.bindInstant(ps, i++, instant);
                } else {
                    ps.setObject(i++, arg);
                }
            }
            ps.execute();
            while (ps.getMoreResults() || ps.getUpdateCount() != -1) {
                // drain
            }
            return false;
        } catch (SQLException e) {
            return true;
        }
    }
}
