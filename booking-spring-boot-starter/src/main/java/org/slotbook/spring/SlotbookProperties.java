package org.slotbook.spring;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;

/** Settings of the Slotbook auto-configuration, under {@code slotbook.*}. */
@ConfigurationProperties("slotbook")
public class SlotbookProperties {
    /** Whether the auto-configuration provides Slotbook's beans at all. */
    private boolean enabled = true;
    /** How long a hold lasts before it expires and its seat goes back. */
    private Duration holdTtl = Duration.ofMinutes(10);
    /** The longest session the engine schedules (the conflict check looks back this far). */
    private Duration maxSessionDuration = Duration.ofHours(24);

    private final Jdbc jdbc = new Jdbc();
    private final Flyway flyway = new Flyway();
    private final Redis redis = new Redis();
    private final Upkeep upkeep = new Upkeep();
    private final Jackson jackson = new Jackson();
    private final Rules rules = new Rules();

    public boolean isEnabled() {
        return enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public Duration getHoldTtl() {
        return holdTtl;
    }

    public void setHoldTtl(Duration holdTtl) {
        this.holdTtl = holdTtl;
    }

    public Duration getMaxSessionDuration() {
        return maxSessionDuration;
    }

    public void setMaxSessionDuration(Duration maxSessionDuration) {
        this.maxSessionDuration = maxSessionDuration;
    }

    public Jdbc getJdbc() {
        return jdbc;
    }

    public Flyway getFlyway() {
        return flyway;
    }

    public Redis getRedis() {
        return redis;
    }

    public Upkeep getUpkeep() {
        return upkeep;
    }

    public Rules getRules() {
        return rules;
    }

    public Jackson getJackson() {
        return jackson;
    }

    /** The store on the application's DataSource. */
    public static class Jdbc {
        /** Prefix of every Slotbook table and routine name. */
        private String tablePrefix = "slotbook_";
        /** Retries after a deadlock or serialization failure. */
        private int maxRetries = 8;
        /** Check at start-up that Slotbook's tables, columns and routines exist, and fail naming what is missing. */
        private boolean validateSchema = true;

        public String getTablePrefix() {
            return tablePrefix;
        }

        public void setTablePrefix(String tablePrefix) {
            this.tablePrefix = tablePrefix;
        }

        public int getMaxRetries() {
            return maxRetries;
        }

        public void setMaxRetries(int maxRetries) {
            this.maxRetries = maxRetries;
        }

        public boolean isValidateSchema() {
            return validateSchema;
        }

        public void setValidateSchema(boolean validateSchema) {
            this.validateSchema = validateSchema;
        }
    }

    /** Slotbook's own versioned migrations, run with Flyway at start-up. */
    public static class Flyway {
        /**
         * Run {@code classpath:db/migration/slotbook/<dialect>} at start-up, with a history table of
         * its own ({@code <table-prefix>schema_history}), so its versions never meet the host's.
         */
        private boolean enabled = false;

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }
    }

    /** The Redis seat gate. */
    public static class Redis {
        /** Whether to build the gate (it also needs {@code url}, or Spring Boot's Redis connection details). */
        private boolean enabled = true;
        /** {@code redis://[user:password@]host:port[/database]}; unset: Spring Boot's {@code spring.data.redis.*} when present. */
        private String url;
        /** Prefix of every gate key. */
        private String keyPrefix = "slotbook:";
        /** Connect and read timeout of a gate call: how long a hold waits for a sick Redis. */
        private Duration timeout = Duration.ofMillis(200);
        /** Connections of the gate's own pool. */
        private int poolSize = 32;

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public String getUrl() {
            return url;
        }

        public void setUrl(String url) {
            this.url = url;
        }

        public String getKeyPrefix() {
            return keyPrefix;
        }

        public void setKeyPrefix(String keyPrefix) {
            this.keyPrefix = keyPrefix;
        }

        public Duration getTimeout() {
            return timeout;
        }

        public void setTimeout(Duration timeout) {
            this.timeout = timeout;
        }

        public int getPoolSize() {
            return poolSize;
        }

        public void setPoolSize(int poolSize) {
            this.poolSize = poolSize;
        }
    }

