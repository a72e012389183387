package org.slotbook.core.internal.engine;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;
import org.slotbook.core.Booking;
import org.slotbook.core.BookingStatus;
import org.slotbook.core.HoldPolicy;
import org.slotbook.core.ReconcileReport;
import org.slotbook.core.Slot;
import org.slotbook.core.SlotId;
import org.slotbook.core.SlotStatus;
import org.slotbook.core.TenantId;
import org.slotbook.core.spi.BookingStore;
import org.slotbook.core.spi.GateHolder;
import org.slotbook.core.spi.GateMark;
import org.slotbook.core.spi.GateSync;
import org.slotbook.core.spi.LiveSlot;

/** Converges the gate to the store: per slot, per tenant, and when a slot's gate state went missing. */
public final class Reconciler {
    static final int PAGE = 200;
    private static final Duration GATE_KEY_MARGIN = Duration.ofHours(1);
    private static final long REBUILD_WAIT_MILLIS = 5_000;

    private final BookingStore store;
    private final GateGuard guard;
    private final EngineClock clock;
    private final HoldPolicy policy;
    private final ConcurrentHashMap<String, CompletableFuture<Void>> rebuilding = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, Long> rebuiltAtNanos = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, Long> rebuildStartedAtNanos = new ConcurrentHashMap<>();
    /** When the latest rebuild of any slot began (at first, when this was built): most holds need no more. */
    private final AtomicLong latestRebuildStartNanos = new AtomicLong(System.nanoTime());
    private final ConcurrentHashMap<String, String> resyncing = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, Long> resyncedAtNanos = new ConcurrentHashMap<>();

    public Reconciler(BookingStore store, GateGuard guard, EngineClock clock, HoldPolicy policy) {
        this.store = store;
        this.guard = guard;
        this.clock = clock;
        this.policy = policy;
    }

    /** How long the gate keeps a slot's state: past its end by the gate's TTL and a margin. */
    public Instant keepUntil(Slot slot) {
        return slot.time().end().plus(policy.gateTtl()).plus(GATE_KEY_MARGIN);
    }

    public ReconcileReport reconcile(TenantId tenantId, SlotId slotId) {
        if (!guard.present()) {
            return ReconcileReport.EMPTY;
        }
        // the read is dated on the gate's own clock, before it begins: a release the gate records after
        // this mark may be missing from the read, whatever delays the read and the reconcile meet
        GateMark mark = guard.call("mark", () -> guard.gate().mark(tenantId, slotId), null);
        long readFrom = System.nanoTime();
        Optional<LiveSlot> truth = store.liveSlot(tenantId, slotId, clock.storeNow());
        return truth.map(t -> toGate(tenantId, t, mark, readFrom)).orElse(ReconcileReport.EMPTY);
    }

    public ReconcileReport reconcileAll(TenantId tenantId) {
        if (!guard.present()) {
            return ReconcileReport.EMPTY;
        }
        ReconcileReport report = ReconcileReport.EMPTY;
        SlotId after = null;
        while (true) {
            List<Slot> page = store.slots(tenantId, after, PAGE);
            for (Slot slot : page) {
                if (clock.now().isBefore(keepUntil(slot))) {
                    report = report.plus(reconcile(tenantId, slot.slotId()));
                }
            }
            if (page.size() < PAGE) {
                return report;
            }
            after = page.get(page.size() - 1).slotId();
        }
    }

    private ReconcileReport toGate(TenantId tenantId, LiveSlot truth, @Nullable GateMark mark, long readFromNanos) {
        Slot slot = truth.slot();
        try {
            if (slot.status() == SlotStatus.CANCELLED) {
                guard.gate().close(tenantId, slot.slotId(), keepUntil(slot));
                return new ReconcileReport(1, 0, 0, 0, 0);
            }
            List<GateHolder> holders = new ArrayList<>(truth.live().size());
            for (Booking b : truth.live()) {
                Instant expiresAt = b.status() == BookingStatus.CONFIRMED ? null
                        : b.heldUntil().plus(policy.cacheGrace());
                holders.add(new GateHolder(b.studentId(), b.requestId(), b.createdAt(), expiresAt));
            }
            GateSync sync;
            if (mark != null) {
                sync = guard.gate().reconcileFrom(tenantId, slot.slotId(), slot.capacity(), slot.opensAt(), holders,
                        mark, policy.inFlightGrace(), keepUntil(slot));
            } else {
                // a gate without a clock of its own to mark: the age of the truth, with a millisecond to
                // spare for the gate's coarser clock
                Duration truthAge = Duration.ofNanos(System.nanoTime() - readFromNanos).plusMillis(1);
                sync = guard.gate().reconcile(tenantId, slot.slotId(), slot.capacity(), slot.opensAt(), holders,
                        truthAge, policy.inFlightGrace(), keepUntil(slot));
            }
            return new ReconcileReport(1, sync.added(), sync.removed(), sync.capacityFixed() ? 1 : 0, 0);
        } catch (RuntimeException e) {
            guard.log("reconcile", e);
            return new ReconcileReport(1, 0, 0, 0, 1);
        }
    }

