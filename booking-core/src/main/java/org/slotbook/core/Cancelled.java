package org.slotbook.core;

/**
 * This call cancelled the booking and gave its seat back. {@code late}: the cancel of a confirmed
 * booking came after the cancellation policy's cutoff and was accepted as a late cancel (the host may
 * charge for it); a hold that was never confirmed is never cancelled late.
 */
public record Cancelled(Booking booking, boolean late) implements CancelResult {
    /**
     * A cancellation done by this call (not a repeat).
     *
     * @param booking the booking as cancelled
     */
    public Cancelled(Booking booking) {
        this(booking, false);
    }
}
