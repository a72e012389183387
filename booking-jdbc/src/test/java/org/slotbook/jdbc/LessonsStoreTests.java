package org.slotbook.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.DayOfWeek;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Callable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.slotbook.core.BookingId;
import org.slotbook.core.BookingRules;
import org.slotbook.core.BookingStatus;
import org.slotbook.core.CheckedIn;
import org.slotbook.core.CoachId;
import org.slotbook.core.CreditPolicy;
import org.slotbook.core.Held;
import org.slotbook.core.HoldRequest;
import org.slotbook.core.HoldResult;
import org.slotbook.core.InsufficientCredits;
import org.slotbook.core.PackageGrant;
import org.slotbook.core.PackageId;
import org.slotbook.core.RequestId;
import org.slotbook.core.RoomId;
import org.slotbook.core.Scheduled;
import org.slotbook.core.SeriesId;
import org.slotbook.core.SeriesMode;
import org.slotbook.core.SeriesResult;
import org.slotbook.core.SeriesSpec;
import org.slotbook.core.Slot;
import org.slotbook.core.SlotId;
import org.slotbook.core.SlotSpec;
import org.slotbook.core.SlotStatus;
import org.slotbook.core.StudentId;
import org.slotbook.core.TenantId;
import org.slotbook.core.TimeRange;
import org.slotbook.core.spi.HoldCommand;
import org.slotbook.core.spi.Terms;
import org.slotbook.core.tck.Concurrent;
import org.slotbook.jdbc.testing.TestDatabases.TestDatabase;

