package org.slotbook.core.spi;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.OptionalLong;
import org.jspecify.annotations.Nullable;
import org.slotbook.core.TenantId;
import org.slotbook.core.outbox.OutboxEvent;
import org.slotbook.core.outbox.OutboxStats;

/**
 * A store's outbox: the booking events its decisions wrote in their own atomic step (one per
 * {@link BookingEvent} of a {@link StoreOutcome}, in order), and their delivery. Every method is scoped
 * to one tenant, except {@link #backlogTenants}, which names the tenants with undelivered events.
 *
 * <h2>Order</h2>
 * Each event gets an id, its position in the tenant's order: 1, 2, 3, ... without gaps, given serially
 * per tenant. A store whose writes may commit out of the order it numbers them in (a database sequence)
 * gives the positions after the commit ({@link #claim} and {@link #read} do it first, under a lock of the
 * tenant's head that no decision takes), so a reader that asks for the events after a position never
 * skips one that committed late. Events of one booking or slot are in the order of their decisions.
 *
 * <h2>Delivery</h2>
 * One relay holds a tenant at a time (a lease); it delivers the events in id order, records each
 * delivered once, and a failure holds the tenant's later events back until the failed one is delivered
 * or becomes DEAD after the bounded tries. A {@code now} of null asks for the store's clock.
 */
public interface OutboxStore {

    /**
     * Gives positions to the tenant's committed events that have none, then, unless another relay's
     * lease of the tenant is still running, takes the lease for {@code relay} until {@code now + lease}
     * and answers the PENDING events from the lowest id on, in order, at most {@code limit}, stopping
     * before the first that is not due (its next try is later than now, or it was written less than
     * {@code minAge} ago). Empty when another relay holds the tenant or nothing is due.
     *
     * @param tenantId the tenant
     * @param relay the relay that claims
     * @param now the store's instant, or null for its clock
     * @param lease how long the lease lasts
     * @param minAge events younger than this are left to the node that made them
     * @param limit the most events answered (1..1000)
     * @return the events to deliver, in order
     */
    List<OutboxEvent> claim(TenantId tenantId, String relay, @Nullable Instant now, Duration lease, Duration minAge,
                            int limit);

    /**
     * Records the events {@code ids} DELIVERED by {@code by} (an event already DELIVERED stays as it was
     * recorded), and gives the tenant's lease back when {@code by} holds it.
     *
     * @param tenantId the tenant
     * @param by the relay (or node) that delivered them
     * @param ids the events' ids
     * @param now the store's instant, or null for its clock
     */
    void delivered(TenantId tenantId, String by, List<Long> ids, @Nullable Instant now);

    /**
     * Records the events the node that made them delivered right after its commit, named by booking and
     * kind (they may have no id yet), as {@link #delivered} does.
     *
     * @param tenantId the tenant
     * @param by the node that delivered them
     * @param events the events, as the decision answered them
     * @param now the store's instant, or null for its clock
     * @return how many were recorded delivered now
     */
    int deliveredInProcess(TenantId tenantId, String by, List<BookingEvent> events, @Nullable Instant now);

    /**
     * Records a failed try of event {@code id}: one more attempt, the next not before {@code now +
     * retryAfter}, or DEAD when the attempts reach {@code maxAttempts}; gives the lease back.
     *
     * @param tenantId the tenant
     * @param relay the relay that tried
     * @param id the event
     * @param error what the listener threw (cut to 500 characters)
     * @param now the store's instant, or null for its clock
     * @param retryAfter how long until the next try
     * @param maxAttempts the tries before DEAD
     * @return the event's state now (PENDING or DEAD)
     */
    OutboxEvent.State failed(TenantId tenantId, String relay, long id, String error, @Nullable Instant now,
                             Duration retryAfter, int maxAttempts);

    /**
     * Makes a DEAD event PENDING again with no attempts, to be delivered next.
     *
     * @param tenantId the tenant
     * @param id the event
     * @return whether the event was DEAD
     */
    boolean redeliver(TenantId tenantId, long id);

    /**
     * {@return the events with an id above {@code afterId}, in order, at most {@code limit}, whatever their
     * delivery state} Positions are given first, as {@link #claim} does.
     *
     * @param tenantId the tenant
     * @param afterId the last id the reader has (0: from the first)
     * @param limit the most events answered (1..1000)
     */
    List<OutboxEvent> read(TenantId tenantId, long afterId, int limit);

    /**
     * {@return the tenant's DEAD events, in order, at most {@code limit}}
     *
     * @param tenantId the tenant
     * @param limit the most events answered (1..1000)
     */
    List<OutboxEvent> dead(TenantId tenantId, int limit);

    /**
     * {@return the stored cursor of consumer {@code consumer}: the last id it processed; empty when it has none}
     *
     * @param tenantId the tenant
     * @param consumer the consumer's name
     */
    OptionalLong cursor(TenantId tenantId, String consumer);

    /**
     * Stores the cursor of consumer {@code consumer}.
     *
     * @param tenantId the tenant
     * @param consumer the consumer's name
     * @param id the last id it processed
     * @param now the store's instant, or null for its clock
     */
    void saveCursor(TenantId tenantId, String consumer, long id, @Nullable Instant now);

    /**
     * {@return the tenant's backlog, dead letters and last id, the oldest pending event's age by the store's
     * clock (or {@code now})}
     *
     * @param tenantId the tenant
     * @param now the store's instant, or null for its clock
     */
    OutboxStats stats(TenantId tenantId, @Nullable Instant now);

    /**
     * {@return up to {@code limit} tenants with PENDING events, in tenant id order, after {@code after} (null:
     * from the first)}
     *
     * @param after the last tenant of the page before (null: from the first)
     * @param limit the most tenants answered (1..1000)
     */
    List<TenantId> backlogTenants(@Nullable TenantId after, int limit);

    /**
     * Deletes up to {@code limit} DELIVERED events of the tenant delivered longer than {@code olderThan}
     * before {@code now}.
     *
     * @param tenantId the tenant
     * @param olderThan how long delivered events are kept
     * @param now the store's instant, or null for its clock
     * @param limit the most events deleted
     * @return how many were deleted
     */
    int purge(TenantId tenantId, Duration olderThan, @Nullable Instant now, int limit);
}
