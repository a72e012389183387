package org.slotbook.core.spi;

import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import org.slotbook.core.Booking;
import org.slotbook.core.BookingId;
import org.slotbook.core.RequestId;
import org.slotbook.core.Slot;
import org.slotbook.core.SlotId;
import org.slotbook.core.StudentId;
import org.slotbook.core.TenantId;

/**
 * The source of truth for slots, seats and bookings. Its constraints are the final judge: whatever
 * a gate said, a seat is sold only when a {@link #claimSeat} commits.
 *
 * <h2>Transactions</h2>
 * Every primitive runs inside {@link #inTransaction}, and takes the {@link StoreTransaction} it was
 * given; reads and writes are scoped to that transaction's tenant. A {@link ConflictDetector} of the
 * same store joins the same transaction, so the engine's conflict check, seat claim, booking row and
 * occupation rows commit together or not at all. A backend provides this by creating ledger and
 * detector from one store object, whose transaction type carries the shared connection (JDBC) or
 * lock (in memory).
 *
 * <h2>Time</h2>
 * The ledger never reads a clock: every {@code now} comes from the engine's {@link java.time.Clock}.
 * A HELD booking is live while {@code now < heldUntil}.
 *
 * <h2>Faults</h2>
 * Infrastructure failures surface as {@link org.slotbook.core.BookingStoreException}, never as a raw
 * driver exception, and leave nothing half-written.
 */
public interface SeatLedger {

    /**
     * Runs {@code work} in one transaction scoped to {@code tenantId} and returns its result. The
     * transaction commits when the work returns normally, unless it called
     * {@link StoreTransaction#setRollbackOnly()}; it rolls back when the work throws, and the
     * exception propagates unchanged. A backend may run the work again after a deadlock or
     * serialization failure (bounded), so the work must have no effect outside the transaction.
     *
     * @param <T> the type of the result
     * @param tenantId the tenant whose data the call reads or changes
     * @param work what to do in the transaction; its result is returned
     * @return what {@code work} returned
     * @throws org.slotbook.core.BookingStoreException when the store is unreachable or retries ran out
     */
    <T> T inTransaction(TenantId tenantId, Function<StoreTransaction, T> work);

    /**
     * Stores a new OPEN slot with {@code capacity} free seats numbered 1..capacity. Returns false and
     * changes nothing when a slot with that id already exists for the tenant.
     *
     * @param tx the open transaction of the step, scoped to one tenant
     * @param slot the slot to store
     * @return true when the slot was stored
     */
    boolean insertSlot(StoreTransaction tx, Slot slot);

    /**
     * {@return the slot, or empty}
     *
     * @param tx the open transaction of the step, scoped to one tenant
     * @param slotId the slot, by its id within the tenant
     */
    Optional<Slot> findSlot(StoreTransaction tx, SlotId slotId);

    /**
     * {@return the booking, or empty}
     *
     * @param tx the open transaction of the step, scoped to one tenant
     * @param bookingId the booking, by its id within the tenant
     */
    Optional<Booking> findBooking(StoreTransaction tx, BookingId bookingId);

    /**
     * {@return the booking made under this request id, or empty}
     *
     * @param tx the open transaction of the step, scoped to one tenant
     * @param requestId the client's request id, which makes a repeat answer as the first call
     */
    Optional<Booking> findByRequest(StoreTransaction tx, RequestId requestId);

    /**
     * The student's HELD or CONFIRMED booking in the slot, whether or not its hold has run out.
     *
     * @param tx the open transaction of the step, scoped to one tenant
     * @param slotId the slot, by its id within the tenant
     * @param studentId the student the booking or entry belongs to
     * @return the booking, or empty
     */
    Optional<Booking> findActive(StoreTransaction tx, SlotId slotId, StudentId studentId);

    /**
     * Takes one free seat of the slot for {@code booking}, or a seat whose HELD booking ran out
     * ({@code heldUntil <= now}; that booking becomes EXPIRED), and writes the booking, all by
     * conditional statements that two concurrent claims can never both win. Returns empty, having
     * changed nothing, when no seat is free.
     *
     * @param tx the open transaction of the step, scoped to one tenant
     * @param booking the booking to seat
     * @param now the instant the step decides at
     * @return the claim, or empty when no seat is free
     * @throws DuplicateBookingException when the request id is used or the student has a seat already
     */
    Optional<SeatClaim> claimSeat(StoreTransaction tx, NewBooking booking, Instant now);