/**
 * Lesson packages, attendance and weekly series on each database, every verdict read back from the
 * tables with SQL: credits drawn and refunded exactly once under concurrent holds, cancels and
 * sweepers, the journal summing to the balance, tenant isolation of packages, attendance under both
 * credit policies, series across daylight saving changes, and all-or-nothing series that write nothing.
 * Each test works in a fresh tenant, so the class can run again on the same tables.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class LessonsStoreTests {
    static final Instant T0 = Instant.parse("2030-06-03T09:00:00Z");
    static final Instant NOW = T0.minus(Duration.ofDays(1));
    static final Duration HOLD = Duration.ofMinutes(10);
    static final Duration LONGEST = Duration.ofHours(24);
    static final Instant VALID_FROM = Instant.parse("2030-01-01T00:00:00Z");
    static final Instant VALID_UNTIL = Instant.parse("2031-01-01T00:00:00Z");

    TestDatabase db;
    JdbcStore store;
    String p;

    protected abstract TestDatabase openDatabase();

    /** A timestamp column as an instant (MariaDB answers its UTC DATETIME as a local date-time). */
    protected Instant instant(ResultSet rs, int column) throws SQLException {
        return rs.getObject(column, OffsetDateTime.class).toInstant();
    }

    @BeforeAll
    void openStore() {
        db = openDatabase();
        store = db.store();
        p = db.prefix();
    }

    @AfterAll
    void closeStore() {
        if (db != null) {
            db.close();
        }
    }

    // ------------------------------------------------------------------ credits under concurrency

    @Test
    void fiveCreditsPayForExactlyFiveOfFiftyConcurrentHoldsAndDoubleConcurrentCancelsRefundFive() throws Exception {
        TenantId t = tenant();
        store.grantPackage(t, PackageGrant.of(PackageId.of("p5"), StudentId.of("ann"), 5, VALID_FROM, VALID_UNTIL), NOW);
        BookingRules rules = BookingRules.defaults();
        List<Callable<HoldResult>> holds = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            String slot = "s" + i;
            schedule(t, slot, T0.plus(Duration.ofHours(2L * i)), 3, 1);
            holds.add(() -> hold(t, slot, "ann", NOW, rules));
        }
        List<HoldResult> answers = Concurrent.call(holds);
        assertThat(answers.stream().filter(Held.class::isInstance).count()).isEqualTo(5);
        assertThat(answers.stream().filter(InsufficientCredits.class::isInstance).count()).isEqualTo(45);
        String v = t.value();
        assertThat(longs("SELECT COUNT(*) FROM " + p + "booking WHERE tenant_id = ? AND status IN ('HELD', 'CONFIRMED')"
                + " AND credits = 1 AND package_id = 'p5'", v)).containsExactly(5L);
        assertThat(longs("SELECT COUNT(*) FROM " + p + "booking WHERE tenant_id = ?", v)).containsExactly(5L);
        assertThat(longs("SELECT remaining FROM " + p + "lesson_package WHERE tenant_id = ?", v)).containsExactly(0L);
        assertThat(longs("SELECT SUM(delta) FROM " + p + "credit_entry WHERE tenant_id = ? AND package_id = 'p5'", v))
                .containsExactly(0L);
        assertThat(reasons(t)).containsExactly("DRAW:5", "GRANT:1");

        // every booking cancelled by two threads at once
        List<String> live = strings("SELECT booking_id FROM " + p + "booking WHERE tenant_id = ? ORDER BY booking_id", v);
        List<Callable<Object>> cancels = new ArrayList<>();
        for (int round = 0; round < 2; round++) {
            for (String id : live) {
                cancels.add(() -> store.cancel(t, BookingId.of(id), StudentId.of("ann"), NOW.plusSeconds(60),
                        terms(rules)).result());
            }
        }
        Concurrent.call(cancels);
        assertThat(longs("SELECT COUNT(*) FROM " + p + "booking WHERE tenant_id = ? AND status = 'CANCELLED'"
                + " AND credits = 0 AND package_id IS NULL", v)).containsExactly(5L);
        assertThat(longs("SELECT remaining FROM " + p + "lesson_package WHERE tenant_id = ?", v)).containsExactly(5L);
        assertThat(longs("SELECT SUM(delta) FROM " + p + "credit_entry WHERE tenant_id = ?", v)).containsExactly(5L);
        assertThat(reasons(t)).containsExactly("DRAW:5", "GRANT:1", "REFUND:5");
        assertThat(longs("SELECT COUNT(DISTINCT booking_id) FROM " + p + "credit_entry WHERE tenant_id = ?"
                + " AND reason = 'REFUND'", v)).containsExactly(5L);
    }

    @Test
    void twoConcurrentSweepersRefundEachExpiredHoldOnce() throws Exception {
        TenantId t = tenant();
        store.grantPackage(t, PackageGrant.of(PackageId.of("p"), StudentId.of("ann"), 10, VALID_FROM, VALID_UNTIL), NOW);
        BookingRules rules = BookingRules.defaults();
        for (int i = 0; i < 6; i++) {
            schedule(t, "s" + i, T0.plus(Duration.ofHours(2L * i)), 2, 1);
            assertThat(hold(t, "s" + i, "ann", NOW, rules)).isInstanceOf(Held.class);
        }
        String v = t.value();
        assertThat(longs("SELECT remaining FROM " + p + "lesson_package WHERE tenant_id = ?", v)).containsExactly(4L);
        Instant later = NOW.plus(Duration.ofHours(1));
        List<Callable<Integer>> sweepers = List.of(
                () -> store.expireDue(t, later, 100, terms(rules)).result(),
                () -> store.expireDue(t, later, 100, terms(rules)).result());
        List<Integer> expired = Concurrent.call(sweepers);
        assertThat(expired.get(0) + expired.get(1)).isEqualTo(6);
        assertThat(longs("SELECT COUNT(*) FROM " + p + "booking WHERE tenant_id = ? AND status = 'EXPIRED'"
                + " AND credits = 0", v)).containsExactly(6L);
        assertThat(longs("SELECT remaining FROM " + p + "lesson_package WHERE tenant_id = ?", v)).containsExactly(10L);
        assertThat(longs("SELECT SUM(delta) FROM " + p + "credit_entry WHERE tenant_id = ?", v)).containsExactly(10L);
        assertThat(reasons(t)).containsExactly("DRAW:6", "GRANT:1", "REFUND:6");
        // a third sweep finds nothing
        assertThat(store.expireDue(t, later, 100, terms(rules)).result()).isZero();
        assertThat(reasons(t)).containsExactly("DRAW:6", "GRANT:1", "REFUND:6");
    }

    // ------------------------------------------------------------------ tenancy

    @Test
    void aPackageOfOneTenantNeverPaysForASlotOfAnother() throws SQLException {
        TenantId a = tenant();
        TenantId b = tenant();
        store.grantPackage(a, PackageGrant.of(PackageId.of("p"), StudentId.of("ann"), 3, VALID_FROM, VALID_UNTIL), NOW);
        schedule(b, "paid", T0, 5, 1);
        assertThat(hold(b, "paid", "ann", NOW, BookingRules.defaults()))
                .isEqualTo(new InsufficientCredits(SlotId.of("paid"), 1));
        assertThat(longs("SELECT COUNT(*) FROM " + p + "booking WHERE tenant_id = ?", b.value())).containsExactly(0L);
        assertThat(longs("SELECT COUNT(*) FROM " + p + "credit_entry WHERE tenant_id = ?", b.value()))
                .containsExactly(0L);
        assertThat(longs("SELECT remaining FROM " + p + "lesson_package WHERE tenant_id = ?", a.value()))
                .containsExactly(3L);
        // the same package id in tenant b is a package of its own
        store.grantPackage(b, PackageGrant.of(PackageId.of("p"), StudentId.of("ann"), 1, VALID_FROM, VALID_UNTIL), NOW);
        assertThat(hold(b, "paid", "ann", NOW, BookingRules.defaults())).isInstanceOf(Held.class);
        assertThat(longs("SELECT remaining FROM " + p + "lesson_package WHERE tenant_id = ?", a.value()))
                .containsExactly(3L);
        assertThat(longs("SELECT remaining FROM " + p + "lesson_package WHERE tenant_id = ?", b.value()))
                .containsExactly(0L);
    }

    // ------------------------------------------------------------------ attendance

    @Test
    void checkInAndNoShowsAreStoredUnderBothCreditPolicies() throws SQLException {
        for (CreditPolicy policy : CreditPolicy.values()) {
            TenantId t = tenant();
            BookingRules rules = BookingRules.defaults()
                    .withAttendance(Duration.ofMinutes(30), Duration.ofMinutes(15)).withCreditsDrawn(policy);
            store.grantPackage(t, PackageGrant.of(PackageId.of("p"), StudentId.of("ann"), 5, VALID_FROM, VALID_UNTIL),
                    NOW);
            schedule(t, "came", T0, 3, 2);
            schedule(t, "missed", T0.plus(Duration.ofHours(3)), 3, 2);
            Held came = (Held) book(t, "came", "ann", NOW, rules);
            Held missed = (Held) book(t, "missed", "ann", NOW, rules);
            String v = t.value();
            long afterBooking = policy == CreditPolicy.AT_BOOKING ? 1 : 5;
            assertThat(longs("SELECT remaining FROM " + p + "lesson_package WHERE tenant_id = ?", v))
                    .as(policy.name()).containsExactly(afterBooking);

            assertThat(store.checkIn(t, came.booking().bookingId(), StudentId.of("ann"), T0.minus(Duration.ofMinutes(10)),
                    terms(rules)).result()).isInstanceOf(CheckedIn.class);
            // a repeat changes nothing
            assertThat(((CheckedIn) store.checkIn(t, came.booking().bookingId(), null, T0, terms(rules)).result())
                    .replayed()).isTrue();
            Instant closed = T0.plus(Duration.ofHours(4)).plus(Duration.ofMinutes(15));
            assertThat(store.expireDue(t, closed.minusSeconds(1), 10, terms(rules)).result()).isZero();
            assertThat(store.expireDue(t, closed, 10, terms(rules)).result()).isEqualTo(1);
            assertThat(store.expireDue(t, closed, 10, terms(rules)).result()).isZero();

            assertThat(strings("SELECT attendance FROM " + p + "booking WHERE tenant_id = ? AND booking_id = ?", v,
                    came.booking().bookingId().value())).as(policy.name()).containsExactly("CHECKED_IN");
            assertThat(strings("SELECT attendance FROM " + p + "booking WHERE tenant_id = ? AND booking_id = ?", v,
                    missed.booking().bookingId().value())).as(policy.name()).containsExactly("NO_SHOW");
            assertThat(longs("SELECT COUNT(*) FROM " + p + "booking WHERE tenant_id = ? AND credits = 2"
                    + " AND package_id = 'p' AND status = 'CONFIRMED'", v)).as(policy.name()).containsExactly(2L);
            assertThat(longs("SELECT remaining FROM " + p + "lesson_package WHERE tenant_id = ?", v))
                    .as(policy.name()).containsExactly(1L);
            assertThat(longs("SELECT SUM(delta) FROM " + p + "credit_entry WHERE tenant_id = ?", v))
                    .as(policy.name()).containsExactly(1L);
            assertThat(reasons(t)).as(policy.name()).containsExactly(policy == CreditPolicy.AT_BOOKING
                    ? new String[] {"DRAW:2", "GRANT:1"} : new String[] {"DRAW:1", "FORFEIT:1", "GRANT:1"});
        }
    }

    // ------------------------------------------------------------------ series

    @Test
    void aSeriesKeepsItsWallClockTimeAcrossDaylightSavingInTwoZones() throws SQLException {
        TenantId t = tenant();
        // 2030: New York moves its clocks on March 10, Berlin on March 31
        LocalDate first = LocalDate.of(2030, 3, 4);
        for (String zone : List.of("Europe/Berlin", "America/New_York")) {
            ZoneId z = ZoneId.of(zone);
            SeriesId id = SeriesId.of("s-" + zone.replace('/', '-'));
            SeriesSpec spec = SeriesSpec.weekly(id, CoachId.of("c-" + zone), RoomId.of("r-" + zone), 4)
                    .on(DayOfWeek.MONDAY).at(LocalTime.of(10, 0), Duration.ofHours(1), z).from(first).forWeeks(5);
            SeriesResult result = store.scheduleSeries(t, id, SeriesMode.ALL_OR_NOTHING, slots(t, spec), LONGEST, z);
            assertThat(result.complete()).isTrue();
            List<Instant> starts = new ArrayList<>();
            List<String> ids = new ArrayList<>();
            query("SELECT slot_id, starts_at FROM " + p + "slot WHERE tenant_id = ? AND series_id = ?"
                    + " ORDER BY starts_at", rs -> {
                ids.add(rs.getString(1));
                starts.add(instant(rs, 2));
            }, t.value(), id.value());
            assertThat(ids).hasSize(5).first().isEqualTo(id.value() + "/2030-03-04");
            for (int week = 0; week < 5; week++) {
                assertThat(starts.get(week)).as(zone + " week " + week)
                        .isEqualTo(first.plusWeeks(week).atTime(10, 0).atZone(z).toInstant());
                assertThat(starts.get(week).atZone(z).toLocalTime()).isEqualTo(LocalTime.of(10, 0));
            }
        }
        assertThat(strings("SELECT starts_at FROM " + p + "slot WHERE tenant_id = ? AND slot_id = ?", t.value(),
                "s-Europe-Berlin/2030-04-01")).hasSize(1);
    }

    @Test
    void anAllOrNothingSeriesWithOneConflictWritesNothingAndBestEffortWritesTheRest() throws SQLException {
        TenantId t = tenant();
        ZoneId z = ZoneOffset.UTC;
        SeriesId id = SeriesId.of("weekly");
        SeriesSpec spec = SeriesSpec.weekly(id, CoachId.of("ana"), RoomId.of("studio"), 4)
                .on(DayOfWeek.MONDAY).at(LocalTime.of(10, 0), Duration.ofHours(1), z)
                .from(LocalDate.of(2030, 6, 3)).forWeeks(4).withCost(1);
        // the coach is busy in the third week
        Slot blocker = new Slot(t, SlotId.of("blocker"), CoachId.of("ana"), RoomId.of("elsewhere"),
                TimeRange.of(Instant.parse("2030-06-17T10:30:00Z"), Duration.ofHours(1)), 1, SlotStatus.OPEN);
        assertThat(store.schedule(t, blocker, LONGEST, z)).isInstanceOf(Scheduled.class);
        String v = t.value();

        SeriesResult all = store.scheduleSeries(t, id, SeriesMode.ALL_OR_NOTHING, slots(t, spec), LONGEST, z);
        assertThat(all.occurrences()).extracting(SeriesResult.Occurrence::status).containsExactly(
                SeriesResult.Occurrence.Status.ROLLED_BACK, SeriesResult.Occurrence.Status.ROLLED_BACK,
                SeriesResult.Occurrence.Status.CONFLICT, SeriesResult.Occurrence.Status.ROLLED_BACK);
        assertThat(longs("SELECT COUNT(*) FROM " + p + "slot WHERE tenant_id = ?", v)).containsExactly(1L);
        assertThat(longs("SELECT COUNT(*) FROM " + p + "slot_seat WHERE tenant_id = ?", v)).containsExactly(1L);
        assertThat(longs("SELECT COUNT(*) FROM " + p + "occupancy WHERE tenant_id = ?", v)).containsExactly(2L);

        SeriesResult some = store.scheduleSeries(t, id, SeriesMode.BEST_EFFORT, slots(t, spec), LONGEST, z);
        assertThat(some.scheduled()).isEqualTo(3);
        assertThat(longs("SELECT COUNT(*) FROM " + p + "slot WHERE tenant_id = ? AND series_id = 'weekly'"
                + " AND cost = 1", v)).containsExactly(3L);
        assertThat(longs("SELECT COUNT(*) FROM " + p + "slot_seat WHERE tenant_id = ?", v)).containsExactly(13L);
        // cancelling from the second week on cancels the two occurrences left
        assertThat(store.cancelSeries(t, id, Instant.parse("2030-06-05T00:00:00Z"), NOW).result().slots()).hasSize(2);
        assertThat(longs("SELECT COUNT(*) FROM " + p + "slot WHERE tenant_id = ? AND series_id = 'weekly'"
                + " AND status = 'CANCELLED'", v)).containsExactly(2L);
    }

    // ------------------------------------------------------------------ helpers

    private List<Slot> slots(TenantId t, SeriesSpec spec) {
        List<Slot> out = new ArrayList<>();
        for (SlotSpec occurrence : spec.occurrences()) {
            out.add(Slot.open(t, occurrence).inSeries(spec.seriesId()));
        }
        return out;
    }

    Terms terms(BookingRules rules) {
        return new Terms(rules, HOLD, LONGEST);
    }

    void schedule(TenantId t, String slot, Instant start, int capacity, int cost) {
        Slot s = new Slot(t, SlotId.of(slot), CoachId.of("coach-" + slot), RoomId.of("room-" + slot),
                TimeRange.of(start, Duration.ofHours(1)), capacity, SlotStatus.OPEN, null, null, Duration.ZERO, null,
                false, null, cost, null);
        assertThat(store.schedule(t, s, LONGEST, ZoneOffset.UTC)).isInstanceOf(Scheduled.class);
    }

    HoldResult hold(TenantId t, String slot, String student, Instant now, BookingRules rules) {
        return command(t, slot, student, now, rules, BookingStatus.HELD);
    }

    HoldResult book(TenantId t, String slot, String student, Instant now, BookingRules rules) {
        return command(t, slot, student, now, rules, BookingStatus.CONFIRMED);
    }

    private HoldResult command(TenantId t, String slot, String student, Instant now, BookingRules rules,
                               BookingStatus status) {
        String id = UUID.randomUUID().toString();
        HoldRequest request = HoldRequest.of(RequestId.of("q-" + id), SlotId.of(slot), StudentId.of(student));
        return store.hold(t, new HoldCommand(BookingId.of("b-" + id), request, status, now, HOLD, LONGEST, false,
                rules)).result();
    }

    /** The tenant's journal as reason:count, by reason. */
    List<String> reasons(TenantId t) throws SQLException {
        List<String> out = new ArrayList<>();
        query("SELECT reason, COUNT(*) FROM " + p + "credit_entry WHERE tenant_id = ? GROUP BY reason ORDER BY reason",
                rs -> out.add(rs.getString(1) + ":" + rs.getLong(2)), t.value());
        return out;
    }

    static TenantId tenant() {
        return TenantId.of("l-" + UUID.randomUUID());
    }

    interface Row {
        void read(ResultSet rs) throws SQLException;
    }

    void query(String sql, Row row, String... args) throws SQLException {
        try (Connection c = db.dataSource().getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
            for (int i = 0; i < args.length; i++) {
                ps.setString(i + 1, args[i]);
            }
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    row.read(rs);
                }
            }
        }
    }

    List<String> strings(String sql, String... args) throws SQLException {
        List<String> out = new ArrayList<>();
        query(sql, rs -> out.add(rs.getString(1)), args);
        return out;
    }

    List<Long> longs(String sql, String... args) throws SQLException {
        List<Long> out = new ArrayList<>();
        query(sql, rs -> out.add(rs.getLong(1)), args);
        return out;
    }
}
