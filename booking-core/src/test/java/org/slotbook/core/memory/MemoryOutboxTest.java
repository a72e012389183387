package org.slotbook.core.memory;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.slotbook.core.Booking;
import org.slotbook.core.BookingId;
import org.slotbook.core.BookingStatus;
import org.slotbook.core.RequestId;
import org.slotbook.core.TenantId;
import org.slotbook.core.outbox.OutboxEvent;
import org.slotbook.core.spi.BookingEvent;
import org.slotbook.core.tck.Fixtures;

/** The in-memory outbox over many events: ids, delivery records and retention across its chunks. */
class MemoryOutboxTest {
    private final Instant now = Instant.parse("2030-01-01T10:00:00Z");
    private final MemoryOutbox outbox = new MemoryOutbox(Clock.fixed(now, ZoneOffset.UTC));
    private final TenantId tenant = Fixtures.tenant();

    private BookingEvent event(int i) {
        Booking b = new Booking(tenant, BookingId.random(), RequestId.of("r" + i), Fixtures.slot(), Fixtures.student(),
                1, BookingStatus.HELD, now.plusSeconds(600), now.minusSeconds(60), now.minusSeconds(60));
        return new BookingEvent(BookingEvent.Kind.HELD, b);
    }

    @Test
    void tenThousandEventsKeepTheirIdsThroughDeliveryAndPurge() {
        List<BookingEvent> events = new ArrayList<>();
        for (int i = 0; i < 10_000; i++) {
            events.add(event(i));
        }
        outbox.append(tenant, events.subList(0, 6_000));
        outbox.append(tenant, events.subList(6_000, 10_000));

        // the node that decided delivered the first 9,000; the relay delivers the rest once each
        assertThat(outbox.deliveredInProcess(tenant, "node", events.subList(0, 9_000), now)).isEqualTo(9_000);
        assertThat(outbox.deliveredInProcess(tenant, "node", events.subList(0, 9_000), now)).isZero();
        List<OutboxEvent> due = outbox.claim(tenant, "relay", now, Duration.ofSeconds(30), Duration.ZERO, 1000);
        assertThat(due).extracting(OutboxEvent::id).containsExactlyElementsOf(
                LongStream.rangeClosed(9_001, 10_000).boxed().toList());
        assertThat(due.get(0).event()).isEqualTo(events.get(9_000));
        outbox.delivered(tenant, "relay", due.stream().map(OutboxEvent::id).toList(), now.plusSeconds(5));
        assertThat(outbox.stats(tenant, now).pending()).isZero();
        assertThat(outbox.backlogTenants(null, 10)).doesNotContain(tenant);

        // retention: what was delivered before the horizon goes, in pages; ids never move
        assertThat(outbox.purge(tenant, Duration.ofSeconds(1), now.plusSeconds(3), 5_000)).isEqualTo(5_000);
        assertThat(outbox.purge(tenant, Duration.ofSeconds(1), now.plusSeconds(3), 5_000)).isEqualTo(4_000);
        assertThat(outbox.read(tenant, 0, 3)).extracting(OutboxEvent::id).containsExactly(9_001L, 9_002L, 9_003L);
        assertThat(outbox.read(tenant, 9_998, 10)).extracting(OutboxEvent::id).containsExactly(9_999L, 10_000L);
        assertThat(outbox.read(tenant, 9_001, 1).get(0).deliveredAt()).isEqualTo(now.plusSeconds(5));

        // later events get the next ids, also after the purged chunks are gone
        outbox.append(tenant, List.of(event(10_000)));
        assertThat(outbox.read(tenant, 10_000, 10)).extracting(OutboxEvent::id).containsExactly(10_001L);
        assertThat(outbox.stats(tenant, now).lastId()).isEqualTo(10_001L);
        assertThat(outbox.purge(tenant, Duration.ZERO, now.plusSeconds(10), 5_000)).isEqualTo(1_000);
        assertThat(outbox.read(tenant, 0, 10)).extracting(OutboxEvent::id).containsExactly(10_001L);
    }

    @Test
    void aDeadEventKeepsItsTriesUntilAnOperatorDeliversItAgain() {
        outbox.append(tenant, List.of(event(1), event(2)));
        assertThat(outbox.failed(tenant, "relay", 1, "boom", now, Duration.ofSeconds(1), 2))
                .isEqualTo(OutboxEvent.State.PENDING);
        assertThat(outbox.read(tenant, 0, 1).get(0).attempts()).isEqualTo(1);
        assertThat(outbox.failed(tenant, "relay", 1, "boom again", now, Duration.ofSeconds(1), 2))
                .isEqualTo(OutboxEvent.State.DEAD);
        assertThat(outbox.dead(tenant, 10)).singleElement().satisfies(e -> {
            assertThat(e.attempts()).isEqualTo(2);
            assertThat(e.lastError()).isEqualTo("boom again");
        });
        assertThat(outbox.stats(tenant, now).dead()).isEqualTo(1);
        assertThat(outbox.stats(tenant, now).pending()).isEqualTo(1);

        assertThat(outbox.redeliver(tenant, 1)).isTrue();
        assertThat(outbox.redeliver(tenant, 1)).isFalse();
        assertThat(outbox.stats(tenant, now).dead()).isZero();
        assertThat(outbox.claim(tenant, "relay", now, Duration.ofSeconds(30), Duration.ZERO, 10))
                .extracting(OutboxEvent::id).containsExactly(1L, 2L);
    }
}
