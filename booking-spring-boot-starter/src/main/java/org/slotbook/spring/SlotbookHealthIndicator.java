package org.slotbook.spring;

import org.jspecify.annotations.Nullable;
import org.slotbook.core.spi.BookingStore;
import org.slotbook.core.spi.SeatReservation;
import org.springframework.boot.actuate.health.AbstractHealthIndicator;
import org.springframework.boot.actuate.health.Health;

/**
 * Slotbook's health on Spring Boot 3: DOWN when the ledger (the database) cannot be read, since no
 * booking can be decided then. The gate (Redis) never takes it down: while Redis is unreachable the
 * engine books from the database alone, so the gate reports {@code degraded} and the status stays UP.
 */
public final class SlotbookHealthIndicator extends AbstractHealthIndicator {
    private final SlotbookHealth health;

    /**
     * {@code gate} null: the engine runs without a gate.
     *
     * @param store the store to probe
     * @param gate the seat gate (null: none)
     */
    public SlotbookHealthIndicator(BookingStore store, @Nullable SeatReservation gate) {
        super("Slotbook health check failed");
        this.health = new SlotbookHealth(store, gate);
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) {
        SlotbookHealth.Report report = health.check();
        builder.withDetails(report.details());
        if (report.up()) {
            builder.up();
        } else {
            builder.down();
        }
    }
}
