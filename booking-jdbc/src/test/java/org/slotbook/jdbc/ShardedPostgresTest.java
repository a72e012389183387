package org.slotbook.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.slotbook.core.Booking;
import org.slotbook.core.BookingEngine;
import org.slotbook.core.BookingStoreException;
import org.slotbook.core.CancelResult;
import org.slotbook.core.Cancelled;
import org.slotbook.core.CoachId;
import org.slotbook.core.ConfirmResult;
import org.slotbook.core.Confirmed;
import org.slotbook.core.Full;
import org.slotbook.core.Held;
import org.slotbook.core.HoldPolicy;
import org.slotbook.core.HoldRequest;
import org.slotbook.core.HoldResult;
import org.slotbook.core.RequestId;
import org.slotbook.core.RoomId;
import org.slotbook.core.SlotId;
import org.slotbook.core.SlotSpec;
import org.slotbook.core.StudentId;
import org.slotbook.core.TenantId;
import org.slotbook.core.TimeRange;
import org.slotbook.core.memory.InMemorySeatReservation;
import org.slotbook.core.shard.ShardMapping;
import org.slotbook.core.shard.TenantRoutedStore;
import org.slotbook.core.spi.BookingStore;
import org.slotbook.core.tck.BookingEngineContract;
import org.slotbook.core.tck.Fixtures;
import org.slotbook.jdbc.testing.LocalPostgresServer;
import org.slotbook.jdbc.testing.TestDatabases;
import org.slotbook.jdbc.testing.TestDatabases.TestDatabase;

/**
 * A ledger sharded by tenant over two real PostgreSQL servers: the one the tests are pointed at and a
 * second one this class starts on a free loopback port. The engine contract passes through the routed
 * store; a shard that is stopped fails only its own tenants; a tenant moves between the servers with
 * {@link TenantMove}, checked by SQL on both.
 */
class ShardedPostgresTest {
    private static LocalPostgresServer server;
    private static TestDatabase main;
    private static TestDatabase spare;
    private static final Map<TenantId, String> TABLE = new ConcurrentHashMap<>();
    private static TenantRoutedStore routed;

    @BeforeAll
    static void twoServers() {
        main = TestDatabases.postgres();
        server = LocalPostgresServer.start();
        spare = TestDatabases.at("PostgreSQL (second server)", server.jdbcUrl() + "&connectTimeout=2", 2_000);
        routed = TenantRoutedStore.builder()
                .shard("main", main.store())
                .shard("spare", spare.store())
                .mapping(ShardMapping.table(TABLE, ShardMapping.rendezvous(List.of("main", "spare"))))
                .build();
    }

    @AfterAll
    static void stopServers() {
        if (spare != null) {
            spare.close();
        }
        if (main != null) {
            main.close();
        }
        if (server != null) {
            server.close();
        }
    }

    @Nested
    class EngineContractAcrossTwoServers extends BookingEngineContract {
        @Override
        protected BookingStore store() {
            return routed;
        }

        @Override
        protected int raceThreads() {
            return 8;
        }
    }

    private final Instant start = Instant.now().truncatedTo(ChronoUnit.HOURS).plus(Duration.ofDays(2));

    private BookingEngine engine(InMemorySeatReservation gate) {
        return BookingEngine.builder().store(routed).reservation(gate).holdPolicy(HoldPolicy.ofDefaults()).build();
    }

    private void schedule(BookingEngine engine, TenantId tenant, SlotId slot, int seats, int hour) {
        engine.schedule(tenant, new SlotSpec(slot, CoachId.of("coach-" + slot.value()), RoomId.of("room-" + slot.value()),
                TimeRange.of(start.plus(Duration.ofHours(hour)), Duration.ofMinutes(50)), seats));
    }

    private static Booking book(BookingEngine engine, TenantId tenant, SlotId slot, String student) {
        HoldResult result = engine.hold(tenant, HoldRequest.of(RequestId.random(), slot, StudentId.of(student)));
        assertThat(result).as("%s holds %s", student, slot).isInstanceOf(Held.class);
        return ((Held) result).booking();
    }

