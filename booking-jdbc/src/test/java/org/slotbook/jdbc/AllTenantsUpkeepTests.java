package org.slotbook.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.slotbook.core.Booking;
import org.slotbook.core.BookingEngine;
import org.slotbook.core.BookingStatus;
import org.slotbook.core.CoachId;
import org.slotbook.core.Held;
import org.slotbook.core.HoldPolicy;
import org.slotbook.core.HoldRequest;
import org.slotbook.core.ReconciliationJob;
import org.slotbook.core.RequestId;
import org.slotbook.core.RoomId;
import org.slotbook.core.SlotId;
import org.slotbook.core.SlotSpec;
import org.slotbook.core.StudentId;
import org.slotbook.core.TenantId;
import org.slotbook.core.TimeRange;
import org.slotbook.core.tck.Fixtures;
import org.slotbook.core.tck.MutableClock;
import org.slotbook.jdbc.testing.TestDatabases.TestDatabase;

/**
 * Upkeep over every tenant of a JDBC store, the host naming none: the job pages through
 * {@link JdbcStore#tenants} and sweeps the holds that ran out in each.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class AllTenantsUpkeepTests {
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

    @Test
    void anAllTenantsRunSweepsTheExpiredHoldsOfEveryTenant() {
        MutableClock clock = new MutableClock();
        BookingEngine engine = BookingEngine.builder().store(store).clock(clock)
                .holdPolicy(HoldPolicy.ofDefaults()).build();
        Instant start = clock.instant().truncatedTo(ChronoUnit.HOURS).plus(Duration.ofDays(1));
        String prefix = "up-" + Fixtures.shortRandom() + "-";
        SlotId slot = SlotId.of("pilates");
        List<TenantId> tenants = new ArrayList<>();
        List<Booking> dying = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            TenantId tenant = TenantId.of(prefix + i);
            tenants.add(tenant);
            engine.schedule(tenant, new SlotSpec(slot, CoachId.of("c"), RoomId.of("r"),
                    TimeRange.of(start, Duration.ofHours(1)), 3));
            dying.add(hold(engine, tenant, slot));
        }
        clock.advance(HoldPolicy.ofDefaults().holdTtl().plusMinutes(1));
        Booking fresh = hold(engine, tenants.get(2), slot);

        assertThat(store.tenants(null, 100)).as("the tables are this class's own").containsExactlyElementsOf(tenants);
        ReconciliationJob.Run run = ReconciliationJob.builder(engine).tenantPage(2).build().runOnce().orElseThrow();

        assertThat(run.tenants()).isEqualTo(5);
        assertThat(run.failedTenants()).isZero();
        assertThat(run.expired()).isEqualTo(5);
        for (Booking b : dying) {
            assertThat(store.findBooking(b.tenantId(), b.bookingId()).orElseThrow().status())
                    .as("%s", b.tenantId()).isEqualTo(BookingStatus.EXPIRED);
            assertThat(((org.slotbook.core.Availability) engine.availability(b.tenantId(), slot)).remaining())
                    .isEqualTo(b.tenantId().equals(fresh.tenantId()) ? 2 : 3);
        }
        assertThat(store.findBooking(fresh.tenantId(), fresh.bookingId()).orElseThrow().status())
                .isEqualTo(BookingStatus.HELD);
    }

    private static Booking hold(BookingEngine engine, TenantId tenant, SlotId slot) {
        return ((Held) engine.hold(tenant, HoldRequest.of(RequestId.random(), slot, StudentId.of(Fixtures.shortRandom()))))
                .booking();
    }
}
