package org.slotbook.spring;

import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.slotbook.core.SlotId;
import org.slotbook.core.TenantId;
import org.slotbook.core.spi.BookingStore;
import org.slotbook.core.spi.SeatReservation;

/**
 * Slotbook's health, whatever Spring Boot reports it: DOWN when the ledger (the database) cannot be
 * read, since no booking can be decided then. The gate (Redis) never takes it down: while Redis is
 * unreachable the engine books from the database alone, so the gate reports {@code degraded} and the
 * status stays UP. {@link SlotbookHealthIndicator} (Spring Boot 3) and
 * {@link SlotbookBoot4HealthIndicator} (Spring Boot 4) report it.
 */
final class SlotbookHealth {
    private static final TenantId PROBE_TENANT = TenantId.of("slotbook-health");
    private static final SlotId PROBE_SLOT = SlotId.of("probe");

    private final BookingStore store;
    private final @Nullable SeatReservation gate;

    SlotbookHealth(BookingStore store, @Nullable SeatReservation gate) {
        this.store = store;
        this.gate = gate;
    }

    /** The checks, with each detail; {@code up}: whether the ledger answered. */
    record Report(boolean up, Map<String, Object> details) {
    }

    Report check() {
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
        Map<String, Object> details = new LinkedHashMap<>();
        details.put("ledger", ledger);
        details.put("gate", gateDetail());
        return new Report(ledgerUp, details);
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
