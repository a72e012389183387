package org.slotbook.core.memory;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;
import org.slotbook.core.BookingId;
import org.slotbook.core.InvalidInputException;
import org.slotbook.core.ResourceConflict;
import org.slotbook.core.ResourceRef;
import org.slotbook.core.SlotId;
import org.slotbook.core.TimeRange;
import org.slotbook.core.internal.Checks;
import org.slotbook.core.memory.TenantState.Occupied;
import org.slotbook.core.spi.ConflictDetector;
import org.slotbook.core.spi.Occupation;
import org.slotbook.core.spi.StoreTransaction;

/**
 * The {@link ConflictDetector} of an {@link InMemoryPrimitives}. Occupations are kept per resource,
 * ordered by start, so the overlap search reads only those starting within {@code longestSession}
 * before the new range and before its end.
 */
final class MemoryConflicts implements ConflictDetector {
    private final InMemoryPrimitives store;

    MemoryConflicts(InMemoryPrimitives store) {
        this.store = store;
    }

    /**
     * Nothing to do: a transaction holds its tenant's lock from start to end, and every resource
     * belongs to one tenant, so no other transaction can touch the resource until this one ends.
     */
    @Override
    public void lock(StoreTransaction tx, Collection<ResourceRef> resources) {
        store.own(tx);
        for (ResourceRef r : Checks.notNull("resources", resources)) {
            Checks.notNull("resources element", r);
        }
    }

    @Override
    public List<ResourceConflict> occupy(StoreTransaction tx, Occupation occupation, Duration longestSession) {
        MemoryTransaction t = store.own(tx);
        Checks.notNull("occupation", occupation);
        Checks.positive("longestSession", longestSession);
        TimeRange time = occupation.time();
        if (time.duration().compareTo(longestSession) > 0) {
            throw new InvalidInputException("occupation time " + time + " is longer than longestSession "
                    + longestSession);
        }
        TenantState state = t.state;
        Instant from = time.start().minus(longestSession);
        TreeSet<ResourceRef> resources = new TreeSet<>(occupation.resources());
        List<ResourceConflict> conflicts = new ArrayList<>();
        for (ResourceRef resource : resources) {
            TreeSet<Occupied> busy = state.byResource.get(resource);
            if (busy == null) {
                continue;
            }
            for (Occupied o : busy.tailSet(Occupied.probe(resource, from), true)) {
                if (!o.time().start().isBefore(time.end())) {
                    break;
                }
                if (o.time().overlaps(time)) {
                    conflicts.add(new ResourceConflict(resource, o.slotId(), Optional.ofNullable(o.bookingId()),
                            o.time()));
                }
            }
        }
        if (!conflicts.isEmpty()) {
            return conflicts;
        }
        List<Occupied> written = new ArrayList<>(resources.size());
        for (ResourceRef resource : resources) {
            Occupied o = new Occupied(++state.occupationSeq, resource, time, occupation.slotId(),
                    occupation.bookingId());
            state.addOccupied(o);
            written.add(o);
        }
        t.onRollback(() -> written.forEach(state::removeOccupied));
        return List.of();
    }

    @Override
    public int releaseBooking(StoreTransaction tx, BookingId bookingId) {
        MemoryTransaction t = store.own(tx);
        Checks.notNull("bookingId", bookingId);
        return release(t, t.state.byBooking.get(bookingId));
    }

    @Override
    public int releaseSlot(StoreTransaction tx, SlotId slotId) {
        MemoryTransaction t = store.own(tx);
        Checks.notNull("slotId", slotId);
        return release(t, t.state.bySlot.get(slotId));
    }

    private static int release(MemoryTransaction t, List<Occupied> occupied) {
        if (occupied == null) {
            return 0;
        }
        List<Occupied> released = List.copyOf(occupied);
        TenantState state = t.state;
        released.forEach(state::removeOccupied);
        t.onRollback(() -> released.forEach(state::addOccupied));
        return released.size();
    }

    @Override
    public String toString() {
        return "InMemoryConflictDetector";
    }
}
