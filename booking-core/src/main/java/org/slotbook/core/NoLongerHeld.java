package org.slotbook.core;

/**
 * A retry of a request that was granted before, whose booking has since been cancelled or has
 * expired: the seat is no longer the student's. {@code booking} shows it as it is now.
 */
public record NoLongerHeld(Booking booking) implements HoldResult {
}
