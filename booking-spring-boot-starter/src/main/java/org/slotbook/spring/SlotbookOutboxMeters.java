package org.slotbook.spring;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.function.ToDoubleFunction;
import org.slotbook.core.BookingEngine;
import org.slotbook.core.outbox.OutboxMetrics;
import org.springframework.beans.factory.ObjectProvider;

/**
 * The outbox's meters: {@code slotbook.outbox.backlog} (undelivered events the relay's last pass saw),
 * {@code slotbook.outbox.oldest.age} (seconds since the oldest of them was written),
 * {@code slotbook.outbox.delivered} (tagged {@code path}: in-process right after the commit, or relay),
 * {@code slotbook.outbox.failures} (tries whose listener threw), {@code slotbook.outbox.dead.letters}
 * (events set aside after the bounded tries) and {@code slotbook.outbox.redelivered}.
 */
public final class SlotbookOutboxMeters implements MeterBinder {
    private final ObjectProvider<BookingEngine> engine;

    /**
     * Meters of the engine's outbox, read when the registry asks.
     *
     * @param engine the booking engine (looked up when first read)
     */
    public SlotbookOutboxMeters(ObjectProvider<BookingEngine> engine) {
        this.engine = engine;
    }

    private double read(ToDoubleFunction<OutboxMetrics> value) {
        BookingEngine e = engine.getIfAvailable();
        return e == null ? 0 : value.applyAsDouble(e.outbox().metrics());
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        Gauge.builder("slotbook.outbox.backlog", this, m -> m.read(OutboxMetrics::backlog))
                .description("Booking events not delivered yet, as the relay's last pass saw them").register(registry);
        Gauge.builder("slotbook.outbox.oldest.age", this, m -> m.read(o -> o.oldestPendingMillis() / 1000.0))
                .description("Seconds since the oldest undelivered booking event was written").baseUnit("seconds")
                .register(registry);
        FunctionCounter.builder("slotbook.outbox.delivered", this, m -> m.read(OutboxMetrics::deliveredInProcess))
                .tag("path", "in-process").description("Booking events delivered").register(registry);
        FunctionCounter.builder("slotbook.outbox.delivered", this, m -> m.read(OutboxMetrics::relayed))
                .tag("path", "relay").description("Booking events delivered").register(registry);
        FunctionCounter.builder("slotbook.outbox.failures", this, m -> m.read(OutboxMetrics::failures))
                .description("Deliveries whose listener threw").register(registry);
        FunctionCounter.builder("slotbook.outbox.dead.letters", this, m -> m.read(OutboxMetrics::deadLetters))
                .description("Booking events set aside after the bounded tries").register(registry);
        FunctionCounter.builder("slotbook.outbox.redelivered", this, m -> m.read(OutboxMetrics::redelivered))
                .description("Dead letters sent again by an operator").register(registry);
    }
}
