package org.slotbook.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.slotbook.core.Booking;
import org.slotbook.core.BookingEngine;
import org.slotbook.core.BookingListener;
import org.slotbook.core.BookingStatus;
import org.slotbook.core.CoachId;
import org.slotbook.core.Confirmed;
import org.slotbook.core.Held;
import org.slotbook.core.HoldPolicy;
import org.slotbook.core.HoldRequest;
import org.slotbook.core.RequestId;
import org.slotbook.core.RoomId;
import org.slotbook.core.Scheduled;
import org.slotbook.core.SlotId;
import org.slotbook.core.SlotSpec;
import org.slotbook.core.StudentId;
import org.slotbook.core.TenantId;
import org.slotbook.core.TimeRange;
import org.slotbook.core.Waitlisted;
import org.slotbook.core.memory.InMemorySeatReservation;
import org.slotbook.core.outbox.OutboxSettings;
import org.slotbook.core.spi.GateHolder;
import org.slotbook.core.spi.GateView;
import org.slotbook.jdbc.testing.TestDatabases;
import org.slotbook.jdbc.testing.TestDatabases.TestDatabase;

/**
 * A node dies between the commit of a promotion and its delivery: a child JVM cancels Ann's booking (the
 * cancel commits and promotes Wes from the waitlist) and halts as its listener is called. Another node's
 * relay then delivers the cancel and the promotion, once each (the event table shows them delivered once,
 * by that relay), and its gate counts Wes.
 */
class OutboxCrashTest {

    @Test
    void aPromotionCommittedByANodeThatDiedIsDeliveredOnceByAnotherNodeAndReachesTheGate() throws Exception {
        String url = System.getenv(TestDatabases.POSTGRES_URL);
        Assumptions.assumeTrue(url != null && !url.isBlank(), TestDatabases.POSTGRES_URL + " is not set");
        try (TestDatabase db = TestDatabases.postgres()) {
            List<String> heard = Collections.synchronizedList(new ArrayList<>());
            InMemorySeatReservation gate = InMemorySeatReservation.create();
            BookingEngine engine = BookingEngine.builder()
                    .store(db.store())
                    .reservation(gate)
                    .holdPolicy(HoldPolicy.ofMinutes(10))
                    .outbox(OutboxSettings.defaults().withRelayId("survivor").withFastPathGrace(Duration.ZERO))
                    .listener(new BookingListener() {
                        @Override
                        public void cancelled(Booking booking) {
                            heard.add("CANCELLED " + booking.studentId().value());
                        }

                        @Override
                        public void promoted(Booking booking) {
                            heard.add("PROMOTED " + booking.studentId().value());
                        }
                    })
                    .build();
            TenantId tenant = TenantId.of("crash-" + UUID.randomUUID());
            SlotId slot = SlotId.of("yoga");
            TimeRange time = TimeRange.of(java.time.Instant.now().plus(Duration.ofDays(1))
                    .truncatedTo(java.time.temporal.ChronoUnit.HOURS), Duration.ofHours(1));
            assertThat(engine.schedule(tenant, new SlotSpec(slot, CoachId.of("c"), RoomId.of("r"), time, 1)))
                    .isInstanceOf(Scheduled.class);
            StudentId ann = StudentId.of("ann");
            Booking anns = ((Held) engine.hold(tenant, HoldRequest.of(RequestId.random(), slot, ann))).booking();
            assertThat(engine.confirm(tenant, anns.bookingId(), ann)).isInstanceOf(Confirmed.class);
            HoldRequest wesWaits = HoldRequest.of(RequestId.random(), slot, StudentId.of("wes")).orWaitlist();
            assertThat(engine.hold(tenant, wesWaits)).isInstanceOf(Waitlisted.class);
            assertThat(engine.outbox().relay(tenant)).as("what this node heard is recorded, nothing to relay").isZero();

            Process child = new ProcessBuilder(System.getProperty("java.home") + File.separator + "bin" + File.separator
                    + "java", "-cp", System.getProperty("java.class.path"), OutboxCrashChild.class.getName(), url,
                    db.prefix(), tenant.value(), anns.bookingId().value(), ann.value())
                    .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            assertThat(child.waitFor(120, TimeUnit.SECONDS)).as("the child ended").isTrue();
            assertThat(child.exitValue()).as("halted in its listener").isEqualTo(3);

            Booking wes = db.store().findByRequest(tenant, wesWaits.requestId()).orElseThrow();
            assertThat(wes.status()).as("the promotion committed").isEqualTo(BookingStatus.HELD);
            assertThat(states(db, tenant)).as("before the relay: nothing of the dead node's").containsExactly(
                    "HELD DELIVERED", "CONFIRMED DELIVERED", "CANCELLED PENDING", "PROMOTED PENDING");

            assertThat(engine.outbox().relay(tenant)).isEqualTo(2);
            assertThat(engine.outbox().relay(tenant)).isZero();

            assertThat(heard).containsExactly("CANCELLED ann", "PROMOTED wes");
            assertThat(db.count("SELECT COUNT(*) FROM " + db.table("event") + " WHERE tenant_id = ? AND kind = 'PROMOTED'"
                    + " AND state = 'DELIVERED' AND delivered_by = 'survivor' AND delivered_at IS NOT NULL",
                    tenant.value())).as("recorded delivered once, by the relay").isEqualTo(1);
            assertThat(states(db, tenant)).containsOnly("HELD DELIVERED", "CONFIRMED DELIVERED",
                    "CANCELLED DELIVERED", "PROMOTED DELIVERED");
            List<GateHolder> holders = gate.inspect(tenant, slot).map(GateView::holders).orElse(List.of());
            assertThat(holders).as("the gate counts the promoted waiter, not Ann").extracting(GateHolder::studentId)
                    .containsExactly(StudentId.of("wes"));
        }
    }

    /** The tenant's events as "KIND STATE", in the order they were written. */
    private static List<String> states(TestDatabase db, TenantId tenant) throws Exception {
        List<String> out = new ArrayList<>();
        try (Connection c = db.dataSource().getConnection();
             PreparedStatement ps = c.prepareStatement("SELECT kind, state FROM " + db.table("event")
                     + " WHERE tenant_id = ? ORDER BY event_id")) {
            ps.setString(1, tenant.value());
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(rs.getString(1) + " " + rs.getString(2));
                }
            }
        }
        return out;
    }
}
