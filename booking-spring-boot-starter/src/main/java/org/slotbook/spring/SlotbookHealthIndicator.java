package org.slotbook.spring;

import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.slotbook.core.SlotId;
import org.slotbook.core.TenantId;
import org.slotbook.core.spi.BookingStore;
import org.slotbook.core.spi.SeatReservation;
import org.springframework.boot.actuate.health.AbstractHealthIndicator;
import org.springframework.boot.actuate.health.Health;

/**
 * Slotbook's health: DOWN when the ledger (the database) cannot be read, since no booking can be
 * decided then. The gate (Redis) never takes it down: while Redis is unreachable the engine books
 * from the database alone, so the gate reports {@code degraded} and the status stays UP.
 */
public final class SlotbookHealthIndicator extends AbstractHealthIndicator {
    private static final TenantId PROBE_TENANT = TenantId.of("slotbook-health");
    private static final SlotId PROBE_SLOT = SlotId.of("probe");

    private final BookingStore store;
    private final @Nullable SeatReservation gate;

    /**
     * {@code gate} null: the engine runs without a gate.
     *
     * @param store the store to probe
     * @param gate the seat gate (null: none)
     */
    public SlotbookHealthIndicator(BookingStore store, @Nullable SeatReservation gate) {
        super("Slotbook health check failed");
        this.store = store;
        this.gate = gate;
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) {
        Map<String, Object> ledger = new LinkedHashMap<>();
        boolean ledgerUp;
        try {
            store.tenants(null, 1);
            ledger.put("status", "UP");
            ledgerUp = true;
        } catch (RuntimeException e) {
            ledger.put("status", "DOWN");
            ledger.put("error", e.getClass().getSimpleName() + ": " + e.getMessage());
            ledgerUp = false;
        }
        ledger.put("store", String.valueOf(store));
        builder.withDetail("ledger", ledger);
        builder.withDetail("gate", gateDetail());
        if (ledgerUp) {
            builder.up();
        } else {
            builder.down();
        }
    }

    private Map<String, Object> gateDetail() {
        Map<String, Object> detail = new LinkedHashMap<>();
        if (gate == null || gate == SeatReservation.none()) {
            detail.put("status", "none");
            detail.put("mode", "database only");
            return detail;
        }
        try {
            gate.inspect(PROBE_TENANT, PROBE_SLOT);
            detail.put("status", "UP");
        } catch (RuntimeException e) {
            detail.put("status", "degraded");
            detail.put("mode", "database only until the gate is back");
            detail.put("error", e.getClass().getSimpleName() + ": " + e.getMessage());
        }
        return detail;
    }
}
