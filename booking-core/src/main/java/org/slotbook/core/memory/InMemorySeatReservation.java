package org.slotbook.core.memory;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;
import org.slotbook.core.RequestId;
import org.slotbook.core.SlotId;
import org.slotbook.core.SlotSpec;
import org.slotbook.core.StudentId;
import org.slotbook.core.TenantId;
import org.slotbook.core.internal.Checks;
import org.slotbook.core.spi.GateDecision;
import org.slotbook.core.spi.GateHolder;
import org.slotbook.core.spi.GateMark;
import org.slotbook.core.spi.GateSync;
import org.slotbook.core.spi.GateView;
import org.slotbook.core.spi.SeatReservation;

/**
 * A gate kept in memory, with the semantics of the Redis gate: per (tenant, slot) a capacity,
 * holders keyed by student (each with the request id that put it there and an expiry, none once
 * pinned by a confirm), the request ids whose holders left so far (tombstones: released, expired or
 * replaced; a retry of one on a full slot answers {@code REPLAY}) and a closed marker. Expired
 * holders ({@code expiresAt <= now}) are reclaimed by the next {@link #tryHold} of the slot;
 * remaining seats are always {@code capacity - live holders}.
 *
 * <p>All time is the gate's own clock (given to {@link #create(Clock)}; the system UTC clock by
 * default), read at millisecond precision as Redis' {@code TIME} is used. Whether a request was
 * released before the ledger read a reconcile brings is also answered in real time, so that a test
 * clock that stands still does not make every release look recent; with a {@link #mark} it is answered
 * exactly, by the gate's own count of its steps. Each operation on a slot is
 * atomic (it runs under that slot's entry lock). Whole slots are dropped once their
 * {@code keepUntil} has passed on that clock, as Redis would expire their keys; a null
 * {@code keepUntil} keeps a slot until it is closed or evicted.
 *
 * <p>For tests it can simulate faults: {@link #setAvailable(boolean)}, {@link #evict} and
 * {@link #clearAll()}.
 */
public final class InMemorySeatReservation implements SeatReservation {
    private final ConcurrentHashMap<Key, Gate> gates = new ConcurrentHashMap<>();
    /** Request ids released while their slot had no state: a rebuild keeps them out. */
    private final ConcurrentHashMap<Key, Map<RequestId, Released>> releasedWithoutState = new ConcurrentHashMap<>();
    private final Clock clock;
    /** The gate's own sequence of releases and marks: orders a release against a ledger read exactly. */
    private final AtomicLong steps = new AtomicLong();
    private volatile boolean available = true;

    private InMemorySeatReservation(Clock clock) {
        this.clock = clock;
    }

    /** {@return a gate on the system UTC clock} */
    public static InMemorySeatReservation create() {
        return new InMemorySeatReservation(Clock.systemUTC());
    }

    /**
     * {@return a gate whose holds and slots expire by {@code clock}}
     *
     * @param clock the clock that decides every deadline
     */
    public static InMemorySeatReservation create(Clock clock) {
        return new InMemorySeatReservation(Checks.notNull("clock", clock));
    }

    @Override
    public GateDecision tryHold(TenantId tenantId, SlotId slotId, StudentId studentId, RequestId requestId,
                                Duration ttl) {
        Key key = key(tenantId, slotId);
        Checks.notNull("studentId", studentId);
        Checks.notNull("requestId", requestId);
        long ttlMillis = ttlMillis(ttl);
        if (!available) {
            return GateDecision.UNAVAILABLE;
        }
        GateDecision[] decision = {GateDecision.MISSING};
        gates.computeIfPresent(key, (k, gate) -> {
            Instant now = now();
            if (gate.gone(now)) {
                return null;
            }
            if (gate.closed) {
                decision[0] = GateDecision.CLOSED;
                return gate;
            }
            if (gate.opensAt != null && now.plus(OPENING_TOLERANCE).isBefore(gate.opensAt)) {
                decision[0] = GateDecision.notOpen(gate.opensAt);
                return gate;
            }
            gate.reclaim(now, this::released);
            GateHolder existing = gate.holders.get(studentId);
            if (existing != null) {
                decision[0] = GateDecision.duplicate(existing.requestId());
            } else if (gate.ended.contains(requestId)) {
                decision[0] = GateDecision.REPLAY;
            } else if (gate.holders.size() >= gate.capacity) {
                // a student whose booking here ended may hold a newer one whose seat is on its way over
                // (a transfer after this release): the ledger answers such a student
                decision[0] = gate.released.containsKey(requestId) || gate.endedStudents.contains(studentId)
                        ? GateDecision.REPLAY : GateDecision.FULL;
            } else {
                gate.take(new GateHolder(studentId, requestId, now, now.plusMillis(ttlMillis)), steps.incrementAndGet());
                decision[0] = GateDecision.HELD;
            }
            return gate;
        });
        return decision[0];
    }

