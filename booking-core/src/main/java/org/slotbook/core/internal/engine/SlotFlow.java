package org.slotbook.core.internal.engine;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.List;
import org.slotbook.core.CancelSlotResult;
import org.slotbook.core.InvalidInputException;
import org.slotbook.core.ScheduleResult;
import org.slotbook.core.Scheduled;
import org.slotbook.core.SeriesCancelled;
import org.slotbook.core.SeriesId;
import org.slotbook.core.SeriesMode;
import org.slotbook.core.SeriesResult;
import org.slotbook.core.SeriesSpec;
import org.slotbook.core.Slot;
import org.slotbook.core.SlotCancelled;
import org.slotbook.core.SlotId;
import org.slotbook.core.SlotSpec;
import org.slotbook.core.TenantId;
import org.slotbook.core.spi.BookingStore;
import org.slotbook.core.spi.StoreOutcome;

/**
 * A slot's life outside its bookings: scheduled (one slot or a weekly series) and called off. The store
 * decides in one call; the gate learns of a new slot, or of a cancelled one, once the store committed.
 */
public final class SlotFlow {
    private final BookingStore store;
    private final GateGuard guard;
    private final Reconciler reconciler;
    private final Events events;

    public SlotFlow(BookingStore store, GateGuard guard, Reconciler reconciler, Events events) {
        this.store = store;
        this.guard = guard;
        this.reconciler = reconciler;
        this.events = events;
    }

    /** Schedules one slot; the same slot id with another spec is refused. */
    public ScheduleResult schedule(TenantId tenantId, SlotSpec spec, Duration lookBack, ZoneId zone) {
        ScheduleResult result = store.schedule(tenantId, Slot.open(tenantId, spec), lookBack, zone);
        if (result instanceof Scheduled scheduled) {
            Slot slot = scheduled.slot();
            if (!slot.matches(spec)) {
                // name only what the caller sent: the stored slot's coach, room, time and capacity stay private
                throw new InvalidInputException("slotId '" + spec.slotId() + "' is already taken by a slot with"
                        + " another spec; refusing coach '" + spec.coachId() + "', room '" + spec.roomId() + "', time "
                        + spec.time() + ", capacity " + spec.capacity());
            }
            opened(tenantId, slot);
        }
        return result;
    }

    /** Schedules the occurrences of a series ({@code specs}, in order, at least one). */
    public SeriesResult scheduleSeries(TenantId tenantId, SeriesSpec spec, SeriesMode mode, List<SlotSpec> specs,
                                       Duration lookBack, ZoneId zone) {
        List<Slot> slots = specs.stream().map(s -> Slot.open(tenantId, s).inSeries(spec.seriesId())).toList();
        SeriesResult result = store.scheduleSeries(tenantId, spec.seriesId(), mode, slots, lookBack, zone);
        for (int i = 0; i < result.occurrences().size(); i++) {
            SeriesResult.Occurrence o = result.occurrences().get(i);
            if (o.status() != SeriesResult.Occurrence.Status.SCHEDULED) {
                continue;
            }
            Slot slot = o.slot();
            if (!slot.matches(specs.get(i)) || !spec.seriesId().equals(slot.seriesId())) {
                throw new InvalidInputException("slotId '" + slot.slotId() + "' of series '" + spec.seriesId()
                        + "' is already taken by a slot with another spec");
            }
            opened(tenantId, slot);
        }
        return result;
    }

    public CancelSlotResult cancelSlot(TenantId tenantId, SlotId slotId, Instant now) {
        StoreOutcome<CancelSlotResult> outcome = store.cancelSlot(tenantId, slotId, now);
        if (outcome.result() instanceof SlotCancelled cancelled) {
            closed(tenantId, cancelled.slot());
        }
        events.publish(outcome.events());
        return outcome.result();
    }

    public SeriesCancelled cancelSeries(TenantId tenantId, SeriesId seriesId, Instant since, Instant now) {
        StoreOutcome<SeriesCancelled> outcome = store.cancelSeries(tenantId, seriesId, since, now);
        for (Slot slot : outcome.result().slots()) {
            closed(tenantId, slot);
        }
        events.publish(outcome.events());
        return outcome.result();
    }

    private void opened(TenantId tenantId, Slot slot) {
        guard.call("initialize", () -> guard.gate().initialize(tenantId, slot.slotId(), slot.capacity(),
                slot.opensAt(), reconciler.keepUntil(slot)));
    }

    private void closed(TenantId tenantId, Slot slot) {
        guard.call("close", () -> guard.gate().close(tenantId, slot.slotId(), reconciler.keepUntil(slot)));
    }
}
