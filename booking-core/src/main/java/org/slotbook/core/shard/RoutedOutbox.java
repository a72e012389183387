package org.slotbook.core.shard;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.Set;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import org.slotbook.core.TenantId;
import org.slotbook.core.outbox.OutboxEvent;
import org.slotbook.core.outbox.OutboxStats;
import org.slotbook.core.spi.BookingEvent;
import org.slotbook.core.spi.BookingStore;
import org.slotbook.core.spi.OutboxStore;

/**
 * The outbox of a {@link TenantRoutedStore}: each call goes to the outbox of the tenant's shard, through
 * the shard's circuit; {@link #backlogTenants} merges the shards' pages (only the tenants the mapping
 * puts on each).
 */
final class RoutedOutbox implements OutboxStore {
    private final TenantRoutedStore routed;
    private final Set<String> shards;

    RoutedOutbox(TenantRoutedStore routed, Set<String> shards) {
        this.routed = routed;
        this.shards = shards;
    }

    private <T> T on(TenantId tenantId, Function<OutboxStore, T> call) {
        return routed.call(routed.shardOf(tenantId), store -> call.apply(outboxOf(store)));
    }

    private static OutboxStore outboxOf(BookingStore store) {
        OutboxStore outbox = store.outbox();
        if (outbox == null) {
            throw new UnsupportedOperationException("shard store " + store + " keeps no outbox");
        }
        return outbox;
    }

    @Override
    public List<OutboxEvent> claim(TenantId tenantId, String relay, @Nullable Instant now, Duration lease,
                                   Duration minAge, int limit) {
        return on(tenantId, o -> o.claim(tenantId, relay, now, lease, minAge, limit));
    }

    @Override
    public void delivered(TenantId tenantId, String by, List<Long> ids, @Nullable Instant now) {
        on(tenantId, o -> {
            o.delivered(tenantId, by, ids, now);
            return null;
        });
    }

    @Override
    public int deliveredInProcess(TenantId tenantId, String by, List<BookingEvent> events, @Nullable Instant now) {
        return on(tenantId, o -> o.deliveredInProcess(tenantId, by, events, now));
    }

    @Override
    public OutboxEvent.State failed(TenantId tenantId, String relay, long id, String error, @Nullable Instant now,
                                    Duration retryAfter, int maxAttempts) {
        return on(tenantId, o -> o.failed(tenantId, relay, id, error, now, retryAfter, maxAttempts));
    }

    @Override
    public boolean redeliver(TenantId tenantId, long id) {
        return on(tenantId, o -> o.redeliver(tenantId, id));
    }

    @Override
    public List<OutboxEvent> read(TenantId tenantId, long afterId, int limit) {
        return on(tenantId, o -> o.read(tenantId, afterId, limit));
    }

    @Override
    public List<OutboxEvent> dead(TenantId tenantId, int limit) {
        return on(tenantId, o -> o.dead(tenantId, limit));
    }

    @Override
    public OptionalLong cursor(TenantId tenantId, String consumer) {
        return on(tenantId, o -> o.cursor(tenantId, consumer));
    }

    @Override
    public void saveCursor(TenantId tenantId, String consumer, long id, @Nullable Instant now) {
        on(tenantId, o -> {
            o.saveCursor(tenantId, consumer, id, now);
            return null;
        });
    }

    @Override
    public OutboxStats stats(TenantId tenantId, @Nullable Instant now) {
        return on(tenantId, o -> o.stats(tenantId, now));
    }

    @Override
    public List<TenantId> backlogTenants(@Nullable TenantId after, int limit) {
        List<TenantId> merged = new ArrayList<>();
        for (String shard : shards) {
            List<TenantId> page = routed.call(shard, s -> outboxOf(s).backlogTenants(after, limit));
            for (TenantId tenant : page) {
                if (shard.equals(routed.shardOf(tenant))) {
                    merged.add(tenant);
                }
            }
        }
        merged.sort(null);
        return List.copyOf(merged.subList(0, Math.min(limit, merged.size())));
    }

    @Override
    public int purge(TenantId tenantId, Duration olderThan, @Nullable Instant now, int limit) {
        return on(tenantId, o -> o.purge(tenantId, olderThan, now, limit));
    }
}
