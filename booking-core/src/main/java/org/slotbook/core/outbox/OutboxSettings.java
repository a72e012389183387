package org.slotbook.core.outbox;

import java.time.Duration;
import java.util.UUID;
import org.slotbook.core.InvalidInputException;
import org.slotbook.core.internal.Checks;

/**
 * How the engine's relay delivers the outbox: how often it tries a listener that throws, how long it
 * waits between tries, how long it holds a tenant, how many events it takes at a time, how long it
 * leaves a fresh event to the node that made it, and how long delivered events are kept.
 *
 * @param relayId names this node's relay in the lease and in {@code delivered_by} (1..64 characters)
 * @param maxAttempts the tries before an event becomes a dead letter (1..100)
 * @param firstBackoff the wait after the first failure; it doubles per failure
 * @param maxBackoff the longest wait between tries
 * @param lease how long a relay holds a tenant's delivery before another relay may take it over
 * @param batchSize the most events one claim takes (1..1000)
 * @param fastPathGrace the relay leaves an event this long to the node that made it (which delivers it
 *                      right after its commit); older undelivered events are the relay's
 * @param retention delivered events older than this are deleted by {@link Outbox#purge}
 */
public record OutboxSettings(String relayId, int maxAttempts, Duration firstBackoff, Duration maxBackoff,
                             Duration lease, int batchSize, Duration fastPathGrace, Duration retention) {
    /**
     * Checks every setting.
     *
     * @param relayId names this node's relay
     * @param maxAttempts the tries before an event becomes a dead letter
     * @param firstBackoff the wait after the first failure
     * @param maxBackoff the longest wait between tries
     * @param lease how long a relay holds a tenant's delivery
     * @param batchSize the most events one claim takes
     * @param fastPathGrace how long the relay leaves an event to the node that made it
     * @param retention how long delivered events are kept
     */
    public OutboxSettings {
        Checks.notNull("relayId", relayId);
        if (relayId.isEmpty() || relayId.length() > 64) {
            throw new InvalidInputException("relayId must be 1 to 64 characters, got '" + relayId + "'");
        }
        Checks.between("maxAttempts", maxAttempts, 1, 100);
        positive("firstBackoff", firstBackoff);
        positive("maxBackoff", maxBackoff);
        positive("lease", lease);
        Checks.between("batchSize", batchSize, 1, 1000);
        notNegative("fastPathGrace", fastPathGrace);
        notNegative("retention", retention);
    }

    /** {@return 8 tries, back-off from 1 s doubling up to 5 min, a 30 s lease, 100 a batch, 5 s grace, 7 days kept} */
    public static OutboxSettings defaults() {
        return new OutboxSettings("relay-" + UUID.randomUUID().toString().substring(0, 8), 8, Duration.ofSeconds(1),
                Duration.ofMinutes(5), Duration.ofSeconds(30), 100, Duration.ofSeconds(5), Duration.ofDays(7));
    }

    /**
     * {@return these settings with another relay id}
     *
     * @param id names this node's relay
     */
    public OutboxSettings withRelayId(String id) {
        return new OutboxSettings(id, maxAttempts, firstBackoff, maxBackoff, lease, batchSize, fastPathGrace, retention);
    }

    /**
     * {@return these settings with other tries and back-off}
     *
     * @param attempts the tries before an event becomes a dead letter
     * @param first the wait after the first failure
     * @param max the longest wait between tries
     */
    public OutboxSettings withRetries(int attempts, Duration first, Duration max) {
        return new OutboxSettings(relayId, attempts, first, max, lease, batchSize, fastPathGrace, retention);
    }

    /**
     * {@return these settings with another lease and batch size}
     *
     * @param leaseTime how long a relay holds a tenant's delivery
     * @param batch the most events one claim takes
     */
    public OutboxSettings withLease(Duration leaseTime, int batch) {
        return new OutboxSettings(relayId, maxAttempts, firstBackoff, maxBackoff, leaseTime, batch, fastPathGrace,
                retention);
    }

    /**
     * {@return these settings with another grace for the deciding node}
     *
     * @param grace how long the relay leaves an event to the node that made it
     */
    public OutboxSettings withFastPathGrace(Duration grace) {
        return new OutboxSettings(relayId, maxAttempts, firstBackoff, maxBackoff, lease, batchSize, grace, retention);
    }

    /**
     * {@return these settings with another retention}
     *
     * @param kept how long delivered events are kept
     */
    public OutboxSettings withRetention(Duration kept) {
        return new OutboxSettings(relayId, maxAttempts, firstBackoff, maxBackoff, lease, batchSize, fastPathGrace, kept);
    }

    /**
     * {@return the wait before the try after {@code failures} failures: firstBackoff doubled per failure after the
     * first, at most maxBackoff}
     *
     * @param failures the failures so far (1 or more)
     */
    public Duration backoff(int failures) {
        Duration d = firstBackoff;
        for (int i = 1; i < failures && d.compareTo(maxBackoff) < 0; i++) {
            d = d.multipliedBy(2);
        }
        return d.compareTo(maxBackoff) > 0 ? maxBackoff : d;
    }

    private static void positive(String field, Duration d) {
        Checks.notNull(field, d);
        if (d.isNegative() || d.isZero()) {
            throw new InvalidInputException(field + " must be positive, got " + d);
        }
    }

    private static void notNegative(String field, Duration d) {
        Checks.notNull(field, d);
        if (d.isNegative()) {
            throw new InvalidInputException(field + " must not be negative, got " + d);
        }
    }
}
