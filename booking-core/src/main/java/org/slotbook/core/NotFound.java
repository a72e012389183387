package org.slotbook.core;

/**
 * No such slot or booking for this tenant, or a booking that belongs to another student. The answer
 * does not tell these apart, so nothing leaks across students or tenants.
 */
public record NotFound() implements HoldResult, ConfirmResult, CancelResult, CancelSlotResult, AvailabilityResult {
}
