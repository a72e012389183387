package org.slotbook.core.spi;

import java.time.Duration;
import java.time.Instant;
import org.jspecify.annotations.Nullable;
import org.slotbook.core.BookingId;
import org.slotbook.core.BookingRules;
import org.slotbook.core.BookingStatus;
import org.slotbook.core.HoldRequest;
import org.slotbook.core.InvalidInputException;
import org.slotbook.core.internal.Checks;

/**
 * One hold for {@link BookingStore#hold}: the request, the id the new booking gets, and how.
 *
 * @param bookingId      the id of the new booking (or of the booking a waitlist entry is promoted to)
 * @param status         HELD (waits for a confirm until {@code now + holdTtl}) or CONFIRMED (book)
 * @param now            the instant to judge by, or null for the store's own clock
 * @param longestSession no stored session is longer than this (bounds the overlap search)
 * @param gateHeld       a gate already found a seat: the store may skip its cheap full-slot pre-check
 * @param rules          the tenant's rules (the student's limits)
 */
public record HoldCommand(BookingId bookingId, HoldRequest request, BookingStatus status, @Nullable Instant now,
                          Duration holdTtl, Duration longestSession, boolean gateHeld, BookingRules rules) {
    /**
     * Checks the components: everything present, the durations positive.
     *
     * @param bookingId the id of the new booking (or of the booking a waitlist entry is promoted to)
     * @param request who wants which slot, under which request id
     * @param status HELD (waits for a confirm until {@code now + holdTtl}) or CONFIRMED (book)
     * @param now the instant to judge by, or null for the store's own clock
     * @param holdTtl how long the hold lasts
     * @param longestSession no stored session is longer than this (bounds the overlap search)
     * @param gateHeld a gate already found a seat: the store may skip its cheap full-slot pre-check
     * @param rules the tenant's rules (the student's limits)
     */
    public HoldCommand {
        Checks.notNull("bookingId", bookingId);
        Checks.notNull("request", request);
        Checks.notNull("status", status);
        if (!status.isActive()) {
            throw new InvalidInputException("status must be HELD or CONFIRMED, got " + status);
        }
        now = now == null ? null : Checks.micros("now", now);
        Checks.positive("holdTtl", holdTtl);
        Checks.positive("longestSession", longestSession);
        Checks.notNull("rules", rules);
    }

    /**
     * A command under the default booking rules.
     *
     * @param bookingId the id of the booking the hold makes
     * @param request who wants which slot, under which request id
     * @param status HELD for a hold, CONFIRMED for a booking in one step
     * @param now the time the decision is taken at; null: the store's own clock (the database's)
     * @param holdTtl how long the hold lasts
     * @param longestSession the longest session the store may hold, how far back the overlap check looks
     * @param gateHeld true when the gate holds the seat already
     */
    public HoldCommand(BookingId bookingId, HoldRequest request, BookingStatus status, @Nullable Instant now,
                       Duration holdTtl, Duration longestSession, boolean gateHeld) {
        this(bookingId, request, status, now, holdTtl, longestSession, gateHeld, BookingRules.defaults());
    }

    /** {@return the terms a seat freed on the way is promoted under} */
    public Terms terms() {
        return new Terms(rules, holdTtl, longestSession);
    }
}
