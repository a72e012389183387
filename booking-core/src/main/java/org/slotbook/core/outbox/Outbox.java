package org.slotbook.core.outbox;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;
import org.slotbook.core.TenantId;

/**
 * The engine's outbox ({@code engine.outbox()}): every decision writes its booking events into its
 * store's event table in the same call, and this object delivers them and lets a host read them.
 *
 * <h2>Delivery, at least once</h2>
 * The node that made a decision tells the listener right after its commit, as before, and records the
 * events delivered (in batches, on the relay's next pass). The relay ({@link #relayAll}, or
 * {@link #start} on the host's scheduler) delivers every event nobody recorded delivered: one relay
 * holds a tenant at a time (a lease in the store), delivers its events in id order through
 * {@link org.slotbook.core.BookingListener#event}, records each delivered once, and tells the gate what
 * a missed event did (a promoted waiter is counted). A listener that throws is tried again after a
 * back-off that doubles; after {@link OutboxSettings#maxAttempts()} tries the event becomes a dead
 * letter (counted, listed by {@link #deadLetters}, re-delivered by {@link #redeliver}) and the tenant's
 * later events go on. A node that dies between a commit and its delivery leaves the events to any
 * other node's relay. An event may so reach the listener twice; its id (or its booking and kind) is
 * the same each time.
 *
 * <h2>Pull</h2>
 * {@link #events} reads a tenant's events after an id, whatever their delivery state: a host feeds
 * Kafka or its own queue at its own pace, keeping its place with {@link #commit} and {@link #cursor}.
 */
public interface Outbox {

    /**
     * {@return the tenant's events after {@code afterId} in order, at most {@code limit} (1..1000)}
     *
     * @param tenantId the tenant
     * @param afterId the last id the reader has (0: from the first)
     * @param limit the most events answered
     */
    List<OutboxEvent> events(TenantId tenantId, long afterId, int limit);

    /**
     * {@return the events after the stored cursor of {@code consumer}, at most {@code limit}}
     *
     * @param tenantId the tenant
     * @param consumer the consumer's name (1..64 characters)
     * @param limit the most events answered (1..1000)
     */
    List<OutboxEvent> next(TenantId tenantId, String consumer, int limit);

    /**
     * {@return the stored cursor of {@code consumer}: the last id it committed, 0 when none}
     *
     * @param tenantId the tenant
     * @param consumer the consumer's name (1..64 characters)
     */
    long cursor(TenantId tenantId, String consumer);

    /**
     * Stores the cursor of {@code consumer}: the events up to {@code id} are processed.
     *
     * @param tenantId the tenant
     * @param consumer the consumer's name (1..64 characters)
     * @param id the last id processed
     */
    void commit(TenantId tenantId, String consumer, long id);

    /**
     * Delivers the tenant's due events now (the relay's work for one tenant).
     *
     * @param tenantId the tenant
     * @return how many events were delivered
     */
    int relay(TenantId tenantId);

    /**
     * One pass of the relay: records what this node delivered right after its commits, then delivers the
     * due events of every tenant with a backlog.
     *
     * @return how many events were delivered
     */
    int relayAll();

    /**
     * Runs {@link #relayAll} on {@code scheduler} every {@code every}, and a purge of delivered events
     * older than the retention once an hour.
     *
     * @param scheduler the host's scheduler
     * @param every the time between passes
     * @return stops the schedule when closed
     */
    AutoCloseable start(ScheduledExecutorService scheduler, Duration every);

    /**
     * {@return the tenant's dead letters, in order, at most {@code limit} (1..1000)}
     *
     * @param tenantId the tenant
     * @param limit the most events answered
     */
    List<OutboxEvent> deadLetters(TenantId tenantId, int limit);

    /**
     * Makes a dead letter pending again, with its tries counted from zero: the relay delivers it next.
     *
     * @param tenantId the tenant
     * @param id the event
     * @return whether the event was a dead letter
     */
    boolean redeliver(TenantId tenantId, long id);

    /**
     * {@return the tenant's backlog: undelivered events, the oldest one's age, dead letters}
     *
     * @param tenantId the tenant
     */
    OutboxStats stats(TenantId tenantId);

    /**
     * Deletes the tenant's events delivered longer ago than {@link OutboxSettings#retention()}.
     *
     * @param tenantId the tenant
     * @return how many were deleted
     */
    int purge(TenantId tenantId);

    /** {@return counters since this engine was built} */
    OutboxMetrics metrics();

    /** {@return the relay's settings} */
    OutboxSettings settings();
}
