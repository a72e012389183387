package org.slotbook.core.rules;

import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import org.jspecify.annotations.Nullable;
import org.slotbook.core.Booking;
import org.slotbook.core.BookingId;
import org.slotbook.core.CreditEntry;
import org.slotbook.core.LessonPackage;
import org.slotbook.core.PackageId;
import org.slotbook.core.RequestId;
import org.slotbook.core.ResourceRef;
import org.slotbook.core.SeriesId;
import org.slotbook.core.Slot;
import org.slotbook.core.SlotId;
import org.slotbook.core.StudentId;
import org.slotbook.core.TenantId;
import org.slotbook.core.WaitlistEntry;
import org.slotbook.core.spi.BookingEvent;

/**
 * One transaction of one tenant in a {@link RuleStorage}: the reads and writes the booking rules make.
 * Everything is of {@link #tenantId()}; a write is seen by the reads after it in the same transaction.
 * The rules ask for locks before they read what they decide on: {@link #lock} for coaches, rooms and
 * students, {@code forUpdate} for a slot, booking or package row.
 */
public interface RuleTx {
    /** {@return the tenant of this transaction} */
    TenantId tenantId();

    // ---- locks and the transaction

    /**
     * Locks coaches, rooms or students until the transaction ends, in the order given (the rules
     * give them sorted). A store with one lock per tenant may do nothing here.
     *
     * @param resources what to lock
     * @return whether what this transaction read before may have changed since: true for a storage that
     *         locks as asked (the rules then read and check again under the locks), false for one that
     *         held the whole tenant from the transaction's start (nothing can have changed)
     */
    boolean lock(List<ResourceRef> resources);

    /** Undoes every write of this transaction so far; the transaction goes on (an all-or-nothing series). */
    void rollback();

    /**
     * Writes a decision's booking events into the tenant's outbox, in this transaction, in order: the
     * rules call it once per decision, last. A storage without an outbox ({@link RuleStorage#outbox()}
     * null) does nothing here; the engine then tells the listener only right after each commit.
     *
     * @param events the events, in the order they happened
     */
    default void recordEvents(List<BookingEvent> events) {
    }

    // ---- slots and seats

    /**
     * {@return the stored slot, locked until the transaction ends when {@code forUpdate}}
     *
     * @param slotId    the slot
     * @param forUpdate whether to lock it
     */
    Optional<StoredSlot> slot(SlotId slotId, boolean forUpdate);

    /**
     * Stores a new slot with all its seats free.
     *
     * @param slot the slot and its week
     * @return false, changing nothing, when a slot of that id is stored already
     */
    boolean insertSlot(StoredSlot slot);

    /**
     * Replaces the stored slot of {@code slot}'s id (its status changes).
     *
     * @param slot the slot as it is now
     */
    void updateSlot(Slot slot);

    /**
     * {@return the slots ascending by id after {@code after}, at most {@code limit}}
     *
     * @param after the last slot of the previous page, or null
     * @param limit the most to answer
     */
    List<Slot> slots(@Nullable SlotId after, int limit);

    /**
     * {@return every occurrence of the series, in any status, in any order}
     *
     * @param seriesId the series
     */
    List<Slot> seriesSlots(SeriesId seriesId);

    /**
     * {@return the lowest free seat of the slot, or empty when none is free}
     *
     * @param slotId the slot
     */
    OptionalInt freeSeat(SlotId slotId);

    /**
     * Gives a free seat to a booking.
     *
     * @param slotId    the slot
     * @param seat      the seat, free
     * @param bookingId the booking that takes it
     */
    void takeSeat(SlotId slotId, int seat, BookingId bookingId);

    /**
     * Frees a seat.
     *
     * @param slotId the slot
     * @param seat   the seat
     */
    void freeSeat(SlotId slotId, int seat);

    /**
     * No seat of the slot is free from now on (it was called off).
     *
     * @param slotId the slot
     */
    void closeSeats(SlotId slotId);

    /**
     * {@return the bookings that hold a seat of the slot (HELD, live or dead, and CONFIRMED), by seat}
     *
     * @param slotId the slot
     */
    List<Booking> seated(SlotId slotId);

    // ---- bookings

    /**
     * {@return the booking, locked until the transaction ends when {@code forUpdate}} A confirm of a live hold
     * locks only its student and this row, and a hold that takes another student's dead hold over for its seat
     * only the slot and this row: a storage that locks rows must lock this one.
     *
     * @param bookingId the booking
     * @param forUpdate whether to lock it
     */
    Optional<Booking> booking(BookingId bookingId, boolean forUpdate);

    /**
     * {@return the booking made under a request id}
     *
     * @param requestId the request
     */
    Optional<Booking> bookingOfRequest(RequestId requestId);

