package org.slotbook.core.memory;

import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slotbook.core.RequestId;
import org.slotbook.core.SlotId;
import org.slotbook.core.SlotSpec;
import org.slotbook.core.StudentId;
import org.slotbook.core.TenantId;
import org.slotbook.core.internal.Checks;
import org.slotbook.core.spi.GateDecision;
import org.slotbook.core.spi.GateHolder;
import org.slotbook.core.spi.GateSync;
import org.slotbook.core.spi.GateView;
import org.slotbook.core.spi.SeatReservation;

/**
 * A gate kept in memory, with the semantics of the Redis gate: per (tenant, slot) a capacity and
 * holders keyed by student, each with an expiry (none once pinned by a confirm). Expired holders
 * ({@code expiresAt <= now}) are reclaimed by the next {@link #tryHold} of the slot; remaining seats
 * are always {@code capacity - holders}.
 *
 * <p>Each operation on a slot is atomic (it runs under that slot's entry lock). Whole slots are
 * dropped once their {@code keepUntil} has passed on the gate's own clock, as Redis would expire
 * their keys; a null {@code keepUntil} keeps a slot until it is cleared.
 *
 * <p>For tests it can simulate faults: {@link #setAvailable(boolean)}, {@link #evict} and
 * {@link #clearAll()}.
 */
public final class InMemorySeatReservation implements SeatReservation {
    private final ConcurrentHashMap<Key, Gate> gates = new ConcurrentHashMap<>();
    private final Clock clock;
    private volatile boolean available = true;

    private InMemorySeatReservation(Clock clock) {
        this.clock = clock;
    }

    /** A gate whose slots expire by the system clock. */
    public static InMemorySeatReservation create() {
        return new InMemorySeatReservation(Clock.systemUTC());
    }

    /** A gate whose slots expire ({@code keepUntil}) by {@code clock}. */
    public static InMemorySeatReservation create(Clock clock) {
        return new InMemorySeatReservation(Checks.notNull("clock", clock));
    }

    @Override
    public GateDecision tryHold(TenantId tenantId, SlotId slotId, StudentId studentId, RequestId requestId,
                                Instant now, Instant expiresAt) {
        Key key = key(tenantId, slotId);
        Checks.notNull("studentId", studentId);
        Checks.notNull("requestId", requestId);
        Checks.notNull("now", now);
        Checks.notNull("expiresAt", expiresAt);
        if (!expiresAt.isAfter(now)) {
            throw new IllegalArgumentException("expiresAt must be after now " + now + ", got " + expiresAt);
        }
        if (!available) {
            return GateDecision.UNAVAILABLE;
        }
        GateDecision[] decision = {GateDecision.MISSING};
        gates.computeIfPresent(key, (k, gate) -> {
            if (gate.gone(clock)) {
                return null;
            }
            gate.reclaim(now);
            GateHolder existing = gate.holders.get(studentId);
            if (existing != null) {
                decision[0] = GateDecision.duplicate(existing.requestId());
            } else if (gate.holders.size() >= gate.capacity) {
                decision[0] = GateDecision.FULL;
            } else {
                gate.holders.put(studentId, new GateHolder(studentId, requestId, now, expiresAt));
                decision[0] = GateDecision.HELD;
            }
            return gate;
        });
        return decision[0];
    }

    @Override
    public void confirm(TenantId tenantId, SlotId slotId, StudentId studentId) {
        Key key = key(tenantId, slotId);
        Checks.notNull("studentId", studentId);
        checkAvailable();
        gates.computeIfPresent(key, (k, gate) -> {
            if (gate.gone(clock)) {
                return null;
            }
            gate.holders.computeIfPresent(studentId,
                    (s, h) -> new GateHolder(h.studentId(), h.requestId(), h.takenAt(), null));
            return gate;
        });
    }

    @Override
    public boolean release(TenantId tenantId, SlotId slotId, StudentId studentId) {
        Key key = key(tenantId, slotId);
        Checks.notNull("studentId", studentId);
        checkAvailable();
        boolean[] removed = {false};
        gates.computeIfPresent(key, (k, gate) -> {
            if (gate.gone(clock)) {
                return null;
            }
            removed[0] = gate.holders.remove(studentId) != null;
            return gate;
        });
        return removed[0];
    }

    @Override
    public void initialize(TenantId tenantId, SlotId slotId, int capacity, Instant keepUntil) {
        Key key = key(tenantId, slotId);
        Checks.between("capacity", capacity, 0, SlotSpec.MAX_CAPACITY);
        checkAvailable();
        gates.compute(key, (k, gate) -> gate == null || gate.gone(clock) ? new Gate(capacity, keepUntil) : gate);
    }