    @Override
    public void confirm(TenantId tenantId, SlotId slotId, StudentId studentId, RequestId requestId) {
        Key key = key(tenantId, slotId);
        Checks.notNull("studentId", studentId);
        Checks.notNull("requestId", requestId);
        checkAvailable();
        gates.computeIfPresent(key, (k, gate) -> {
            Instant now = now();
            if (gate.gone(now)) {
                return null;
            }
            gate.holders.computeIfPresent(studentId, (s, h) -> h.requestId().equals(requestId) && h.liveAt(now)
                    ? new GateHolder(h.studentId(), h.requestId(), h.takenAt(), null) : h);
            return gate;
        });
    }

    @Override
    public boolean release(TenantId tenantId, SlotId slotId, StudentId studentId, RequestId requestId) {
        return release(tenantId, slotId, studentId, requestId, false);
    }

    @Override
    public boolean releaseEnded(TenantId tenantId, SlotId slotId, StudentId studentId, RequestId requestId) {
        return release(tenantId, slotId, studentId, requestId, true);
    }

    private boolean release(TenantId tenantId, SlotId slotId, StudentId studentId, RequestId requestId,
                            boolean ended) {
        Key key = key(tenantId, slotId);
        Checks.notNull("studentId", studentId);
        Checks.notNull("requestId", requestId);
        checkAvailable();
        boolean[] removed = {false};
        boolean[] stateless = {true};
        gates.computeIfPresent(key, (k, gate) -> {
            if (gate.gone(now())) {
                return null;
            }
            stateless[0] = false;
            if (gate.closed) {
                return gate;
            }
            gate.released.put(requestId, released());
            if (ended) {
                gate.ended.add(requestId);
                gate.endedStudents.add(studentId);
            }
            GateHolder h = gate.holders.get(studentId);
            if (h != null && h.requestId().equals(requestId)) {
                gate.holders.remove(studentId);
                // another delivery or request of the student may be granted meanwhile, its seat taken again
                // only after this: on a full slot the ledger answers the student
                gate.endedStudents.add(studentId);
                removed[0] = true;
            }
            return gate;
        });
        if (stateless[0]) {
            // no state right now: remember the release, so a rebuild from an earlier read never re-adds it
            releasedWithoutState.computeIfAbsent(key, k -> new ConcurrentHashMap<>())
                    .put(requestId, released());
        }
        return removed[0];
    }

    @Override
    public GateDecision transfer(TenantId tenantId, SlotId slotId, StudentId studentId, RequestId from, RequestId to,
                                 Duration ttl) {
        Key key = key(tenantId, slotId);
        Checks.notNull("studentId", studentId);
        Checks.notNull("from", from);
        Checks.notNull("to", to);
        long ttlMillis = ttlMillis(ttl);
        checkAvailable();
        GateDecision[] decision = {GateDecision.MISSING};
        gates.computeIfPresent(key, (k, gate) -> {
            Instant now = now();
            if (gate.gone(now)) {
                return null;
            }
            if (gate.closed) {
                decision[0] = GateDecision.CLOSED;
                return gate;
            }
            gate.released.put(from, released());
            gate.reclaim(now, this::released);
            GateHolder h = gate.holders.get(studentId);
            if (gate.ended.contains(to)) {
                // the booking of `to` ended before this transfer came: no seat for it; a holder under `from`
                // is left to its own request
                decision[0] = GateDecision.REPLAY;
            } else if (h != null && h.requestId().equals(to)) {
                decision[0] = GateDecision.HELD;
            } else if (h != null && !h.requestId().equals(from)) {
                decision[0] = GateDecision.duplicate(h.requestId());
            } else if (h == null && gate.holders.size() >= gate.capacity) {
                // the ledger's live booking has no seat here until a reconcile: the ledger answers the student
                gate.endedStudents.add(studentId);
                decision[0] = GateDecision.FULL;
            } else {
                gate.take(new GateHolder(studentId, to, now, now.plusMillis(ttlMillis)), steps.incrementAndGet());
                decision[0] = GateDecision.HELD;
            }
            return gate;
        });
        if (decision[0] == GateDecision.MISSING) {
            releasedWithoutState.computeIfAbsent(key, k -> new ConcurrentHashMap<>()).put(from, released());
        }
        return decision[0];
    }

