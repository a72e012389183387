package org.slotbook.core;

import java.time.Clock;
import java.time.Duration;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import org.slotbook.core.internal.Checks;
import org.slotbook.core.outbox.OutboxSettings;
import org.slotbook.core.spi.BookingStore;
import org.slotbook.core.spi.SeatReservation;

/**
 * The settings of a {@link BookingEngine.Builder}: each setter returns the builder, and {@code build()}
 * makes the engine.
 */
abstract sealed class EngineSettings permits BookingEngine.Builder {
    @Nullable BookingStore store;
    @Nullable SeatReservation reservation;
    HoldPolicy holdPolicy = HoldPolicy.ofDefaults();
    @Nullable Clock clock;
    Duration maxSessionDuration = Duration.ofHours(24);
    BookingListener listener = BookingListener.NONE;
    Function<TenantId, BookingRules> rules = tenant -> BookingRules.defaults();
    EngineObserver observer = EngineObserver.NONE;
    OutboxSettings outbox = OutboxSettings.defaults();

    EngineSettings() {
    }

    private BookingEngine.Builder self() {
        return (BookingEngine.Builder) this;
    }

    /**
     * The source of truth (required): {@code JdbcStore}, {@code InMemoryStore}, or another {@link
     * BookingStore}.
     *
     * @param store the store of record, where every decision is taken
     * @return this builder
     */
    public BookingEngine.Builder store(BookingStore store) {
        this.store = Checks.notNull("store", store);
        return self();
    }

    /**
     * The optional fast gate; without it (or with {@link SeatReservation#none()}) the engine is DB-only.
     *
     * @param reservation the seat gate
     * @return this builder
     */
    public BookingEngine.Builder reservation(SeatReservation reservation) {
        this.reservation = Checks.notNull("reservation", reservation);
        return self();
    }

    /**
     * How long a hold lasts and how long the gate keeps it; default {@link HoldPolicy#ofDefaults()}.
     *
     * @param holdPolicy the hold policy
     * @return this builder
     */
    public BookingEngine.Builder holdPolicy(HoldPolicy holdPolicy) {
        this.holdPolicy = Checks.notNull("holdPolicy", holdPolicy);
        return self();
    }

    /**
     * A clock that decides every deadline instead of the store's own (the database's). Meant for
     * tests and simulations; in production leave it unset, so that app nodes whose clocks differ
     * still agree on every deadline.
     *
     * @param clock the clock that decides every deadline
     * @return this builder
     */
    public BookingEngine.Builder clock(Clock clock) {
        this.clock = Checks.notNull("clock", clock);
        return self();
    }

    /**
     * The longest session {@link BookingEngine#schedule} accepts, default 24 hours. The conflict check looks
     * back this far, so lowering it while longer sessions are stored would hide their conflicts.
     *
     * @param maxSessionDuration the longest session (1 minute to 7 days)
     * @return this builder
     */
    public BookingEngine.Builder maxSessionDuration(Duration maxSessionDuration) {
        Checks.positive("maxSessionDuration", maxSessionDuration);
        if (maxSessionDuration.compareTo(Duration.ofDays(31)) > 0) {
            throw new InvalidInputException("maxSessionDuration must be at most 31 days, got "
                    + maxSessionDuration);
        }
        this.maxSessionDuration = maxSessionDuration;
        return self();
    }

    /**
     * The booking rules of every tenant (cancellation policy, limits, week zone, waitlist cutoff);
     * default {@link BookingRules#defaults()}.
     *
     * @param rules the booking rules
     * @return this builder
     */
    public BookingEngine.Builder rules(BookingRules rules) {
        Checks.notNull("rules", rules);
        this.rules = tenant -> rules;
        return self();
    }

    /**
     * The booking rules per tenant, asked on every call (keep it fast, for example a map lookup).
     *
     * @param rulesByTenant the rules of a tenant, asked on every call
     * @return this builder
     */
    public BookingEngine.Builder rules(Function<TenantId, BookingRules> rulesByTenant) {
        this.rules = Checks.notNull("rulesByTenant", rulesByTenant);
        return self();
    }

    /**
     * Told about holds, confirms, cancels and expiries after they committed.
     *
     * @param listener told about every event after it committed
     * @return this builder
     */
    public BookingEngine.Builder listener(BookingListener listener) {
        this.listener = Checks.notNull("listener", listener);
        return self();
    }

    /**
     * Told how long each operation took and how it ended, and what the gate, sweeps and reconciles did
     * (metrics).
     *
     * @param observer told about timings, outcomes and upkeep
     * @return this builder
     */
    public BookingEngine.Builder observer(EngineObserver observer) {
        this.observer = Checks.notNull("observer", observer);
        return self();
    }

    /**
     * How the outbox's relay delivers the events nobody delivered right after their commit (see
     * {@link org.slotbook.core.outbox.Outbox}); default {@link OutboxSettings#defaults()}.
     *
     * @param settings the relay's tries, back-off, lease, batch, grace and retention
     * @return this builder
     */
    public BookingEngine.Builder outbox(OutboxSettings settings) {
        this.outbox = Checks.notNull("outbox", settings);
        return self();
    }
}
