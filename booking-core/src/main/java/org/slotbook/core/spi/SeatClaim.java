package org.slotbook.core.spi;

import java.util.Optional;
import org.slotbook.core.Booking;
import org.slotbook.core.BookingId;

/**
 * A seat taken by {@link SeatLedger#claimSeat}: the booking as written (with its seat number) and,
 * when the seat was taken over from a hold that had run out, that booking's id. The ledger has
 * already marked that booking EXPIRED; the caller releases its occupation in the same transaction.
 */
public record SeatClaim(Booking booking, Optional<BookingId> displaced) {
}