    /** The scheduled upkeep: expired holds swept, the gate reconciled, over every tenant of the store. */
    public static class Upkeep {
        /** Whether to run the upkeep on this node (safe on several nodes at once). */
        private boolean enabled = true;
        /** Delay between the end of one run and the start of the next. */
        private Duration interval = Duration.ofSeconds(30);
        /** Holds expired per database transaction. */
        private int sweepBatch = 500;

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public Duration getInterval() {
            return interval;
        }

        public void setInterval(Duration interval) {
            this.interval = interval;
        }

        public int getSweepBatch() {
            return sweepBatch;
        }

        public void setSweepBatch(int sweepBatch) {
            this.sweepBatch = sweepBatch;
        }
    }

    /**
     * The booking rules of every tenant (a {@code BookingRules} bean, or a
     * {@code Function<TenantId, BookingRules>} bean for rules per tenant, replaces them).
     */
    public static class Rules {
        /** Free cancellation until this long before the start; unset: cancel any time for free. */
        private Duration cancelCutoff;
        /** What a cancel after the cutoff does: refuse (TooLateToCancel) or accept (a late cancel). */
        private String lateCancel = "refuse";
        /** At most this many live upcoming bookings per student (0: no limit). */
        private int maxUpcoming;
        /** At most this many bookings per student in one calendar week (0: no limit). */
        private int maxPerWeek;
        /** The time zone of the calendar week of {@code max-per-week}. */
        private String weekZone = "UTC";
        /** No waiter is promoted within this long before the start. */
        private Duration waitlistCutoff = Duration.ZERO;
        /** Check-in opens this long before the start. */
        private Duration checkInOpensBefore = Duration.ofMinutes(30);
        /** Check-in closes this long after the end. */
        private Duration checkInClosesAfterEnd = Duration.ZERO;
        /** Whether the sweep marks confirmed bookings without a check-in as no-shows once check-in closed. */
        private boolean markNoShows;
        /** When a slot's cost is drawn from the student's package: at-booking or at-check-in. */
        private String creditsDrawn = "at-booking";

        public Duration getCheckInOpensBefore() {
            return checkInOpensBefore;
        }

        public void setCheckInOpensBefore(Duration checkInOpensBefore) {
            this.checkInOpensBefore = checkInOpensBefore;
        }

        public Duration getCheckInClosesAfterEnd() {
            return checkInClosesAfterEnd;
        }

        public void setCheckInClosesAfterEnd(Duration checkInClosesAfterEnd) {
            this.checkInClosesAfterEnd = checkInClosesAfterEnd;
        }

        public boolean isMarkNoShows() {
            return markNoShows;
        }

        public void setMarkNoShows(boolean markNoShows) {
            this.markNoShows = markNoShows;
        }

        public String getCreditsDrawn() {
            return creditsDrawn;
        }

        public void setCreditsDrawn(String creditsDrawn) {
            this.creditsDrawn = creditsDrawn;
        }

        public Duration getCancelCutoff() {
            return cancelCutoff;
        }

        public void setCancelCutoff(Duration cancelCutoff) {
            this.cancelCutoff = cancelCutoff;
        }

        public String getLateCancel() {
            return lateCancel;
        }

        public void setLateCancel(String lateCancel) {
            this.lateCancel = lateCancel;
        }

        public int getMaxUpcoming() {
            return maxUpcoming;
        }

        public void setMaxUpcoming(int maxUpcoming) {
            this.maxUpcoming = maxUpcoming;
        }

        public int getMaxPerWeek() {
            return maxPerWeek;
        }

        public void setMaxPerWeek(int maxPerWeek) {
            this.maxPerWeek = maxPerWeek;
        }

        public String getWeekZone() {
            return weekZone;
        }

        public void setWeekZone(String weekZone) {
            this.weekZone = weekZone;
        }

        public Duration getWaitlistCutoff() {
            return waitlistCutoff;
        }

        public void setWaitlistCutoff(Duration waitlistCutoff) {
            this.waitlistCutoff = waitlistCutoff;
        }

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

    /** The Jackson module for Slotbook's results and ids. */
    public static class Jackson {
        /** Register {@link SlotbookJacksonModule} with Spring Boot's ObjectMapper. */
        private boolean enabled = true;

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }
    }
}
