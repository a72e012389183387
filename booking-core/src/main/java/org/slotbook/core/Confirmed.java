package org.slotbook.core;

/** The booking is confirmed (also the answer to a repeated confirm). */
public record Confirmed(Booking booking) implements ConfirmResult {
}
