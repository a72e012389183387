package org.slotbook.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.slotbook.core.Booking;
import org.slotbook.core.BookingId;
import org.slotbook.core.BookingStatus;
import org.slotbook.core.RequestId;
import org.slotbook.core.SlotId;
import org.slotbook.core.StudentId;
import org.slotbook.core.TenantId;
import org.slotbook.core.outbox.OutboxEvent;
import org.slotbook.core.spi.BookingEvent;
import org.slotbook.core.spi.OutboxStore;
import org.slotbook.core.tck.Fixtures;
import org.slotbook.jdbc.testing.CountingDataSource;
import org.slotbook.jdbc.testing.TestDatabases.TestDatabase;

/**
 * The JDBC outbox's set-wise steps, through its store interface on tables of their own: a backlog larger than
 * one statement's batch gets consecutive positions in the order the events were written; the deciding node's
 * deliveries, past one statement's list too, are recorded once each; recording events delivered again (by
 * the node or a relay, in either order) keeps the first record; and the statements of a relay pass do not
 * grow with the number of events.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class OutboxSqlTests {
    private static final Instant T1 = Instant.parse("2030-01-01T08:00:00Z");
    private static final Instant T2 = T1.plusSeconds(60);
    private static final Instant T3 = T1.plusSeconds(120);

    private TestDatabase db;
    private CountingDataSource counting;
    private OutboxStore outbox;

    protected abstract TestDatabase openDatabase();

    @BeforeAll
    void open() {
        db = openDatabase();
        counting = new CountingDataSource(db.dataSource());
        outbox = JdbcStore.builder(counting).tablePrefix(db.prefix()).dialect(db.dialect()).build().outbox();
    }

    @AfterAll
    void close() {
        if (db != null) {
            db.close();
        }
    }

    private static TenantId tenant() {
        return TenantId.of("ox-" + Fixtures.shortRandom());
    }

    @Test
    void aBacklogLargerThanOneStatementsBatchGetsConsecutivePositionsInTheOrderItWasWritten() {
        TenantId t = tenant();
        List<BookingEvent> written = write(t, "a", 2_345);

        List<OutboxEvent> read = readAll(t);

        assertThat(read).extracting(OutboxEvent::id).containsExactlyElementsOf(range(1, 2_345));
        assertThat(read).extracting(e -> e.booking().bookingId())
                .containsExactlyElementsOf(written.stream().map(e -> e.booking().bookingId()).toList());
        assertThat(outbox.stats(t, null).lastId()).isEqualTo(2_345);

        List<BookingEvent> more = write(t, "b", 10);
        assertThat(outbox.read(t, 2_345, 100)).extracting(OutboxEvent::id).containsExactlyElementsOf(range(2_346, 2_355));
        assertThat(outbox.read(t, 2_345, 100)).extracting(e -> e.booking().bookingId())
                .containsExactlyElementsOf(more.stream().map(e -> e.booking().bookingId()).toList());
        assertThat(outbox.stats(t, null).lastId()).isEqualTo(2_355);
    }

    @Test
    void theDecidingNodesDeliveriesPastOneStatementsListAreRecordedOnceEach() {
        TenantId t = tenant();
        List<BookingEvent> events = new ArrayList<>(write(t, "a", 600));
        assertThat(outbox.read(t, 0, 1)).as("the first 600 get positions").hasSize(1);
        events.addAll(write(t, "b", 1_500));
        List<BookingEvent> told = new ArrayList<>(events.subList(0, 2_050));
        told.add(told.get(7)); // the same event named twice is recorded once

        assertThat(outbox.deliveredInProcess(t, "node-a", told, T1)).isEqualTo(2_050);

        List<OutboxEvent> read = readAll(t);
        assertThat(read).extracting(OutboxEvent::id).containsExactlyElementsOf(range(1, 2_100));
        assertThat(read.subList(0, 2_050)).extracting(OutboxEvent::state).containsOnly(OutboxEvent.State.DELIVERED);
        assertThat(read.subList(0, 2_050)).extracting(OutboxEvent::deliveredAt).containsOnly(T1);
        assertThat(read.subList(2_050, 2_100)).extracting(OutboxEvent::state).containsOnly(OutboxEvent.State.PENDING);
        assertThat(outbox.deliveredInProcess(t, "node-b", told, T2)).as("told again").isZero();
        assertThat(deliveredBy(t).values()).hasSize(2_050).containsOnly("node-a");
    }

    @Test
    void recordingEventsDeliveredAgainKeepsTheFirstRecordWhoeverRecordsItAndInEitherOrder() {
        TenantId t = tenant();
        List<BookingEvent> first = write(t, "a", 3);
        assertThat(outbox.read(t, 0, 10)).as("three with a position").hasSize(3);
        List<BookingEvent> second = write(t, "b", 3);
        List<BookingEvent> all = new ArrayList<>(first);
        all.addAll(second);

        // by the node first, with and without a position, then again by another node and by a relay
        assertThat(outbox.deliveredInProcess(t, "node-a", all, T1)).isEqualTo(6);
        assertThat(outbox.deliveredInProcess(t, "node-b", all, T2)).isZero();
        outbox.delivered(t, "relay-c", range(1, 6), T3);
        assertThat(readAll(t)).extracting(OutboxEvent::deliveredAt).containsOnly(T1);
        assertThat(deliveredBy(t).values()).hasSize(6).containsOnly("node-a");

        // by a relay first, then by the node that made them
        List<BookingEvent> third = write(t, "c", 2);
        assertThat(outbox.claim(t, "relay-c", T2, Duration.ofSeconds(30), Duration.ZERO, 100))
                .extracting(OutboxEvent::id).containsExactly(7L, 8L);
        outbox.delivered(t, "relay-c", List.of(7L, 8L), T2);
        outbox.delivered(t, "relay-d", List.of(7L, 8L), T3);
        assertThat(outbox.deliveredInProcess(t, "node-a", third, T3)).isZero();
        assertThat(outbox.read(t, 6, 10)).extracting(OutboxEvent::deliveredAt).containsOnly(T2);
        assertThat(deliveredBy(t)).containsEntry(7L, "relay-c").containsEntry(8L, "relay-c");
        assertThat(outbox.stats(t, T3).pending()).isZero();
    }

    @Test
    void aRelayPassRunsAsManyStatementsForThreeHundredEventsAsForFive() {
        int[] few = pass(5);
        int[] many = pass(300);
        System.out.println("[outbox statements] " + db + ": a relay pass over 10 events " + few[0] + " statements, "
                + few[1] + " round trips; over 600 events " + many[0] + " statements, " + many[1] + " round trips");
        assertThat(many[0]).as("statements of a pass over 600 events").isEqualTo(few[0]);
        assertThat(many[1]).as("round trips of a pass over 600 events").isEqualTo(few[1]);
    }

    /**
     * One relay pass over 2n events, n of them with a position already, all but the last two told delivered by
     * the node that made them: the node's record, then a claim of the two others and their record by the relay.
     * Answers the statements it ran and its round trips.
     */
    private int[] pass(int n) {
        TenantId t = tenant();
        List<BookingEvent> events = new ArrayList<>(write(t, "a", n));
        assertThat(outbox.read(t, 0, 1)).hasSize(1);
        events.addAll(write(t, "b", n));
        counting.reset();
        assertThat(outbox.deliveredInProcess(t, "node-a", events.subList(0, 2 * n - 2), T1)).isEqualTo(2 * n - 2);
        List<OutboxEvent> claimed = outbox.claim(t, "relay-c", T1, Duration.ofSeconds(30), Duration.ZERO, 100);
        assertThat(claimed).extracting(OutboxEvent::id).containsExactly(2L * n - 1, 2L * n);
        outbox.delivered(t, "relay-c", claimed.stream().map(OutboxEvent::id).toList(), T1);
        int[] used = {counting.statements(), counting.roundTrips()};
        assertThat(outbox.stats(t, T1).pending()).isZero();
        return used;
    }

    // ------------------------------------------------------------------ helpers

    private static List<Long> range(long from, long to) {
        List<Long> out = new ArrayList<>();
        for (long i = from; i <= to; i++) {
            out.add(i);
        }
        return out;
    }

    private List<OutboxEvent> readAll(TenantId t) {
        List<OutboxEvent> out = new ArrayList<>();
        while (true) {
            List<OutboxEvent> page = outbox.read(t, out.isEmpty() ? 0 : out.get(out.size() - 1).id(), 1000);
            if (page.isEmpty()) {
                return out;
            }
            out.addAll(page);
        }
    }

    /** Writes {@code n} HELD events of bookings {@code <prefix>0000...}, as the decisions do (no position yet). */
    private List<BookingEvent> write(TenantId t, String prefix, int n) {
        String now = db.dialect() == JdbcDialect.MARIADB ? "UTC_TIMESTAMP(6)" : "CURRENT_TIMESTAMP";
        List<BookingEvent> out = new ArrayList<>();
        try (Connection c = db.dataSource().getConnection();
             PreparedStatement ps = c.prepareStatement("INSERT INTO " + db.table("event") + " (tenant_id, kind,"
                     + " booking_id, request_id, slot_id, student_id, seat, status, held_until, created_at, updated_at,"
                     + " written_at) VALUES (?, 'HELD', ?, ?, 's', ?, 1, 'HELD', " + now + ", " + now + ", " + now
                     + ", " + now + ")")) {
            for (int i = 0; i < n; i++) {
                String booking = String.format("%s%04d", prefix, i);
                ps.setString(1, t.value());
                ps.setString(2, booking);
                ps.setString(3, "r-" + booking);
                ps.setString(4, "st-" + booking);
                ps.addBatch();
                out.add(new BookingEvent(BookingEvent.Kind.HELD, new Booking(t, BookingId.of(booking),
                        RequestId.of("r-" + booking), SlotId.of("s"), StudentId.of("st-" + booking), 1,
                        BookingStatus.HELD, T1, T1, T1)));
            }
            ps.executeBatch();
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
        return out;
    }

    /** The delivered events' recorders, by position. */
    private Map<Long, String> deliveredBy(TenantId t) {
        Map<Long, String> out = new LinkedHashMap<>();
        try (Connection c = db.dataSource().getConnection();
             PreparedStatement ps = c.prepareStatement("SELECT pos, delivered_by FROM " + db.table("event")
                     + " WHERE tenant_id = ? AND state = 'DELIVERED' ORDER BY pos")) {
            ps.setString(1, t.value());
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.put(rs.getLong(1), rs.getString(2));
                }
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
        return out;
    }
}