    @Test
    void withTheSecondServerStoppedItsTenantsFailAndTheOthersAreServedAndNothingIsLost() {
        TenantId onMain = Fixtures.tenant();
        TenantId onSpare = Fixtures.tenant();
        TABLE.put(onMain, "main");
        TABLE.put(onSpare, "spare");
        BookingEngine engine = engine(InMemorySeatReservation.create());
        SlotId slot = SlotId.of("pilates");
        schedule(engine, onMain, slot, 4, 0);
        schedule(engine, onSpare, slot, 4, 0);
        Booking before = book(engine, onSpare, slot, "before");

        server.stop();
        try {
            book(engine, onMain, slot, "during-1");
            book(engine, onMain, slot, "during-2");
            assertThatThrownBy(() -> engine.hold(onSpare, HoldRequest.of(RequestId.random(), slot,
                    StudentId.of("during")))).isInstanceOf(BookingStoreException.class);
            assertThatThrownBy(() -> engine.availability(onSpare, slot)).isInstanceOf(BookingStoreException.class);
            assertThat(liveCount(main, onMain, slot)).isEqualTo(2);
        } finally {
            server.startAgain();
        }

        assertThat(liveCount(spare, onSpare, slot)).as("the booking made before the outage is still there")
                .isEqualTo(1);
        assertThat(rows(spare, "SELECT booking_id, status FROM %sbooking WHERE tenant_id = ?", onSpare))
                .containsExactly(List.of(before.bookingId().value(), "HELD"));
        book(engine, onSpare, slot, "after");
        assertThat(liveCount(spare, onSpare, slot)).isEqualTo(2);
        assertThat(liveCount(main, onSpare, slot)).as("nothing of it on the other server").isZero();
        assertThat(liveCount(spare, onMain, slot)).isZero();
    }

    @Test
    void aTenantMovesToTheSecondServerWithNothingLostAndNothingOversold() {
        TenantId tenant = Fixtures.tenant();
        TABLE.put(tenant, "main");
        InMemorySeatReservation gate = InMemorySeatReservation.create();
        BookingEngine engine = engine(gate);
        SlotId small = SlotId.of("small");
        SlotId sold = SlotId.of("sold-out");
        schedule(engine, tenant, small, 5, 0);
        schedule(engine, tenant, sold, 3, 2);
        List<Booking> kept = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            kept.add(book(engine, tenant, small, "s" + i));
        }
        ConfirmResult confirmed = engine.confirm(tenant, kept.get(0).bookingId(), kept.get(0).studentId());
        assertThat(confirmed).isInstanceOf(Confirmed.class);
        CancelResult cancelled = engine.cancel(tenant, kept.get(2).bookingId(), kept.get(2).studentId());
        assertThat(cancelled).isInstanceOf(Cancelled.class);
        for (int i = 0; i < 3; i++) {
            book(engine, tenant, sold, "t" + i);
        }
        String bookings = "SELECT booking_id, request_id, slot_id, student_id, seat, status FROM %sbooking"
                + " WHERE tenant_id = ? ORDER BY booking_id";
        String seats = "SELECT slot_id, seq, status, booking_id, student_id FROM %sslot_seat"
                + " WHERE tenant_id = ? ORDER BY slot_id, seq";
        String occupancy = "SELECT resource_kind, resource_id, slot_id, booking_id, active FROM %soccupancy"
                + " WHERE tenant_id = ? ORDER BY resource_kind, resource_id, slot_id, booking_id";
        List<List<Object>> bookingsBefore = rows(main, bookings, tenant);
        List<List<Object>> seatsBefore = rows(main, seats, tenant);
        List<List<Object>> occupancyBefore = rows(main, occupancy, tenant);

