package org.slotbook.core;

import java.util.List;
import org.slotbook.core.internal.Checks;

/**
 * Outcome of {@link BookingEngine#scheduleSeries}: every occurrence in time order, each SCHEDULED (now,
 * or before by the same series: a retry), CONFLICT (its coach or room is busy: {@code conflicts} name
 * the sessions), or ROLLED_BACK (it could have been scheduled, but the series was all-or-nothing and
 * another occurrence conflicted).
 */
public record SeriesResult(SeriesId seriesId, SeriesMode mode, List<Occurrence> occurrences) {
    /**
     * Checks the components: everything present.
     *
     * @param seriesId the weekly series
     * @param mode whether every part must succeed, or each that can
     * @param occurrences the slots of the series, one per occurrence
     */
    public SeriesResult {
        Checks.notNull("seriesId", seriesId);
        Checks.notNull("mode", mode);
        occurrences = List.copyOf(Checks.notNull("occurrences", occurrences));
    }

    /** {@return how many occurrences are scheduled} */
    public int scheduled() {
        return (int) occurrences.stream().filter(o -> o.status() == Occurrence.Status.SCHEDULED).count();
    }

    /** {@return true when every occurrence is scheduled} */
    public boolean complete() {
        return scheduled() == occurrences.size();
    }

    /** One occurrence of a series: the slot as stored (SCHEDULED) or as it was asked for. */
    public record Occurrence(Slot slot, Status status, List<ResourceConflict> conflicts) {
        /** Whether the occurrence was scheduled. */
        public enum Status {
            /** The occurrence is stored. */
            SCHEDULED,
            /** The coach or the room is busy then; the conflicts say with what. */
            CONFLICT,
            /** The occurrence was free, but another one conflicted and all or nothing was asked. */
            ROLLED_BACK
        }

        /**
         * Checks the components: everything present.
         *
         * @param slot the slot as stored (SCHEDULED) or as it was asked for
         * @param status whether the occurrence was scheduled
         * @param conflicts the conflict detector, in the same transactions as the ledger
         */
        public Occurrence {
            Checks.notNull("slot", slot);
            Checks.notNull("status", status);
            conflicts = List.copyOf(Checks.notNull("conflicts", conflicts));
            if ((status == Status.CONFLICT) == conflicts.isEmpty()) {
                throw new InvalidInputException("conflicts " + conflicts + " do not fit status " + status);
            }
        }
    }
}
