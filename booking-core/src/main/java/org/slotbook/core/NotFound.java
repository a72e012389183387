package org.slotbook.core;

/**
 * No such slot, booking or waitlist entry for this tenant, or one that belongs to another student.
 * The answer does not tell these apart, so nothing leaks across students or tenants.
 */
public record NotFound() implements HoldResult, ConfirmResult, CancelResult, CancelSlotResult, AvailabilityResult,
        LeaveResult, CheckInResult {
}