    @Override
    public boolean withdraw(TenantId tenantId, SlotId slotId, StudentId studentId, RequestId requestId) {
        Key key = key(tenantId, slotId);
        Checks.notNull("studentId", studentId);
        Checks.notNull("requestId", requestId);
        checkAvailable();
        boolean[] removed = {false};
        gates.computeIfPresent(key, (k, gate) -> {
            if (gate.gone(now())) {
                return null;
            }
            GateHolder h = gate.holders.get(studentId);
            if (!gate.closed && h != null && h.requestId().equals(requestId)) {
                gate.holders.remove(studentId);
                removed[0] = true;
            }
            return gate;
        });
        return removed[0];
    }

    @Override
    public GateMark mark(TenantId tenantId, SlotId slotId) {
        key(tenantId, slotId);
        checkAvailable();
        return new GateMark(steps.incrementAndGet());
    }

    @Override
    public GateSync reconcileFrom(TenantId tenantId, SlotId slotId, int capacity, @Nullable Instant opensAt,
                                  Collection<GateHolder> truth, GateMark readFrom, Duration inFlightGrace,
                                  @Nullable Instant keepUntil) {
        Checks.notNull("readFrom", readFrom);
        return reconcile(tenantId, slotId, capacity, opensAt, truth, inFlightGrace, keepUntil,
                r -> r.step() < readFrom.position(), readFrom.position());
    }

    @Override
    public void initialize(TenantId tenantId, SlotId slotId, int capacity, @Nullable Instant keepUntil) {
        initialize(tenantId, slotId, capacity, null, keepUntil);
    }

    @Override
    public void initialize(TenantId tenantId, SlotId slotId, int capacity, @Nullable Instant opensAt,
                           @Nullable Instant keepUntil) {
        Key key = key(tenantId, slotId);
        Checks.between("capacity", capacity, 0, SlotSpec.MAX_CAPACITY);
        checkAvailable();
        gates.compute(key, (k, gate) -> {
            if (gate == null || gate.gone(now())) {
                Gate created = new Gate(capacity, keepUntil);
                created.opensAt = opensAt;
                return created;
            }
            return gate;
        });
    }

    @Override
    public GateSync reconcile(TenantId tenantId, SlotId slotId, int capacity, Collection<GateHolder> truth,
                              Duration inFlightGrace, @Nullable Instant keepUntil) {
        return reconcile(tenantId, slotId, capacity, null, truth, null, inFlightGrace, keepUntil);
    }

    @Override
    public GateSync reconcile(TenantId tenantId, SlotId slotId, int capacity, @Nullable Instant opensAt,
                              Collection<GateHolder> truth, @Nullable Duration truthAge, Duration inFlightGrace,
                              @Nullable Instant keepUntil) {
        if (truthAge != null) {
            Checks.notNegative("truthAge", truthAge);
        }
        Instant now = now();
        long nowNanos = System.nanoTime();
        return reconcile(tenantId, slotId, capacity, opensAt, truth, inFlightGrace, keepUntil,
                r -> truthAge != null && r.before(now, nowNanos, truthAge), Long.MAX_VALUE);
    }

