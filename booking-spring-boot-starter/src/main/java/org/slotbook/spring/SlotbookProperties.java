package org.slotbook.spring;

import java.time.Duration;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Settings of the Slotbook auto-configuration, under {@code slotbook.*}; immutable, bound through
 * the constructor, with each default on its parameter.
 *
 * @param enabled Whether the auto-configuration provides Slotbook's beans at all
 * @param holdTtl How long a hold lasts before it expires and its seat goes back
 * @param maxSessionDuration The longest session the engine schedules (the conflict check looks back this far)
 * @param jdbc The store on the application's DataSource
 * @param flyway Slotbook's own versioned migrations
 * @param redis The Redis seat gate
 * @param upkeep The scheduled sweep and reconcile
 * @param rules The booking rules of every tenant
 * @param jackson The Jackson module
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
        @DefaultValue Jackson jackson) {

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
     *     own (table-prefix followed by schema_history); skipped when spring.flyway.locations lists Slotbook's
     *     location, since Spring Boot's Flyway runs it then
     */
    public record Flyway(@DefaultValue("true") boolean enabled) {
    }

    /**
     * The Redis seat gate.
     *
     * @param enabled Whether to build the gate (it also needs {@code url}, or Spring Boot's Redis
     *     connection details)
     * @param url {@code redis://[user:password@]host:port[/database]}; unset: Spring Boot's
     *     {@code spring.data.redis.*} when present
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

    /**
     * The booking rules of every tenant (a {@code BookingRules} bean, or a
     * {@code Function<TenantId, BookingRules>} bean for rules per tenant, replaces them).
     *
     * @param cancelCutoff Free cancellation until this long before the start; unset: cancel any time for free
     * @param lateCancel What a cancel after the cutoff does: refuse (TooLateToCancel) or accept (a late cancel)
     * @param maxUpcoming At most this many live upcoming bookings per student (0: no limit)
     * @param maxPerWeek At most this many bookings per student in one calendar week (0: no limit)
     * @param weekZone The time zone of the calendar week of {@code max-per-week}
     * @param waitlistCutoff No waiter is promoted within this long before the start
     * @param checkInOpensBefore Check-in opens this long before the start
     * @param checkInClosesAfterEnd Check-in closes this long after the end
     * @param markNoShows Whether the sweep marks confirmed bookings without a check-in as no-shows once
     *     check-in closed
     * @param creditsDrawn When a slot's cost is drawn from the student's package: at-booking or at-check-in
     */
    public record Rules(
            @Nullable Duration cancelCutoff,
            @DefaultValue("refuse") String lateCancel,
            @DefaultValue("0") int maxUpcoming,
            @DefaultValue("0") int maxPerWeek,
            @DefaultValue("UTC") String weekZone,
            @DefaultValue("0") Duration waitlistCutoff,
            @DefaultValue("30m") Duration checkInOpensBefore,
            @DefaultValue("0") Duration checkInClosesAfterEnd,
            @DefaultValue("false") boolean markNoShows,
            @DefaultValue("at-booking") String creditsDrawn) {

        /** These settings as {@link org.slotbook.core.BookingRules}; bad values name the property. */
        public org.slotbook.core.BookingRules toBookingRules() {
            org.slotbook.core.CancellationPolicy cancellation;
            if (cancelCutoff == null) {
                cancellation = org.slotbook.core.CancellationPolicy.free();
            } else if ("refuse".equalsIgnoreCase(lateCancel)) {
                cancellation = org.slotbook.core.CancellationPolicy.refuseWithin(cancelCutoff);
            } else if ("accept".equalsIgnoreCase(lateCancel)) {
                cancellation = org.slotbook.core.CancellationPolicy.lateWithin(cancelCutoff);
            } else {
                throw new IllegalArgumentException("slotbook.rules.late-cancel must be refuse or accept, got '"
                        + lateCancel + "'");
            }
            java.time.ZoneId zone;
            try {
                zone = java.time.ZoneId.of(weekZone);
            } catch (java.time.DateTimeException e) {
                throw new IllegalArgumentException("slotbook.rules.week-zone is not a time zone: '" + weekZone + "'", e);
            }
            org.slotbook.core.CreditPolicy credits;
            if ("at-booking".equalsIgnoreCase(creditsDrawn)) {
                credits = org.slotbook.core.CreditPolicy.AT_BOOKING;
            } else if ("at-check-in".equalsIgnoreCase(creditsDrawn)) {
                credits = org.slotbook.core.CreditPolicy.AT_CHECK_IN;
            } else {
                throw new IllegalArgumentException("slotbook.rules.credits-drawn must be at-booking or at-check-in, got '"
                        + creditsDrawn + "'");
            }
            org.slotbook.core.BookingRules rules = org.slotbook.core.BookingRules.defaults().withCancellation(cancellation)
                    .withMaxUpcoming(maxUpcoming).withMaxPerWeek(maxPerWeek, zone).withWaitlistCutoff(waitlistCutoff)
                    .withCreditsDrawn(credits);
            return new org.slotbook.core.BookingRules(rules.cancellation(), rules.maxUpcoming(), rules.maxPerWeek(),
                    rules.zone(), rules.waitlistCutoff(), checkInOpensBefore, checkInClosesAfterEnd, markNoShows,
                    rules.credits());
        }
    }

    /**
     * The Jackson module for Slotbook's results and ids.
     *
     * @param enabled Register {@link SlotbookJacksonModule} with Spring Boot's ObjectMapper
     */
    public record Jackson(@DefaultValue("true") boolean enabled) {
    }
}
