package org.slotbook.core;

/** Only a CONFIRMED booking can be checked in; this one is {@code booking.status()}. Nothing changed. */
public record NotConfirmed(Booking booking) implements CheckInResult {
}
