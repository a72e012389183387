package org.slotbook.core;

/** Nothing to do: the booking (or slot) was already cancelled, or the hold already expired. Nothing changed. */
public record AlreadyCancelled() implements ConfirmResult, CancelResult, CancelSlotResult {
}
