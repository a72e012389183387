package org.slotbook.core.spi;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import org.slotbook.core.BookingId;
import org.slotbook.core.ResourceConflict;
import org.slotbook.core.ResourceRef;
import org.slotbook.core.SlotId;

/**
 * Keeps coaches, rooms and students out of two overlapping sessions. It acts inside the ledger's
 * transaction (see {@link SeatLedger}): the check and the write are one atomic step because every
 * transaction that occupies a resource first {@linkplain #lock locks} it, and the lock is held until
 * the transaction ends.
 *
 * <p>Ranges are half-open: an occupation {@code [a, b)} conflicts with {@code [c, d)} iff
 * {@code a < d && b > c}. Only active occupations count; released ones stay as history.
 */
public interface ConflictDetector {

    /**
     * Locks the resources until {@code tx} ends, in one global order (kind, then id) so that two
     * transactions never deadlock on each other's resources. Locking a resource twice in one
     * transaction is harmless.
     *
     * @param tx the open transaction of the step, scoped to one tenant
     * @param resources the coaches, rooms or students to lock
     */
    void lock(StoreTransaction tx, Collection<ResourceRef> resources);

    /**
     * Locks the occupation's resources, looks for active occupations that overlap its range, and
     * writes it when there are none. Returns the clashes (and writes nothing) otherwise.
     *
     * @param longestSession no stored occupation is longer than this; the overlap search starts at
     *                       {@code time.start - longestSession}, which keeps it short however long
     *                       a resource's history is
     * @param tx the open transaction of the step, scoped to one tenant
     * @param occupation the resource, the time range and the booking or slot that takes it
     * @return the overlapping occupations (empty: the occupation was written)
     */
    List<ResourceConflict> occupy(StoreTransaction tx, Occupation occupation, Duration longestSession);

    /**
     * Releases the occupation written for this booking; 0 when there was none (or it was already released).
     *
     * @param tx the open transaction of the step, scoped to one tenant
     * @param bookingId the booking, by its id within the tenant
     * @return how many occupations were released
     */
    int releaseBooking(StoreTransaction tx, BookingId bookingId);

    /**
     * Releases every occupation of the slot: its coach and room and all its students.
     *
     * @param tx the open transaction of the step, scoped to one tenant
     * @param slotId the slot, by its id within the tenant
     * @return how many occupations were released
     */
    int releaseSlot(StoreTransaction tx, SlotId slotId);
}
