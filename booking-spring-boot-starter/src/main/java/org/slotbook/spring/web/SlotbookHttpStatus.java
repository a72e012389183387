package org.slotbook.spring.web;

import java.util.Map;
import org.slotbook.core.AlreadyBooked;
import org.slotbook.core.AlreadyCancelled;
import org.slotbook.core.Availability;
import org.slotbook.core.BookingClosed;
import org.slotbook.core.Cancelled;
import org.slotbook.core.CheckInClosed;
import org.slotbook.core.CheckInNotOpen;
import org.slotbook.core.CheckedIn;
import org.slotbook.core.Confirmed;
import org.slotbook.core.Conflict;
import org.slotbook.core.Full;
import org.slotbook.core.Held;
import org.slotbook.core.HoldExpired;
import org.slotbook.core.InsufficientCredits;
import org.slotbook.core.LeftWaitlist;
import org.slotbook.core.LimitReached;
import org.slotbook.core.NoLongerHeld;
import org.slotbook.core.NotConfirmed;
import org.slotbook.core.NotFound;
import org.slotbook.core.NotOpenYet;
import org.slotbook.core.NotWaiting;
import org.slotbook.core.Scheduled;
import org.slotbook.core.SlotCancelled;
import org.slotbook.core.SlotNotOpen;
import org.slotbook.core.TooLateToCancel;
import org.slotbook.core.Waitlisted;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;

/**
 * The HTTP status of each result a {@code BookingEngine} answers, for a REST layer that returns the
 * result as its body:
 * <ul>
 *   <li>201 Created: {@code Held}, {@code Scheduled}; 202 Accepted: {@code Waitlisted} (a seat may come later);</li>
 *   <li>200 OK: {@code Confirmed}, {@code Cancelled}, {@code AlreadyCancelled} (a repeated cancel is
 *       answered as a success, so a retry is safe), {@code LeftWaitlist}, {@code SlotCancelled},
 *       {@code CheckedIn}, {@code Availability};</li>
 *   <li>404 Not Found: {@code NotFound};</li>
 *   <li>409 Conflict: every refusal the state of the slot, the student or the booking decides
 *       ({@code Full}, {@code AlreadyBooked}, {@code Conflict}, {@code LimitReached},
 *       {@code InsufficientCredits}, {@code NotOpenYet}, {@code BookingClosed}, {@code SlotNotOpen},
 *       {@code NoLongerHeld}, {@code HoldExpired}, {@code TooLateToCancel}, {@code NotWaiting},
 *       {@code CheckInNotOpen}, {@code CheckInClosed}, {@code NotConfirmed}).</li>
 * </ul>
 * Every result type of every operation has a status here (a test checks it against the sealed
 * result interfaces).
 */
public final class SlotbookHttpStatus {
    private static final Map<Class<?>, HttpStatus> STATUS = Map.ofEntries(
            Map.entry(Held.class, HttpStatus.CREATED),
            Map.entry(Scheduled.class, HttpStatus.CREATED),
            Map.entry(Waitlisted.class, HttpStatus.ACCEPTED),
            Map.entry(Confirmed.class, HttpStatus.OK),
            Map.entry(Cancelled.class, HttpStatus.OK),
            Map.entry(AlreadyCancelled.class, HttpStatus.OK),
            Map.entry(LeftWaitlist.class, HttpStatus.OK),
            Map.entry(SlotCancelled.class, HttpStatus.OK),
            Map.entry(CheckedIn.class, HttpStatus.OK),
            Map.entry(Availability.class, HttpStatus.OK),
            Map.entry(NotFound.class, HttpStatus.NOT_FOUND),
            Map.entry(Full.class, HttpStatus.CONFLICT),
            Map.entry(AlreadyBooked.class, HttpStatus.CONFLICT),
            Map.entry(Conflict.class, HttpStatus.CONFLICT),
            Map.entry(LimitReached.class, HttpStatus.CONFLICT),
            Map.entry(InsufficientCredits.class, HttpStatus.CONFLICT),
            Map.entry(NotOpenYet.class, HttpStatus.CONFLICT),
            Map.entry(BookingClosed.class, HttpStatus.CONFLICT),
            Map.entry(SlotNotOpen.class, HttpStatus.CONFLICT),
            Map.entry(NoLongerHeld.class, HttpStatus.CONFLICT),
            Map.entry(HoldExpired.class, HttpStatus.CONFLICT),
            Map.entry(TooLateToCancel.class, HttpStatus.CONFLICT),
            Map.entry(NotWaiting.class, HttpStatus.CONFLICT),
            Map.entry(CheckInNotOpen.class, HttpStatus.CONFLICT),
            Map.entry(CheckInClosed.class, HttpStatus.CONFLICT),
            Map.entry(NotConfirmed.class, HttpStatus.CONFLICT));

    private SlotbookHttpStatus() {
    }

    /**
     * The status of a result; a value that is no Slotbook result is refused.
     *
     * @param result a result a {@code BookingEngine} answered
     * @return the HTTP status of the result
     * @throws IllegalArgumentException when {@code result} is null or not a Slotbook result
     */
    public static HttpStatus of(Object result) {
        if (result == null) {
            throw new IllegalArgumentException("result must be a Slotbook result (Held, Full, NotFound, ...), got null");
        }
        return ofType(result.getClass());
    }

    /**
     * The status of a result type ({@code Held.class}, ...).
     *
     * @param type a result type of a {@code BookingEngine} operation
     * @return the HTTP status of results of that type
     * @throws IllegalArgumentException when {@code type} is no Slotbook result type
     */
    public static HttpStatus ofType(Class<?> type) {
        HttpStatus status = STATUS.get(type);
        if (status == null) {
            throw new IllegalArgumentException("type must be a Slotbook result (Held, Full, NotFound, ...), got "
                    + type.getName());
        }
        return status;
    }

    /**
     * The result as a response body, with its status ({@link #of}).
     *
     * @param <T> the result's type
     * @param result a result a {@code BookingEngine} answered
     * @return a response with the result's status and the result as its body
     * @throws IllegalArgumentException when {@code result} is null or not a Slotbook result
     */
    public static <T> ResponseEntity<T> response(T result) {
        return ResponseEntity.status(of(result)).body(result);
    }
}
