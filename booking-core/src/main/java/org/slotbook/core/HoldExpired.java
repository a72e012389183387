package org.slotbook.core;

/** The hold ran out before the confirm ({@code now >= heldUntil}); its seat went back to the slot. */
public record HoldExpired(Booking booking) implements ConfirmResult {
}
