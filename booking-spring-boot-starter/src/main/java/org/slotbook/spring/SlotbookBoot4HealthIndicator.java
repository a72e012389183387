package org.slotbook.spring;

import org.jspecify.annotations.Nullable;
import org.slotbook.core.spi.BookingStore;
import org.slotbook.core.spi.SeatReservation;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * Slotbook's health on Spring Boot 4 (its health API moved to {@code org.springframework.boot.health}):
 * the same report as {@link SlotbookHealthIndicator} gives on Spring Boot 3.
 */
public final class SlotbookBoot4HealthIndicator extends AbstractHealthIndicator {
    private final SlotbookHealth health;

    /**
     * A health indicator over the store and, when there is one, the gate.
     *
     * @param store the store to probe
     * @param gate the seat gate (null: the engine runs without a gate)
     */
    public SlotbookBoot4HealthIndicator(BookingStore store, @Nullable SeatReservation gate) {
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