    /**
     * Converges one slot to {@code truth}; {@code beforeRead} tells a release that came before the
     * truth was read (whose request the truth names only when the ledger still holds its booking); a
     * holder taken at or after the step {@code readFrom} is one the read could not know, never removed.
     */
    private GateSync reconcile(TenantId tenantId, SlotId slotId, int capacity, @Nullable Instant opensAt,
                               Collection<GateHolder> truth, Duration inFlightGrace, @Nullable Instant keepUntil,
                               java.util.function.Predicate<Released> beforeRead, long readFrom) {
        Key key = key(tenantId, slotId);
        Checks.between("capacity", capacity, 0, SlotSpec.MAX_CAPACITY);
        Checks.notNull("truth", truth);
        Checks.notNegative("inFlightGrace", inFlightGrace);
        Map<StudentId, GateHolder> named = new HashMap<>();
        for (GateHolder h : truth) {
            Checks.notNull("truth holder", h);
            named.put(h.studentId(), h);
        }
        checkAvailable();
        GateSync[] sync = {new GateSync(0, 0, false)};
        gates.compute(key, (k, existing) -> {
            Instant now = now();
            Gate gate = existing == null || existing.gone(now) ? null : existing;
            if (gate != null && gate.closed) {
                return gate; // a called-off slot is never resurrected
            }
            boolean capacityFixed = gate == null || gate.capacity != capacity
                    || !java.util.Objects.equals(gate.opensAt, opensAt);
            if (gate == null) {
                gate = new Gate(capacity, keepUntil);
                Map<RequestId, Released> released = releasedWithoutState.remove(key);
                if (released != null) {
                    gate.released.putAll(released);
                }
            }
            gate.capacity = capacity;
            gate.opensAt = opensAt;
            gate.keepUntil = keepUntil;
            Set<RequestId> namedRequests = new HashSet<>();
            for (GateHolder t : named.values()) {
                namedRequests.add(t.requestId());
            }
            Released stamp = released();
            // a holder that leaves is remembered (a retry of it is a replay), unless the truth names it
            for (Iterator<GateHolder> it = gate.holders.values().iterator(); it.hasNext(); ) {
                GateHolder h = it.next();
                if (!h.liveAt(now)) {
                    it.remove();
                    if (!namedRequests.contains(h.requestId())) {
                        gate.released.put(h.requestId(), stamp);
                    }
                }
            }
            Instant removeTakenBefore = now.minus(inFlightGrace);
            int removed = 0;
            for (Iterator<GateHolder> it = gate.holders.values().iterator(); it.hasNext(); ) {
                GateHolder h = it.next();
                GateHolder t = named.get(h.studentId());
                boolean known = t != null && t.requestId().equals(h.requestId());
                if (!known && h.takenAt().isBefore(removeTakenBefore)
                        && gate.takenAtStep.getOrDefault(h.studentId(), 0L) < readFrom) {
                    it.remove();
                    if (!namedRequests.contains(h.requestId())) {
                        gate.released.put(h.requestId(), stamp);
                    }
                    removed++;
                }
            }
            int added = 0;
            for (GateHolder t : named.values()) {
                GateHolder h = gate.holders.get(t.studentId());
                if (gate.ended.contains(t.requestId())) {
                    continue; // its booking ended after the ledger read
                }
                Released releasedAt = gate.released.get(t.requestId());
                if (releasedAt != null && (h == null || !h.requestId().equals(t.requestId()))
                        && !beforeRead.test(releasedAt)) {
                    continue; // released after the ledger read began (unless the request holds again since)
                }
                if (h == null) {
                    if (t.liveAt(now)) {
                        gate.take(t, 0L);
                        added++;
                    }
                } else if (h.requestId().equals(t.requestId()) && !h.pinned()) {
                    // pin a confirmed one, extend an expiry, never shorten it
                    Instant expiresAt = t.pinned() ? null
                            : t.expiresAt().isAfter(h.expiresAt()) ? t.expiresAt() : h.expiresAt();
                    gate.holders.put(h.studentId(), new GateHolder(h.studentId(), h.requestId(), h.takenAt(),
                            expiresAt));
                }
                // a holder of the student under another request is young (older ones went above): left alone
            }
            sync[0] = new GateSync(added, removed, capacityFixed);
            return gate;
        });
        return sync[0];
    }

