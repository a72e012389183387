package org.slotbook.core.outbox;

import java.time.Duration;
import java.time.Instant;
import org.jspecify.annotations.Nullable;
import org.slotbook.core.TenantId;

/**
 * The outbox of one tenant as it is now.
 *
 * @param tenantId the tenant
 * @param pending events not delivered yet (the backlog)
 * @param dead events set aside as dead letters
 * @param oldestPending when the oldest undelivered event was written (null: none)
 * @param oldestPendingAge how old it is by the store's clock (zero: none)
 * @param lastId the highest id given so far (0: none)
 */
public record OutboxStats(TenantId tenantId, long pending, long dead, @Nullable Instant oldestPending,
                          Duration oldestPendingAge, long lastId) {
}
