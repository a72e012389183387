package org.slotbook.core;

/**
 * The student has no {@link LessonPackage} that covers the slot and still holds {@code cost} credits;
 * nothing was written.
 */
public record InsufficientCredits(SlotId slotId, int cost) implements HoldResult, CheckInResult {
}