    @Override
    public void close(TenantId tenantId, SlotId slotId, @Nullable Instant keepUntil) {
        Key key = key(tenantId, slotId);
        checkAvailable();
        gates.compute(key, (k, gate) -> Gate.closed(keepUntil));
    }

    @Override
    public Optional<GateView> inspect(TenantId tenantId, SlotId slotId) {
        Key key = key(tenantId, slotId);
        checkAvailable();
        GateView[] view = new GateView[1];
        gates.computeIfPresent(key, (k, gate) -> {
            Instant now = now();
            if (gate.gone(now)) {
                return null;
            }
            if (gate.closed) {
                return gate;
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
     *
     * @param available false: the gate is down; true: it is back
     */
    public void setAvailable(boolean available) {
        this.available = available;
    }

    /**
     * Drops one slot's state, as a cache eviction would; the next {@link #tryHold} answers {@code MISSING}.
     *
     * @param tenantId the tenant whose data the call reads or changes
     * @param slotId the slot, by its id within the tenant
     */
    public void evict(TenantId tenantId, SlotId slotId) {
        gates.remove(key(tenantId, slotId));
    }

    /** Drops every slot's state, as a restart of an empty server would. */
    public void clearAll() {
        gates.clear();
        releasedWithoutState.clear();
    }

    @Override
    public String toString() {
        return "InMemorySeatReservation[slots=" + gates.size() + (available ? "" : ", unavailable") + "]";
    }

    private Instant now() {
        return clock.instant().truncatedTo(ChronoUnit.MILLIS);
    }

    /** The ttl in whole milliseconds, a sub-millisecond rest rounded up (never cutting a hold short). */
    static long ttlMillis(Duration ttl) {
        Checks.positive("ttl", ttl);
        long millis = ttl.toMillis();
        return ttl.minusMillis(millis).isZero() ? millis : millis + 1;
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

    /** A release (or a holder's leaving) as recorded now. */
    private Released released() {
        return new Released(now(), System.nanoTime(), steps.incrementAndGet());
    }

    /** When a request was released: on the gate's clock, in real time, and in the gate's own steps. */
    private record Released(Instant at, long nanos, long step) {
        /**
         * Whether the release came before a read that began {@code age} ago: by the gate's clock, or in
         * real time (a test clock that stands still makes every release look recent on its own).
         */
        boolean before(Instant now, long nowNanos, Duration age) {
            return at.isBefore(now.minus(age)) || nanos - (nowNanos - age.toNanos()) < 0;
        }
    }

    /** One slot's state; only touched inside its map entry's compute. */
    private static final class Gate {
        int capacity;
        Instant opensAt;
        Instant keepUntil;
        boolean closed;
        final LinkedHashMap<StudentId, GateHolder> holders = new LinkedHashMap<>();
        final Map<RequestId, Released> released = new HashMap<>();
        /** Requests whose booking ended (cancelled or expired): never counted again. */
        final Set<RequestId> ended = new HashSet<>();
        /**
         * Students whose holder a release took (or whose booking ended, or found no seat in a transfer): on
         * a full slot the ledger answers them.
         */
        final Set<StudentId> endedStudents = new HashSet<>();
        /** The step at which each holder was taken (by a hold or a transfer; 0 when added by a reconcile). */
        final Map<StudentId, Long> takenAtStep = new HashMap<>();

        Gate(int capacity, Instant keepUntil) {
            this.capacity = capacity;
            this.keepUntil = keepUntil;
        }

        static Gate closed(Instant keepUntil) {
            Gate gate = new Gate(0, keepUntil);
            gate.closed = true;
            return gate;
        }

        boolean gone(Instant now) {
            return keepUntil != null && !now.isBefore(keepUntil);
        }

        void take(GateHolder holder, long step) {
            holders.put(holder.studentId(), holder);
            takenAtStep.put(holder.studentId(), step);
        }

        /** Drops the expired holders, remembering their requests as released (a retry of one is a replay). */
        void reclaim(Instant now, java.util.function.Supplier<Released> stamp) {
            for (Iterator<GateHolder> it = holders.values().iterator(); it.hasNext(); ) {
                GateHolder h = it.next();
                if (!h.liveAt(now)) {
                    it.remove();
                    released.put(h.requestId(), stamp.get());
                }
            }
        }
    }
}