        // 1. the tenant's traffic is stopped (no calls below until the switch); 2. copy
        TenantMove move = TenantMove.builder(main.dataSource(), spare.dataSource())
                .sourcePrefix(main.prefix()).targetPrefix(spare.prefix()).build();
        Map<String, Integer> copied = move.copy(tenant);
        assertThat(copied).containsEntry("slot", 2).containsEntry("slot_seat", 8).containsEntry("booking", 6);
        assertThat(rows(spare, bookings, tenant)).isEqualTo(bookingsBefore);
        assertThat(rows(spare, seats, tenant)).isEqualTo(seatsBefore);
        assertThat(rows(spare, occupancy, tenant)).isEqualTo(occupancyBefore);
        assertThatThrownBy(() -> move.copy(tenant)).as("a second copy is refused")
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("already holds");
        // 3. switch the mapping; 4. reconcile the gate from the ledger it now reads
        TABLE.put(tenant, "spare");
        engine.reconcileAll(tenant);
        assertThat(gate.inspect(tenant, small).orElseThrow().remaining()).isEqualTo(3);
        // 5. traffic again, then the source rows go
        assertThat(move.deleteFromSource(tenant)).isPositive();
        assertThat(rows(main, bookings, tenant)).isEmpty();
        assertThat(rows(main, "SELECT slot_id FROM %sslot WHERE tenant_id = ?", tenant)).isEmpty();

        assertThat(engine.confirm(tenant, kept.get(1).bookingId(), kept.get(1).studentId()))
                .as("a hold taken before the move is confirmed after it").isInstanceOf(Confirmed.class);
        int took = 0;
        for (int i = 0; i < 6; i++) {
            HoldResult r = engine.hold(tenant, HoldRequest.of(RequestId.random(), small, StudentId.of("late" + i)));
            if (r instanceof Held) {
                took++;
            } else {
                assertThat(r).isInstanceOf(Full.class);
            }
        }
        assertThat(took).as("the seat freed by the cancel and the two never sold").isEqualTo(3);
        assertThat(engine.hold(tenant, HoldRequest.of(RequestId.random(), sold, StudentId.of("late"))))
                .isInstanceOf(Full.class);
        assertThat(liveCount(spare, tenant, small)).isEqualTo(5);
        assertThat(liveCount(spare, tenant, sold)).isEqualTo(3);
        assertThat(rows(spare, "SELECT slot_id, student_id FROM %sbooking WHERE tenant_id = ?"
                + " AND status IN ('HELD', 'CONFIRMED') GROUP BY slot_id, student_id HAVING COUNT(*) > 1", tenant))
                .as("no student twice in a slot").isEmpty();
        assertThat(rows(spare, "SELECT s.slot_id FROM %sslot s WHERE s.tenant_id = ? AND s.capacity < (SELECT COUNT(*)"
                + " FROM " + spare.prefix() + "slot_seat x WHERE x.tenant_id = s.tenant_id AND x.slot_id = s.slot_id"
                + " AND x.status IN ('HELD', 'CONFIRMED'))", tenant)).as("no slot oversold").isEmpty();
        assertThat(rows(spare, "SELECT booking_id, status FROM %sbooking WHERE tenant_id = ? AND booking_id = ?",
                tenant, kept.get(0).bookingId().value())).containsExactly(List.of(kept.get(0).bookingId().value(),
                "CONFIRMED"));
    }

    private static long liveCount(TestDatabase db, TenantId tenant, SlotId slot) {
        return (Long) rows(db, "SELECT COUNT(*) FROM %sbooking WHERE tenant_id = ? AND slot_id = ?"
                + " AND status IN ('HELD', 'CONFIRMED')", tenant, slot.value()).get(0).get(0);
    }

    private static List<List<Object>> rows(TestDatabase db, String sql, TenantId tenant, String... more) {
        try (Connection c = db.dataSource().getConnection();
             PreparedStatement ps = c.prepareStatement(String.format(sql, db.prefix()))) {
            ps.setString(1, tenant.value());
            for (int i = 0; i < more.length; i++) {
                ps.setString(i + 2, more[i]);
            }
            List<List<Object>> out = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                int n = rs.getMetaData().getColumnCount();
                while (rs.next()) {
                    List<Object> row = new ArrayList<>();
                    for (int i = 1; i <= n; i++) {
                        row.add(rs.getObject(i));
                    }
                    out.add(row);
                }
            }
            return out;
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}