    /**
     * {@return the student's booking that holds a seat of the slot}
     *
     * @param slotId    the slot
     * @param studentId the student
     */
    Optional<Booking> seatedBooking(SlotId slotId, StudentId studentId);

    /**
     * {@return the HELD booking of the slot whose deadline passed first (not after {@code now}), if any}
     *
     * @param slotId the slot
     * @param now    the time of the decision
     */
    Optional<Booking> oldestDeadHold(SlotId slotId, Instant now);

    /**
     * Stores a new booking; its request id is not used yet.
     *
     * @param booking the booking
     */
    void insertBooking(Booking booking);

    /**
     * Replaces the stored booking of {@code booking}'s id.
     *
     * @param booking the booking as it is now
     */
    void updateBooking(Booking booking);

    /**
     * {@return HELD bookings whose deadline is not after {@code now}, earliest deadline first (then booking id)}
     *
     * @param now   the time of the sweep
     * @param limit the most to answer
     */
    List<Booking> dueHolds(Instant now, int limit);

    /**
     * {@return CONFIRMED bookings with no attendance whose slot ended by {@code endedBy}, by the slot's end then booking id}
     *
     * @param endedBy the latest end
     * @param limit   the most to answer
     */
    List<Booking> unattended(Instant endedBy, int limit);

    /**
     * {@return every booking of the student, in any status and order}
     *
     * @param studentId the student
     */
    List<Booking> bookingsOf(StudentId studentId);

    // ---- occupations

    /**
     * {@return the resource's occupations overlapping [from, to), by start}
     *
     * @param resource the coach, room or student
     * @param from     the start, inclusive
     * @param to       the end, exclusive
     */
    List<Occupancy> occupations(ResourceRef resource, Instant from, Instant to);

    /**
     * Stores an occupation.
     *
     * @param occupancy the occupation
     */
    void occupy(Occupancy occupancy);

    /**
     * Removes the occupations of a booking's student, or, with {@code bookingId} null, the slot's coach
     * and room occupations.
     *
     * @param slotId    the slot
     * @param bookingId the booking, or null for the slot's coach and room
     */
    void vacate(SlotId slotId, @Nullable BookingId bookingId);

    // ---- waitlists

    /**
     * {@return the waiter of a request id}
     *
     * @param requestId the waitlist request
     */
    Optional<Waiter> waiter(RequestId requestId);

    /**
     * {@return the slot's WAITING waiters, in the order they joined}
     *
     * @param slotId the slot
     */
    List<Waiter> waiting(SlotId slotId);

    /**
     * Adds a WAITING waiter at the end of the slot's waitlist.
     *
     * @param slotId    the slot
     * @param requestId the request id, not used yet
     * @param studentId the student
     * @param bookingId the booking a promotion will give
     * @param now       when it joined
     * @return the stored waiter
     */
    Waiter join(SlotId slotId, RequestId requestId, StudentId studentId, BookingId bookingId, Instant now);

    /**
     * Changes where a waiter stands.
     *
     * @param requestId the waiter's request
     * @param status    the new status
     * @param reason    why a SKIPPED waiter was passed over, else null
     * @param now       when
     */
    void markWaiter(RequestId requestId, WaitlistEntry.Status status, WaitlistEntry.@Nullable SkipReason reason,
                    Instant now);

    // ---- packages and credits

    /**
     * {@return the package, locked until the transaction ends when {@code forUpdate}}
     *
     * @param packageId the package
     * @param forUpdate whether to lock it
     */
    Optional<LessonPackage> lessonPackage(PackageId packageId, boolean forUpdate);

    /**
     * {@return the student's packages, in any order}
     *
     * @param studentId the student
     */
    List<LessonPackage> packagesOf(StudentId studentId);

    /**
     * Stores a new package holding nothing yet (its GRANT entry fills it).
     *
     * @param empty the package, {@code remaining} 0
     */
    void insertPackage(LessonPackage empty);

    /**
     * Appends a journal entry and moves the package's {@code remaining} by {@code delta}: the only way
     * credits move.
     *
     * @param packageId the package
     * @param reason    why
     * @param delta     how many credits, signed
     * @param booking   the booking they move for, null for the GRANT
     * @param now       when
     * @throws IllegalStateException when the package would hold less than 0 or more than its credits, or
     *                               the booking has an entry of this reason already
     */
    void appendCredit(PackageId packageId, CreditEntry.Reason reason, int delta, @Nullable Booking booking,
                      Instant now);

    /**
     * {@return the package's journal in the order it was written}
     *
     * @param packageId the package
     * @param offset    how many to skip
     * @param limit     the most to answer
     */
    List<CreditEntry> journal(PackageId packageId, int offset, int limit);
}