    /**
     * HELD with {@code heldUntil > now} becomes CONFIRMED; true only for the call that changed it.
     *
     * @param tx the open transaction of the step, scoped to one tenant
     * @param bookingId the booking, by its id within the tenant
     * @param now the instant the step decides at
     * @return true when this call confirmed it
     */
    boolean confirm(StoreTransaction tx, BookingId bookingId, Instant now);

    /**
     * HELD or CONFIRMED becomes CANCELLED and frees its seat; true only for the call that changed it.
     *
     * @param tx the open transaction of the step, scoped to one tenant
     * @param bookingId the booking, by its id within the tenant
     * @param now the instant the step decides at
     * @return true when this call cancelled it
     */
    boolean cancel(StoreTransaction tx, BookingId bookingId, Instant now);

    /**
     * HELD with {@code heldUntil <= now} becomes EXPIRED and frees its seat; true only for the call that
     * changed it.
     *
     * @param tx the open transaction of the step, scoped to one tenant
     * @param bookingId the booking, by its id within the tenant
     * @param now the instant the step decides at
     * @return true when this call expired it
     */
    boolean expire(StoreTransaction tx, BookingId bookingId, Instant now);

    /**
     * An OPEN slot becomes CANCELLED, every HELD or CONFIRMED booking of it CANCELLED, every seat
     * freed. Returns the bookings this call cancelled; nothing changes for a slot already cancelled.
     *
     * @param tx the open transaction of the step, scoped to one tenant
     * @param slotId the slot, by its id within the tenant
     * @param now the instant the step decides at
     * @return the bookings cancelled (empty when the slot was not OPEN)
     */
    List<BookingId> cancelSlot(StoreTransaction tx, SlotId slotId, Instant now);

    /**
     * Whether a claim could find a seat of the slot at {@code now}: a free one, or one whose hold ran
     * out. A cheap pre-check that locks nothing and reads only committed rows; the claim alone
     * decides. The default derives it from {@link #findSlot} and {@link #count}; a backend should
     * answer it with one indexed lookup.
     *
     * @param tx the open transaction of the step, scoped to one tenant
     * @param slotId the slot, by its id within the tenant
     * @param now the instant the step decides at
     * @return true when a claim could find a seat
     */
    default boolean hasFreeSeat(StoreTransaction tx, SlotId slotId, Instant now) {
        return findSlot(tx, slotId).map(slot -> count(tx, slotId, now).taken() < slot.capacity()).orElse(false);
    }

    /**
     * Live holds and confirmed bookings of the slot at {@code now}.
     *
     * @param tx the open transaction of the step, scoped to one tenant
     * @param slotId the slot, by its id within the tenant
     * @param now the instant the step decides at
     * @return the counts
     */
    SeatCount count(StoreTransaction tx, SlotId slotId, Instant now);

    /**
     * The bookings that hold a seat of the slot at {@code now}: CONFIRMED, and HELD with {@code now <
     * heldUntil}.
     *
     * @param tx the open transaction of the step, scoped to one tenant
     * @param slotId the slot, by its id within the tenant
     * @param now the instant the step decides at
     * @return the live bookings
     */
    List<Booking> liveBookings(StoreTransaction tx, SlotId slotId, Instant now);

    /**
     * Expires up to {@code limit} HELD bookings of the tenant whose hold ran out at {@code now}, frees
     * their seats and returns them. Safe to run from several nodes at once: a booking is expired by
     * exactly one caller.
     *
     * @param tx the open transaction of the step, scoped to one tenant
     * @param now the instant the step decides at
     * @param limit the most entries one page returns (1..1000)
     * @return the bookings expired
     */
    List<Booking> expireDue(StoreTransaction tx, Instant now, int limit);

    /**
     * {@return up to {@code limit} slots of the tenant in slot id order, starting after {@code after} (null:
     * from the first)}
     *
     * @param tx the open transaction of the step, scoped to one tenant
     * @param after the last entry of the page before (null: from the first)
     * @param limit the most entries one page returns (1..1000)
     */
    List<Slot> slots(StoreTransaction tx, @Nullable SlotId after, int limit);

    /**
     * {@return up to {@code limit} tenants with at least one committed slot, in tenant id order, after
     * {@code after} (null: from the first)} Runs outside any transaction: it is the one read that
     * spans tenants, and backs {@link BookingStore#tenants}.
     *
     * @param after the last entry of the page before (null: from the first)
     * @param limit the most entries one page returns (1..1000)
     */
    List<TenantId> tenants(@Nullable TenantId after, int limit);
}