    @Override
    public GateSync reconcile(TenantId tenantId, SlotId slotId, int capacity, Collection<GateHolder> truth,
                              Instant now, Instant removeTakenBefore, Instant keepUntil) {
        Key key = key(tenantId, slotId);
        Checks.between("capacity", capacity, 0, SlotSpec.MAX_CAPACITY);
        Checks.notNull("truth", truth);
        Checks.notNull("now", now);
        Checks.notNull("removeTakenBefore", removeTakenBefore);
        Set<StudentId> known = new HashSet<>();
        for (GateHolder h : truth) {
            Checks.notNull("truth element", h);
            known.add(h.studentId());
        }
        checkAvailable();
        GateSync[] sync = new GateSync[1];
        gates.compute(key, (k, existing) -> {
            Gate gate = existing == null || existing.gone(clock) ? null : existing;
            boolean capacityFixed = gate == null || gate.capacity != capacity;
            if (gate == null) {
                gate = new Gate(capacity, keepUntil);
            }
            gate.capacity = capacity;
            gate.keepUntil = keepUntil;
            gate.reclaim(now);
            int removed = 0;
            for (Iterator<GateHolder> it = gate.holders.values().iterator(); it.hasNext(); ) {
                GateHolder h = it.next();
                if (!known.contains(h.studentId()) && h.takenAt().isBefore(removeTakenBefore)) {
                    it.remove();
                    removed++;
                }
            }
            int added = 0;
            for (GateHolder h : truth) {
                if (!h.liveAt(now)) {
                    continue;
                }
                if (gate.holders.put(h.studentId(), h) == null) {
                    added++;
                }
            }
            sync[0] = new GateSync(added, removed, capacityFixed);
            return gate;
        });
        return sync[0];
    }

    @Override
    public void clear(TenantId tenantId, SlotId slotId) {
        Key key = key(tenantId, slotId);
        checkAvailable();
        gates.remove(key);
    }

    @Override
    public Optional<GateView> inspect(TenantId tenantId, SlotId slotId, Instant now) {
        Key key = key(tenantId, slotId);
        Checks.notNull("now", now);
        checkAvailable();
        GateView[] view = new GateView[1];
        gates.computeIfPresent(key, (k, gate) -> {
            if (gate.gone(clock)) {
                return null;
            }
            List<GateHolder> live = new ArrayList<>(gate.holders.size());
            for (GateHolder h : gate.holders.values()) {
                if (h.liveAt(now)) {
                    live.add(h);
                }
            }
            view[0] = new GateView(gate.capacity, live);
            return gate;
        });
        return Optional.ofNullable(view[0]);
    }

    /**
     * Simulates the gate going down ({@code false}) or coming back: while down, {@link #tryHold}
     * answers {@code UNAVAILABLE} and every other method throws {@link IllegalStateException}.
     * State is kept.
     */
    public void setAvailable(boolean available) {
        this.available = available;
    }

    /** Drops one slot's state, as a cache eviction would; the next {@link #tryHold} answers {@code MISSING}. */
    public void evict(TenantId tenantId, SlotId slotId) {
        gates.remove(key(tenantId, slotId));
    }

    /** Drops every slot's state, as a restart of an empty server would. */
    public void clearAll() {
        gates.clear();
    }

    @Override
    public String toString() {
        return "InMemorySeatReservation[slots=" + gates.size() + (available ? "" : ", unavailable") + "]";
    }

    private void checkAvailable() {
        if (!available) {
            throw new IllegalStateException("gate unavailable");
        }
    }

    private static Key key(TenantId tenantId, SlotId slotId) {
        return new Key(Checks.notNull("tenantId", tenantId), Checks.notNull("slotId", slotId));
    }

    private record Key(TenantId tenantId, SlotId slotId) {
    }

    /** One slot's state; only touched inside its map entry's compute. */
    private static final class Gate {
        int capacity;
        Instant keepUntil;
        final LinkedHashMap<StudentId, GateHolder> holders = new LinkedHashMap<>();

        Gate(int capacity, Instant keepUntil) {
            this.capacity = capacity;
            this.keepUntil = keepUntil;
        }

        boolean gone(Clock clock) {
            return keepUntil != null && !clock.instant().isBefore(keepUntil);
        }

        void reclaim(Instant now) {
            holders.values().removeIf(h -> !h.liveAt(now));
        }
    }
}
