package org.slotbook.core;

/** Outcome of {@link BookingEngine#schedule}: {@link Scheduled} or {@link Conflict} (coach or room busy). */
public sealed interface ScheduleResult permits Scheduled, Conflict {
}
