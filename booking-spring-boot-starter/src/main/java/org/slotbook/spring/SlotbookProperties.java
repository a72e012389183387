package org.slotbook.spring;

import java.time.Duration;
import java.time.ZoneId;
import org.jspecify.annotations.Nullable;
import org.slotbook.core.BookingRules;
import org.slotbook.core.CancellationPolicy;
import org.slotbook.core.CreditPolicy;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Settings of the Slotbook auto-configuration, under {@code slotbook.*}; immutable, bound through
 * the constructor, with each default on its parameter. The descriptions are plain text: the
 * configuration metadata shows them as written.
 *
 * @param enabled Whether the auto-configuration provides Slotbook's beans at all
 * @param holdTtl How long a hold lasts before it expires and its seat goes back
 * @param maxSessionDuration The longest session the engine schedules (the conflict check looks back this far)
 * @param jdbc The store on the application's DataSource
 * @param flyway Slotbook's own migration
 * @param redis The Redis seat gate
 * @param upkeep The scheduled sweep and reconcile
 * @param rules The booking rules of every tenant
 * @param jackson The Jackson module
 * @param web Problem details for Slotbook's exceptions in a servlet web application
 * @param metrics The Micrometer meters
 * @param outbox The outbox relay, which delivers every booking event at least once
 */