    /** Rebuilds a slot's missing gate state from the store, once however many requests found it missing. */
    void rebuild(TenantId tenantId, SlotId slotId, long askedAt) {
        String key = key(tenantId, slotId);
        Long rebuiltAt = rebuiltAtNanos.get(key);
        if (rebuiltAt != null && rebuiltAt - askedAt > 0) {
            return; // rebuilt after this request asked the gate: just ask again
        }
        CompletableFuture<Void> mine = new CompletableFuture<>();
        CompletableFuture<Void> running = rebuilding.putIfAbsent(key, mine);
        if (running != null) {
            try {
                running.get(REBUILD_WAIT_MILLIS, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (Exception e) {
                // the rebuilding thread reports its own failure; go on
            }
            return;
        }
        try {
            Long since = rebuiltAtNanos.get(key);
            if (since != null && since - askedAt > 0) {
                return; // another thread rebuilt it between our check and our claim
            }
            guard.rebuilds.increment();
            long startedAt = System.nanoTime();
            put(rebuildStartedAtNanos, key, startedAt);
            latestRebuildStartNanos.accumulateAndGet(startedAt, (last, now) -> now - last > 0 ? now : last);
            reconcile(tenantId, slotId);
        } finally {
            put(rebuiltAtNanos, key, System.nanoTime());
            rebuilding.remove(key, mine);
            mine.complete(null);
        }
    }

    /**
     * Reconciles a slot whose gate let a request through that the store found full, unless the slot
     * was rebuilt or reconciled this way since the request asked the gate. While one request does it,
     * the others go on without waiting.
     */
    void resync(TenantId tenantId, SlotId slotId, long askedAt) {
        String key = key(tenantId, slotId);
        if (doneSince(key, askedAt) || rebuilding.containsKey(key) || resyncing.putIfAbsent(key, key) != null) {
            return;
        }
        try {
            if (!doneSince(key, askedAt)) {
                reconcile(tenantId, slotId);
            }
        } finally {
            put(resyncedAtNanos, key, System.nanoTime());
            resyncing.remove(key);
        }
    }

    private boolean doneSince(String key, long askedAt) {
        Long rebuiltAt = rebuiltAtNanos.get(key);
        Long resyncedAt = resyncedAtNanos.get(key);
        return (rebuiltAt != null && rebuiltAt - askedAt > 0) || (resyncedAt != null && resyncedAt - askedAt > 0);
    }

    /**
     * Whether a rebuild of the slot's missing gate state began after {@code askedAt}, or is under way:
     * a hold the gate granted at {@code askedAt} may then be lost with the state, and its commit may
     * have come after the rebuild read the store.
     */
    boolean rebuiltSince(TenantId tenantId, SlotId slotId, long askedAt) {
        // a rebuild's start is recorded before it reads the store, so a hold that committed after that
        // read sees it here; with none since askedAt and none running, no key is built
        if (rebuilding.isEmpty() && latestRebuildStartNanos.get() - askedAt <= 0) {
            return false;
        }
        String key = key(tenantId, slotId);
        Long started = rebuildStartedAtNanos.get(key);
        return (started != null && started - askedAt > 0) || rebuilding.containsKey(key);
    }

    private static String key(TenantId tenantId, SlotId slotId) {
        return tenantId.value() + '\u0000' + slotId.value();
    }

    private static void put(ConcurrentHashMap<String, Long> times, String key, long nanos) {
        if (times.size() > 10_000) {
            times.clear();
        }
        times.put(key, nanos);
    }
}
