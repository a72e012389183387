package org.slotbook.core.outbox;

import java.util.List;
import org.slotbook.core.TenantId;

/** What has an outbox: {@code BookingEngine}. */
public interface EventSource {

    /** {@return the outbox: the relay that delivers every event at least once, dead letters, the pull API} */
    Outbox outbox();

    /**
     * {@return the tenant's events after {@code afterId}, in order, at most {@code limit} (1..1000), whatever
     * their delivery state; see {@link Outbox#events}}
     *
     * @param tenantId the tenant whose events to read
     * @param afterId the last id the reader has (0: from the first)
     * @param limit the most events answered
     */
    default List<OutboxEvent> events(TenantId tenantId, long afterId, int limit) {
        return outbox().events(tenantId, afterId, limit);
    }
}
