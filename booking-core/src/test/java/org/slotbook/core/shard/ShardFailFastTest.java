package org.slotbook.core.shard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.slotbook.core.BookingStoreException;
import org.slotbook.core.Identifier;
import org.slotbook.core.SlotId;
import org.slotbook.core.StoreUnreachableException;
import org.slotbook.core.TenantId;
import org.slotbook.core.memory.InMemoryStore;
import org.slotbook.core.spi.BookingStore;
import org.slotbook.core.tck.ForwardingStore;

/**
 * The routed store's fail-fast circuit per shard, over a shard whose calls can be made to fail as a
 * pool that gets no connection fails them; and the one order of ids the shards page by.
 */
class ShardFailFastTest {
    /** A shard that, while down, fails every call as an unreachable database does, counting the calls it got. */
    private static final class Switchable extends ForwardingStore {
        volatile boolean down;
        volatile RuntimeException failure = new StoreUnreachableException("could not open a database connection", null);
        final AtomicInteger calls = new AtomicInteger();

        Switchable() {
            super(InMemoryStore.create());
        }

        @Override
        protected BookingStore delegate() {
            calls.incrementAndGet();
            if (down) {
                throw failure;
            }
            return delegate;
        }
    }

    private final Switchable flaky = new Switchable();
    private final TenantId onFlaky = TenantId.of("on-flaky");
    private final TenantId onSteady = TenantId.of("on-steady");
    private final TenantRoutedStore routed = TenantRoutedStore.builder()
            .shard("flaky", flaky).shard("steady", InMemoryStore.create())
            .shardBackoff(Duration.ofSeconds(1))
            .mapping(ShardMapping.table(Map.of(onFlaky, "flaky"), t -> "steady"))
            .build();

    private void read(TenantId tenant) {
        routed.slots(tenant, null, 10);
    }

    @Test
    void aShardWhoseCallGotNoConnectionFailsFastUntilATrialGetsThrough() throws InterruptedException {
        read(onFlaky);
        flaky.down = true;
        assertThatThrownBy(() -> read(onFlaky)).isInstanceOf(StoreUnreachableException.class);
        assertThat(routed.failingFast("flaky")).isTrue();
        int reached = flaky.calls.get();

        for (int i = 0; i < 50; i++) {
            assertThatThrownBy(() -> read(onFlaky)).isInstanceOf(StoreUnreachableException.class)
                    .hasMessageContaining("shard 'flaky' is unreachable")
                    .satisfies(e -> {
                        assertThat(((BookingStoreException) e).retryable()).isTrue();
                        assertThat(((BookingStoreException) e).outcomeUnknown()).isFalse();
                    });
        }
        read(onSteady);
        assertThat(flaky.calls.get()).as("calls that reached the shard while failing fast").isEqualTo(reached);
        assertThat(routed.failingFast("steady")).isFalse();

        Thread.sleep(1_100);
        assertThatThrownBy(() -> read(onFlaky)).as("the trial, still down").isInstanceOf(StoreUnreachableException.class);
        assertThat(flaky.calls.get()).as("one trial reached the shard").isEqualTo(reached + 1);
        assertThat(routed.failingFast("flaky")).isTrue();

        flaky.down = false;
        Thread.sleep(1_100);
        assertThatThrownBy(() -> read(onFlaky)).as("the back-off doubled after a failed trial")
                .isInstanceOf(StoreUnreachableException.class);
        Thread.sleep(1_100);
        read(onFlaky);
        assertThat(routed.failingFast("flaky")).as("closed by the trial's answer").isFalse();
        read(onFlaky);
        assertThat(flaky.calls.get()).isEqualTo(reached + 3);
    }

    @Test
    void otherFailuresDoNotFailTheShardFast() {
        flaky.down = true;
        flaky.failure = new BookingStoreException("deadlock, retries ran out", null, true, false);
        for (int i = 0; i < 5; i++) {
            assertThatThrownBy(() -> read(onFlaky)).isNotInstanceOf(StoreUnreachableException.class);
        }
        assertThat(routed.failingFast("flaky")).isFalse();
        assertThat(flaky.calls.get()).isEqualTo(5);
    }

    @Test
    void idsCompareByCodePointAsTheirUtf8BytesDo() {
        Random random = new Random(31);
        int[] blocks = {0x41, 0xE9, 0xD7FD, 0xE000, 0xFB01, 0xFFE8, 0x1D400, 0x1F600, 0x10FFF0};
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 400; i++) {
            StringBuilder id = new StringBuilder();
            for (int k = 0, n = 1 + random.nextInt(4); k < n; k++) {
                id.appendCodePoint(blocks[random.nextInt(blocks.length)] + random.nextInt(3));
            }
            ids.add(id.toString());
        }
        for (String a : ids) {
            for (String b : ids) {
                int bytes = Arrays.compareUnsigned(a.getBytes(StandardCharsets.UTF_8), b.getBytes(StandardCharsets.UTF_8));
                assertThat(Integer.signum(Identifier.compareCodePoints(a, b))).as("%s vs %s", a, b)
                        .isEqualTo(Integer.signum(bytes));
            }
        }
        assertThat(SlotId.of("s\uE000")).isLessThan(SlotId.of("s\uD83D\uDE00"));
    }
}
