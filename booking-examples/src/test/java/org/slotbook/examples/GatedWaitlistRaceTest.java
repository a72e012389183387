package org.slotbook.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.slotbook.core.tck.Concurrent;
import org.slotbook.core.Booking;
import org.slotbook.core.BookingEngine;
import org.slotbook.core.CoachId;
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
import org.slotbook.core.Waitlisted;
import org.slotbook.core.spi.GateHolder;
import org.slotbook.core.spi.GateView;
import org.slotbook.examples.bench.Backends;

/**
 * With the Redis gate in front of PostgreSQL, 1,000 threads race the cancels of a full, waitlisted
 * slot against new holds (some asking to wait). A seat freed by a cancel goes to the first eligible
 * waiter in the cancel's transaction, so no newcomer ever gets it through the gate. Afterwards, from
 * SQL: within capacity; no waiter with two seats in overlapping slots; every freed seat went to the
 * earliest eligible waiter (the two with an overlapping booking were skipped, with the reason); nobody
 * waits while a seat is free; and the gate, reconciled, counts exactly the ledger's holders.
 */
class GatedWaitlistRaceTest {

    @Test
    void aThousandThreadsNeverSellAPromotedSeatToANewcomer() throws Exception {
        String pg = System.getenv("SLOTBOOK_TEST_POSTGRES_URL");
        String redis = System.getenv("SLOTBOOK_TEST_REDIS_URL");
        boolean required = "true".equals(System.getenv("SLOTBOOK_TEST_REQUIRE_SERVICES"));
        if (pg == null || redis == null) {
            if (required) {
                throw new AssertionError("SLOTBOOK_TEST_POSTGRES_URL and SLOTBOOK_TEST_REDIS_URL are required");
            }
            Assumptions.abort("needs PostgreSQL and Redis");
        }
        try (Backends backends = Backends.open(pg, redis, false,
                new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8), 40,
                HoldPolicy.ofDefaults())) {
            BookingEngine engine = BookingEngine.builder().store(backends.store()).reservation(backends.gate())
                    .holdPolicy(HoldPolicy.ofDefaults()).build();
            TenantId tenant = TenantId.of("wl-race-" + UUID.randomUUID().toString().substring(0, 8));
            Instant start = Instant.now().truncatedTo(ChronoUnit.HOURS).plus(Duration.ofDays(2));
            SlotId hot = SlotId.of("hot");
            SlotId other = SlotId.of("other");
            engine.schedule(tenant, new SlotSpec(hot, CoachId.of("li"), RoomId.of("hall-a"),
                    TimeRange.of(start, Duration.ofHours(1)), 10));
            engine.schedule(tenant, new SlotSpec(other, CoachId.of("mei"), RoomId.of("hall-b"),
                    TimeRange.of(start.plus(Duration.ofMinutes(30)), Duration.ofHours(1)), 100));
            List<Booking> holders = new ArrayList<>();
            for (int i = 0; i < 10; i++) {
                holders.add(((Held) engine.book(tenant, HoldRequest.of(RequestId.random(), hot,
                        StudentId.of("holder-" + i)))).booking());
            }
            List<HoldRequest> line = new ArrayList<>();
            for (int i = 0; i < 60; i++) {
                HoldRequest r = HoldRequest.of(RequestId.random(), hot, StudentId.of("waiter-" + i)).orWaitlist();
                assertThat(engine.hold(tenant, r)).isInstanceOf(Waitlisted.class);
                line.add(r);
            }
            // two early waiters are now busy in an overlapping class: they must be skipped
            for (int i : new int[] {3, 7}) {
                assertThat(engine.book(tenant, HoldRequest.of(RequestId.random(), other, StudentId.of("waiter-" + i))))
                        .isInstanceOf(Held.class);
            }

            int threads = 1000;
            Concurrent.run(threads, n -> {
                if (n < holders.size()) {
                    Booking h = holders.get(n);
                    return engine.cancel(tenant, h.bookingId(), h.studentId());
                }
                HoldRequest r = HoldRequest.of(RequestId.random(), hot, StudentId.of("newcomer-" + n));
                return engine.hold(tenant, n % 4 == 0 ? r.orWaitlist() : r);
            });
            // every call has returned, so nothing is in flight: reconcile as an operator would once the
            // sale is over, without the in-flight grace (a gate call that timed out under 1,000 threads
            // may have left a newcomer's hold that its release could not reach)
            Thread.sleep(20);
            BookingEngine.builder().store(backends.store()).reservation(backends.gate())
                    .holdPolicy(HoldPolicy.ofDefaults().withInFlightGrace(Duration.ofMillis(10))).build()
                    .reconcile(tenant, hot);

            List<RequestId> expected = new ArrayList<>();
            for (int i = 0; expected.size() < 10; i++) {
                if (i != 3 && i != 7) {
                    expected.add(line.get(i).requestId());
                }
            }
            try (Connection c = backends.dataSource().getConnection()) {
                List<String> live = strings(c, "SELECT request_id FROM slotbook_booking WHERE tenant_id = ?"
                        + " AND slot_id = 'hot' AND status IN ('HELD', 'CONFIRMED')", tenant.value());
                assertThat(live).as("the seats of the hot slot, from SQL").hasSize(10)
                        .containsExactlyInAnyOrderElementsOf(expected.stream().map(RequestId::value).toList());
                assertThat(strings(c, "SELECT student_id FROM slotbook_booking WHERE tenant_id = ? AND slot_id = 'hot'"
                        + " AND status IN ('HELD', 'CONFIRMED') AND student_id LIKE 'newcomer-%'", tenant.value()))
                        .as("no newcomer got a seat").isEmpty();
                assertThat(strings(c, "SELECT request_id || ':' || reason FROM slotbook_waiter WHERE tenant_id = ?"
                        + " AND status = 'SKIPPED'", tenant.value())).containsExactlyInAnyOrder(
                        line.get(3).requestId().value() + ":CONFLICT", line.get(7).requestId().value() + ":CONFLICT");
                assertThat(strings(c, "SELECT p.request_id FROM slotbook_waiter p WHERE p.tenant_id = ?"
                        + " AND p.status = 'PROMOTED' AND EXISTS (SELECT 1 FROM slotbook_waiter w"
                        + " WHERE w.tenant_id = p.tenant_id AND w.slot_id = p.slot_id AND w.status = 'WAITING'"
                        + " AND w.seq < p.seq)", tenant.value())).as("promotions that jumped the line").isEmpty();
                assertThat(strings(c, "SELECT seq FROM slotbook_slot_seat WHERE tenant_id = ? AND slot_id = 'hot'"
                        + " AND status = 'FREE'", tenant.value())).as("free seats while 50 wait").isEmpty();
                assertThat(strings(c, "SELECT a.student_id FROM slotbook_booking a JOIN slotbook_booking b"
                        + " ON b.tenant_id = a.tenant_id AND b.student_id = a.student_id AND b.slot_id = 'other'"
                        + " WHERE a.tenant_id = ? AND a.slot_id = 'hot' AND a.status IN ('HELD', 'CONFIRMED')"
                        + " AND b.status IN ('HELD', 'CONFIRMED')", tenant.value()))
                        .as("students with seats in both overlapping slots").isEmpty();
            }
            GateView gate = backends.gate().inspect(tenant, hot).orElseThrow();
            Set<String> inGate = new HashSet<>();
            for (GateHolder h : gate.holders()) {
                inGate.add(h.requestId().value());
            }
            assertThat(inGate).as("the gate after reconcile counts the ledger's holders")
                    .containsExactlyInAnyOrderElementsOf(expected.stream().map(RequestId::value).toList());
        }
    }

    private static List<String> strings(Connection c, String sql, String tenant) throws Exception {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setString(1, tenant);
            List<String> out = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(rs.getString(1));
                }
            }
            return out;
        }
    }
}
