package org.slotbook.core.internal.rules;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.slotbook.core.Conflict;
import org.slotbook.core.ResourceConflict;
import org.slotbook.core.ResourceRef;
import org.slotbook.core.ScheduleResult;
import org.slotbook.core.Scheduled;
import org.slotbook.core.SeriesId;
import org.slotbook.core.SeriesMode;
import org.slotbook.core.SeriesResult;
import org.slotbook.core.SeriesResult.Occurrence;
import org.slotbook.core.SeriesResult.Occurrence.Status;
import org.slotbook.core.Slot;
import org.slotbook.core.SlotStatus;
import org.slotbook.core.TimeRange;
import org.slotbook.core.rules.Occupancy;
import org.slotbook.core.rules.RuleTx;
import org.slotbook.core.rules.StoredSlot;

/** Slots scheduled, alone or as a series: a coach and a room taken over the padded session, or a conflict. */
final class Scheduling {
    private Scheduling() {
    }

    static ScheduleResult schedule(RuleTx tx, StoredSlot stored) {
        Slot slot = stored.slot();
        ResourceRef coach = ResourceRef.of(slot.coachId());
        ResourceRef room = ResourceRef.of(slot.roomId());
        tx.lock(coach.compareTo(room) <= 0 ? List.of(coach, room) : List.of(room, coach));
        Optional<StoredSlot> existing = tx.slot(slot.slotId(), false);
        if (existing.isPresent()) {
            return new Scheduled(existing.get().slot());
        }
        TimeRange padded = slot.paddedTime();
        List<ResourceConflict> clashes = new ArrayList<>();
        for (ResourceRef r : List.of(coach, room)) {
            for (Occupancy o : tx.occupations(r, padded.start(), padded.end())) {
                clashes.add(new ResourceConflict(r, o.slotId(), Optional.empty(), o.time()));
            }
        }
        if (!clashes.isEmpty()) {
            return new Conflict(clashes);
        }
        Slot open = slot.withStatus(SlotStatus.OPEN);
        if (!tx.insertSlot(new StoredSlot(open, stored.weekStart(), stored.weekEnd()))) {
            // a concurrent schedule of the same slot id was first
            return new Scheduled(tx.slot(slot.slotId(), false).orElseThrow().slot());
        }
        tx.occupy(new Occupancy(coach, padded, slot.slotId(), null));
        tx.occupy(new Occupancy(room, padded, slot.slotId(), null));
        return new Scheduled(open);
    }

    static SeriesResult scheduleSeries(RuleTx tx, SeriesId seriesId, SeriesMode mode, List<StoredSlot> occurrences) {
        List<ScheduleResult> results = new ArrayList<>();
        for (StoredSlot slot : occurrences) {
            results.add(schedule(tx, slot));
        }
        boolean rolledBack = mode == SeriesMode.ALL_OR_NOTHING && results.stream().anyMatch(r -> r instanceof Conflict);
        if (rolledBack) {
            tx.rollback();
        }
        List<Occurrence> answer = new ArrayList<>();
        for (int i = 0; i < results.size(); i++) {
            Slot given = occurrences.get(i).slot();
            answer.add(results.get(i) instanceof Conflict c ? new Occurrence(given, Status.CONFLICT, c.conflicts())
                    : rolledBack ? new Occurrence(given, Status.ROLLED_BACK, List.of())
                    : new Occurrence(((Scheduled) results.get(i)).slot(), Status.SCHEDULED, List.of()));
        }
        return new SeriesResult(seriesId, mode, answer);
    }
}
