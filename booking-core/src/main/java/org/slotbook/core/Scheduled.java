package org.slotbook.core;

/** The slot is stored with its seats; coach and room are reserved for its time range. */
public record Scheduled(Slot slot) implements ScheduleResult {
}
