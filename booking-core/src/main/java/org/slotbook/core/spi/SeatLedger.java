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
     * @throws org.slotbook.core.BookingStoreException when the store is unreachable or retries ran out
     */
    <T> T inTransaction(TenantId tenantId, Function<StoreTransaction, T> work);

    /**
     * Stores a new OPEN slot with {@code capacity} free seats numbered 1..capacity. Returns false and
     * changes nothing when a slot with that id already exists for the tenant.
     */
    boolean insertSlot(StoreTransaction tx, Slot slot);

    Optional<Slot> findSlot(StoreTransaction tx, SlotId slotId);

    Optional<Booking> findBooking(StoreTransaction tx, BookingId bookingId);

    Optional<Booking> findByRequest(StoreTransaction tx, RequestId requestId);

    /** The student's HELD or CONFIRMED booking in the slot, whether or not its hold has run out. */
    Optional<Booking> findActive(StoreTransaction tx, SlotId slotId, StudentId studentId);

    /**
     * Takes one free seat of the slot for {@code booking}, or a seat whose HELD booking ran out
     * ({@code heldUntil <= now}; that booking becomes EXPIRED), and writes the booking, all by
     * conditional statements that two concurrent claims can never both win. Returns empty, having
     * changed nothing, when no seat is free.
     *
     * @throws DuplicateBookingException when the request id is used or the student has a seat already
     */
    Optional<SeatClaim> claimSeat(StoreTransaction tx, NewBooking booking, Instant now);

    /** HELD with {@code heldUntil > now} becomes CONFIRMED; true only for the call that changed it. */
    boolean confirm(StoreTransaction tx, BookingId bookingId, Instant now);

    /** HELD or CONFIRMED becomes CANCELLED and frees its seat; true only for the call that changed it. */
    boolean cancel(StoreTransaction tx, BookingId bookingId, Instant now);

    /** HELD with {@code heldUntil <= now} becomes EXPIRED and frees its seat; true only for the call that changed it. */
    boolean expire(StoreTransaction tx, BookingId bookingId, Instant now);

    /**
     * An OPEN slot becomes CANCELLED, every HELD or CONFIRMED booking of it CANCELLED, every seat
     * freed. Returns the bookings this call cancelled; nothing changes for a slot already cancelled.
     */
    List<BookingId> cancelSlot(StoreTransaction tx, SlotId slotId, Instant now);

    /**
     * Whether a claim could find a seat of the slot at {@code now}: a free one, or one whose hold ran
     * out. A cheap pre-check that locks nothing and reads only committed rows; the claim alone
     * decides. The default derives it from {@link #findSlot} and {@link #count}; a backend should
     * answer it with one indexed lookup.
     */
    default boolean hasFreeSeat(StoreTransaction tx, SlotId slotId, Instant now) {
        return findSlot(tx, slotId).map(slot -> count(tx, slotId, now).taken() < slot.capacity()).orElse(false);
    }

    /** Live holds and confirmed bookings of the slot at {@code now}. */
    SeatCount count(StoreTransaction tx, SlotId slotId, Instant now);

    /** The bookings that hold a seat of the slot at {@code now}: CONFIRMED, and HELD with {@code now < heldUntil}. */
    List<Booking> liveBookings(StoreTransaction tx, SlotId slotId, Instant now);

    /**
     * Expires up to {@code limit} HELD bookings of the tenant whose hold ran out at {@code now}, frees
     * their seats and returns them. Safe to run from several nodes at once: a booking is expired by
     * exactly one caller.
     */
    List<Booking> expireDue(StoreTransaction tx, Instant now, int limit);

    /** Up to {@code limit} slots of the tenant in slot id order, starting after {@code after} (null: from the first). */
    List<Slot> slots(StoreTransaction tx, @Nullable SlotId after, int limit);

    /**
     * Up to {@code limit} tenants with at least one committed slot, in tenant id order, after
     * {@code after} (null: from the first). Runs outside any transaction: it is the one read that
     * spans tenants, and backs {@link BookingStore#tenants}.
     */
    List<TenantId> tenants(@Nullable TenantId after, int limit);
}
