package org.slotbook.core.spi;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.slotbook.core.Availability;
import org.slotbook.core.Booking;
import org.slotbook.core.BookingId;
import org.slotbook.core.CancelResult;
import org.slotbook.core.CancelSlotResult;
import org.slotbook.core.ConfirmResult;
import org.slotbook.core.HoldResult;
import org.slotbook.core.RequestId;
import org.slotbook.core.ScheduleResult;
import org.slotbook.core.Slot;
import org.slotbook.core.SlotId;
import org.slotbook.core.StudentId;
import org.slotbook.core.TenantId;

/**
 * The source of truth for slots, seats, bookings and who is busy when: the seat ledger and the
 * conflict check of one store, as one unit. Every decision is one atomic step of the store, and on a
 * database one call into it: the rules (the student's lock, the replay, the overlap check, the seat
 * claim, the booking and occupation writes) run where the data lives, and nothing the answer depends
 * on is checked beforehand by the caller.
 *
 * <p>Whatever a gate said, a seat is sold only when {@link #hold} commits. Every method is scoped to
 * its tenant: nothing of another tenant is ever read or changed.
 *
 * <h2>Time</h2>
 * A {@code now} of {@code null} asks the store to use its own clock (the database's, read once in the
 * call that acts on it); a non-null {@code now} is used as given (tests, and an engine built with an
 * explicit {@link java.time.Clock}). A HELD booking is live while {@code now < heldUntil}.
 *
 * <h2>Faults</h2>
 * Infrastructure failures surface as {@link org.slotbook.core.BookingStoreException}, never as a raw
 * driver exception, and leave nothing half-written. A store may run a call again after a deadlock
 * or serialization failure (bounded).
 *
 * <p>Implementations: {@code InMemoryStore} (booking-core), {@code JdbcStore} (booking-jdbc). A
 * third-party store passes {@code BookingStoreContract} and {@code BookingEngineContract} of the
 * core test-jar.
 */
public interface BookingStore {

    /**
     * Locks the slot's coach and room, and stores the slot with {@code capacity} free seats unless
     * one of them is busy in an overlapping session ({@link org.slotbook.core.Conflict}, nothing
     * written). A slot with this id that already exists is answered as {@link org.slotbook.core.Scheduled}
     * with the stored slot, and nothing is written: the caller compares it with what it asked for.
     *
     * @param longestSession no stored session is longer than this; the overlap search starts at
     *                       {@code start - longestSession}
     */
    ScheduleResult schedule(TenantId tenantId, Slot slot, Duration longestSession);

    /**
     * Decides one hold (or book) in one atomic step; see {@link HoldCommand}. Answers
     * {@link org.slotbook.core.Held} (new, or {@code replayed} for a request id already stored, in
     * whatever state that booking is now; the caller checks that slot and student match),
     * {@link org.slotbook.core.AlreadyBooked}, {@link org.slotbook.core.Conflict},
     * {@link org.slotbook.core.Full}, {@link org.slotbook.core.SlotNotOpen} or
     * {@link org.slotbook.core.NotFound}.
     *
     * @throws DuplicateBookingException when a unique key refused the write (the request id is used
     *                                   by another student); nothing was written
     */
    StoreOutcome<HoldResult> hold(TenantId tenantId, HoldCommand command);

    /**
     * Confirms the student's HELD booking while {@code now < heldUntil}; at or after it, expires the
     * hold and frees its seat. Another student's or tenant's booking answers NotFound.
     */
    StoreOutcome<ConfirmResult> confirm(TenantId tenantId, BookingId bookingId, StudentId studentId, Instant now);

    /**
     * Cancels the student's HELD or CONFIRMED booking and frees its seat and occupation, once. A repeat
     * answers {@link org.slotbook.core.AlreadyCancelled} with the booking as its
     * {@link StoreOutcome#subject() subject}.
     */
    StoreOutcome<CancelResult> cancel(TenantId tenantId, BookingId bookingId, StudentId studentId, Instant now);

    /** Calls the slot off: every booking cancelled (one CANCELLED event each), every seat and occupation released. */
    StoreOutcome<CancelSlotResult> cancelSlot(TenantId tenantId, SlotId slotId, Instant now);

    /**
     * Expires up to {@code limit} HELD bookings of the tenant whose hold ran out, frees their seats
     * and occupations, and returns them as they are now (EXPIRED). Safe on several nodes at once: a
     * booking is expired by exactly one caller.
     */
    List<Booking> expireDue(TenantId tenantId, Instant now, int limit);

    /** The slot's seats at {@code now}, or empty when the tenant has no such slot. */
    Optional<Availability> availability(TenantId tenantId, SlotId slotId, Instant now);

    /**
     * The slot and the bookings holding a seat of it at {@code now} (CONFIRMED, and HELD with
     * {@code now < heldUntil}), read in one consistent step; empty when there is no such slot.
     */
    Optional<LiveSlot> liveSlot(TenantId tenantId, SlotId slotId, Instant now);

    Optional<Booking> findBooking(TenantId tenantId, BookingId bookingId);

    Optional<Booking> findByRequest(TenantId tenantId, RequestId requestId);

    /** Up to {@code limit} slots of the tenant in slot id order, after {@code after} (null: from the first). */
    List<Slot> slots(TenantId tenantId, SlotId after, int limit);

    /**
     * Up to {@code limit} tenants that have at least one slot, in tenant id order (the binary order
     * of the id's characters), after {@code after} (null: from the first). The one read that spans
     * tenants: it names them and reads nothing else of theirs. Upkeep pages through it
     * ({@link org.slotbook.core.ReconciliationJob} without a tenant list); a page is read in one
     * step, and a tenant whose first slot commits after the page was read shows up on a later run.
     */
    List<TenantId> tenants(TenantId after, int limit);
}