@ConfigurationProperties("slotbook")
public record SlotbookProperties(
        @DefaultValue("true") boolean enabled,
        @DefaultValue("10m") Duration holdTtl,
        @DefaultValue("24h") Duration maxSessionDuration,
        @DefaultValue Jdbc jdbc,
        @DefaultValue Flyway flyway,
        @DefaultValue Redis redis,
        @DefaultValue Upkeep upkeep,
        @DefaultValue Rules rules,
        @DefaultValue Jackson jackson,
        @DefaultValue Web web,
        @DefaultValue Metrics metrics,
        @DefaultValue Outbox outbox) {

    /**
     * The store on the application's DataSource.
     *
     * @param tablePrefix Prefix of every Slotbook table and routine name
     * @param maxRetries Retries after a deadlock or serialization failure
     * @param validateSchema Check at start-up that Slotbook's tables, columns and routines exist, and fail
     *     naming what is missing
     * @param holdLanes PostgreSQL and MariaDB: how many calls of combined concurrent holds may run at once (0 to 64;
     *     0: each hold is a call of its own)
     */
    public record Jdbc(
            @DefaultValue("slotbook_") String tablePrefix,
            @DefaultValue("8") int maxRetries,
            @DefaultValue("true") boolean validateSchema,
            @DefaultValue("2") int holdLanes) {
    }

    /**
     * Slotbook's own migration, run with Flyway at start-up.
     *
     * @param enabled Run Slotbook's migration at start-up with a Flyway of its own and a history table of its
     *     own (the table prefix followed by schema_history); skipped when spring.flyway.locations lists
     *     Slotbook's location, since Spring Boot's Flyway runs it then
     */
    public record Flyway(@DefaultValue("true") boolean enabled) {
    }

    /**
     * The Redis seat gate.
     *
     * @param enabled Whether to build the gate (it also needs url, or Spring Boot's Redis connection details)
     * @param url Address of a standalone Redis, redis://[user:password@]host:port[/database]; unset: Spring
     *     Boot's spring.data.redis settings when present
     * @param keyPrefix Prefix of every gate key
     * @param timeout Connect and read timeout of a gate call: how long a hold waits for a sick Redis
     * @param poolSize Connections of the gate's own pool
     * @param pipelineLanes How many pipelines of concurrent holds may be on the wire at once (0 to 64;
     *     0: each hold on a connection of its own)
     */
    public record Redis(
            @DefaultValue("true") boolean enabled,
            @Nullable String url,
            @DefaultValue("slotbook:") String keyPrefix,
            @DefaultValue("200ms") Duration timeout,
            @DefaultValue("32") int poolSize,
            @DefaultValue("2") int pipelineLanes) {
    }

    /**
     * The scheduled upkeep: expired holds swept, the gate reconciled, over every tenant of the store.
     *
     * @param enabled Whether to run the upkeep on this node (safe on several nodes at once)
     * @param interval Delay between the end of one run and the start of the next
     * @param sweepBatch Holds expired per database transaction
     */
    public record Upkeep(
            @DefaultValue("true") boolean enabled,
            @DefaultValue("30s") Duration interval,
            @DefaultValue("500") int sweepBatch) {
    }

    /** What a cancel after the cutoff does. */
    public enum LateCancel {
        /** Refused: the answer is TooLateToCancel. */
        REFUSE,
        /** Accepted as a late cancel (its credit is forfeited). */
        ACCEPT
    }

    /**
     * The booking rules of every tenant (a BookingRules bean, or a Function of TenantId to BookingRules
     * bean for rules per tenant, replaces them).
     *
     * @param cancelCutoff Free cancellation until this long before the start; unset: cancel any time for free
     * @param lateCancel What a cancel after the cutoff does: refuse (answered TooLateToCancel) or accept (a late
     *     cancel)
     * @param maxUpcoming At most this many live upcoming bookings per student (0: no limit)
     * @param maxPerWeek At most this many bookings per student in one calendar week (0: no limit)
     * @param weekZone The time zone of the calendar week of max-per-week, for example Asia/Shanghai
     * @param waitlistCutoff No waiter is promoted within this long before the start
     * @param checkInOpensBefore Check-in opens this long before the start
     * @param checkInClosesAfterEnd Check-in closes this long after the end
     * @param markNoShows Whether the sweep marks confirmed bookings without a check-in as no-shows once
     *     check-in closed
     * @param creditsDrawn When a slot's cost is drawn from the student's package: at-booking or at-check-in
     */
    public record Rules(
            @Nullable Duration cancelCutoff,
            @DefaultValue("refuse") LateCancel lateCancel,
            @DefaultValue("0") int maxUpcoming,
            @DefaultValue("0") int maxPerWeek,
            @DefaultValue("UTC") ZoneId weekZone,
            @DefaultValue("0") Duration waitlistCutoff,
            @DefaultValue("30m") Duration checkInOpensBefore,
            @DefaultValue("0") Duration checkInClosesAfterEnd,
            @DefaultValue("false") boolean markNoShows,
            @DefaultValue("at-booking") CreditPolicy creditsDrawn) {

        /** {@return these settings as {@link BookingRules}; bad values name the property} */
        public BookingRules toBookingRules() {
            CancellationPolicy cancellation;
            if (cancelCutoff == null) {
                cancellation = CancellationPolicy.free();
            } else if (lateCancel == LateCancel.ACCEPT) {
                cancellation = CancellationPolicy.lateWithin(cancelCutoff);
            } else {
                cancellation = CancellationPolicy.refuseWithin(cancelCutoff);
            }
            BookingRules rules = BookingRules.defaults().withCancellation(cancellation)
                    .withMaxUpcoming(maxUpcoming).withMaxPerWeek(maxPerWeek, weekZone)
                    .withWaitlistCutoff(waitlistCutoff).withCreditsDrawn(creditsDrawn);
            return new BookingRules(rules.cancellation(), rules.maxUpcoming(), rules.maxPerWeek(), rules.zone(),
                    rules.waitlistCutoff(), checkInOpensBefore, checkInClosesAfterEnd, markNoShows, rules.credits());
        }
    }

    /**
     * The Jackson module for Slotbook's results and ids.
     *
     * @param enabled Register Slotbook's Jackson module (Jackson 2, Jackson 3 or both, whichever is present)
     *     with Spring Boot's JSON mapper
     */
    public record Jackson(@DefaultValue("true") boolean enabled) {
    }

    /**
     * Problem details (RFC 9457) for Slotbook's exceptions, in a servlet web application.
     *
     * @param enabled Answer invalid input with 400, a reused request id with 409 and a store that is away
     *     with 503, as problem details; off, or an own SlotbookProblemDetails bean, leaves them to the application
     * @param retryAfter The Retry-After of a 503 answered while the store is away
     */
    public record Web(
            @DefaultValue("true") boolean enabled,
            @DefaultValue("1s") Duration retryAfter) {
    }

    /**
     * The Micrometer meters.
     *
     * @param histogram Publish the latency histogram of slotbook.engine.calls (buckets for Prometheus'
     *     histogram_quantile); false: count, sum and max only
     */
    public record Metrics(@DefaultValue("true") boolean histogram) {
    }

    /**
     * The outbox relay: it delivers, to the application's listener, every booking event this node or another
     * did not deliver right after its commit (a node that died, a listener that threw, a lost answer).
     *
     * @param enabled Whether to run the relay on this node (safe on several nodes at once: one relay holds a
     *                tenant at a time)
     * @param interval Delay between the end of one relay pass and the start of the next
     * @param maxAttempts Tries of a listener that throws before the event becomes a dead letter
     * @param firstBackoff Wait after a listener's first failure; it doubles per failure
     * @param retention How long delivered events are kept before the upkeep deletes them
     * @param springEvents Publish each booking event as a Spring application event (SlotbookBookingEvent) too
     */
    public record Outbox(
            @DefaultValue("true") boolean enabled,
            @DefaultValue("1s") Duration interval,
            @DefaultValue("8") int maxAttempts,
            @DefaultValue("1s") Duration firstBackoff,
            @DefaultValue("7d") Duration retention,
            @DefaultValue("false") boolean springEvents) {
    }
}
