package org.slotbook.core;

/** Every seat of the slot is held or confirmed. */
public record Full(SlotId slotId) implements HoldResult {
}
