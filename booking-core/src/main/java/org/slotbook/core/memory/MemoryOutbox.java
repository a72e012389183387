package org.slotbook.core.memory;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;
import org.slotbook.core.BookingId;
import org.slotbook.core.TenantId;
import org.slotbook.core.internal.Checks;
import org.slotbook.core.outbox.OutboxEvent;
import org.slotbook.core.outbox.OutboxStats;
import org.slotbook.core.spi.BookingEvent;
import org.slotbook.core.spi.OutboxStore;

/**
 * The in-memory store's outbox: per tenant, the events in the order its decisions committed them (the
 * store appends them under the tenant's lock, so ids are given in commit order), the relay's lease, and
 * the consumers' cursors. Each tenant's outbox is guarded by its own monitor.
 */
final class MemoryOutbox implements OutboxStore {
    private final Clock clock;
    private final ConcurrentHashMap<TenantId, Log> logs = new ConcurrentHashMap<>();

    MemoryOutbox(Clock clock) {
        this.clock = clock;
    }

    /** One stored event, its delivery state mutable under its tenant's monitor. */
    private static final class Entry {
        final long id;
        final BookingEvent event;
        final Instant writtenAt;
        OutboxEvent.State state = OutboxEvent.State.PENDING;
        int attempts;
        @Nullable Instant nextAttemptAt;
        @Nullable String lastError;
        @Nullable Instant deliveredAt;

        Entry(long id, BookingEvent event, Instant writtenAt) {
            this.id = id;
            this.event = event;
            this.writtenAt = writtenAt;
        }

        OutboxEvent view(TenantId tenant) {
            return new OutboxEvent(tenant, id, event.kind(), event.booking(), writtenAt, state, attempts, nextAttemptAt,
                    lastError, deliveredAt);
        }
    }

    /**
     * One tenant's events: {@code entries.get(i)} has id {@code first + i + 1} (ids are given one after the
     * other; a purged event leaves a null until the purged prefix is cut off). No event before
     * {@code pendingFrom} is PENDING.
     */
    private static final class Log {
        final ArrayList<@Nullable Entry> entries = new ArrayList<>();
        long first;
        int pendingFrom;
        long pending;
        final Map<String, Long> cursors = new HashMap<>();
        long lastId;
        @Nullable String leaseOwner;
        @Nullable Instant leaseUntil;

        @Nullable Entry at(long id) {
            long i = id - first - 1;
            return i < 0 || i >= entries.size() ? null : entries.get((int) i);
        }

        /** {@return the index of the first PENDING event, or the size} (moving {@code pendingFrom} up to it) */
        int firstPending() {
            while (pendingFrom < entries.size()) {
                Entry e = entries.get(pendingFrom);
                if (e != null && e.state == OutboxEvent.State.PENDING) {
                    break;
                }
                pendingFrom++;
            }
            return pendingFrom;
        }

        void deliver(Entry e, Instant at) {
            e.state = OutboxEvent.State.DELIVERED;
            e.deliveredAt = at;
            pending--;
        }
    }

    /** A committed event named as {@link #deliveredInProcess} names it: its booking and kind. */
    private record Key(BookingId bookingId, BookingEvent.Kind kind) {
        static Key of(BookingEvent e) {
            return new Key(e.booking().bookingId(), e.kind());
        }
    }

    private Log log(TenantId tenantId) {
        return logs.computeIfAbsent(Checks.notNull("tenantId", tenantId), t -> new Log());
    }

    private Instant now(@Nullable Instant now) {
        return now != null ? now : clock.instant();
    }

    /** Appends a committed decision's events (called by the store under the tenant's lock). */
    void append(TenantId tenantId, List<BookingEvent> events) {
        if (events.isEmpty()) {
            return;
        }
        Log log = log(tenantId);
        synchronized (log) {
            for (BookingEvent e : events) {
                log.entries.add(new Entry(++log.lastId, e, e.booking().updatedAt()));
                log.pending++;
            }
        }
    }

    @Override
    public List<OutboxEvent> claim(TenantId tenantId, String relay, @Nullable Instant now, Duration lease,
                                   Duration minAge, int limit) {
        Instant at = now(now);
        Log log = log(tenantId);
        synchronized (log) {
            if (log.leaseOwner != null && !log.leaseOwner.equals(relay) && log.leaseUntil != null
                    && log.leaseUntil.isAfter(at)) {
                return List.of();
            }
            List<OutboxEvent> out = new ArrayList<>();
            for (int i = log.firstPending(); i < log.entries.size(); i++) {
                Entry e = log.entries.get(i);
                if (e == null || e.state != OutboxEvent.State.PENDING) {
                    continue;
                }
                if ((e.nextAttemptAt != null && e.nextAttemptAt.isAfter(at))
                        || e.writtenAt.isAfter(at.minus(minAge)) || out.size() >= limit) {
                    break;
                }
                out.add(e.view(tenantId));
            }
            if (!out.isEmpty()) {
                log.leaseOwner = relay;
                log.leaseUntil = at.plus(lease);
            }
            return out;
        }
    }

    @Override
    public void delivered(TenantId tenantId, String by, List<Long> ids, @Nullable Instant now) {
        Instant at = now(now);
        Log log = log(tenantId);
        synchronized (log) {
            for (Long id : ids) {
                Entry e = log.at(id);
                if (e != null && e.state != OutboxEvent.State.DELIVERED) {
                    if (e.state == OutboxEvent.State.PENDING) {
                        log.deliver(e, at);
                    } else {
                        e.state = OutboxEvent.State.DELIVERED;
                        e.deliveredAt = at;
                    }
                }
            }
            release(log, by);
        }
    }

    private static void release(Log log, String relay) {
        if (relay.equals(log.leaseOwner)) {
            log.leaseOwner = null;
            log.leaseUntil = null;
        }
    }

    @Override
    public int deliveredInProcess(TenantId tenantId, String by, List<BookingEvent> events, @Nullable Instant now) {
        Instant at = now(now);
        Log log = log(tenantId);
        Set<Key> named = new HashSet<>();
        for (BookingEvent e : events) {
            named.add(Key.of(e));
        }
        int n = 0;
        synchronized (log) {
            // only PENDING events change, and those are at or after the first pending one
            for (int i = log.firstPending(); i < log.entries.size() && !named.isEmpty(); i++) {
                Entry entry = log.entries.get(i);
                if (entry != null && entry.state == OutboxEvent.State.PENDING && named.remove(Key.of(entry.event))) {
                    log.deliver(entry, at);
                    n++;
                }
            }
        }
        return n;
    }

    @Override
    public OutboxEvent.State failed(TenantId tenantId, String relay, long id, String error, @Nullable Instant now,
                                    Duration retryAfter, int maxAttempts) {
        Instant at = now(now);
        Log log = log(tenantId);
        synchronized (log) {
            release(log, relay);
            Entry e = log.at(id);
            if (e == null || e.state != OutboxEvent.State.PENDING) {
                return e == null ? OutboxEvent.State.PENDING : e.state;
            }
            e.attempts++;
            e.lastError = error;
            if (e.attempts >= maxAttempts) {
                e.state = OutboxEvent.State.DEAD;
                e.nextAttemptAt = null;
                log.pending--;
            } else {
                e.nextAttemptAt = at.plus(retryAfter);
            }
            return e.state;
        }
    }

    @Override
    public boolean redeliver(TenantId tenantId, long id) {
        Log log = log(tenantId);
        synchronized (log) {
            Entry e = log.at(id);
            if (e == null || e.state != OutboxEvent.State.DEAD) {
                return false;
            }
            e.state = OutboxEvent.State.PENDING;
            e.attempts = 0;
            e.nextAttemptAt = null;
            log.pending++;
            log.pendingFrom = Math.min(log.pendingFrom, (int) (id - log.first - 1));
            return true;
        }
    }

    @Override
    public List<OutboxEvent> read(TenantId tenantId, long afterId, int limit) {
        Log log = log(tenantId);
        synchronized (log) {
            List<OutboxEvent> out = new ArrayList<>();
            for (long i = Math.max(0, afterId - log.first); i < log.entries.size() && out.size() < limit; i++) {
                Entry e = log.entries.get((int) i);
                if (e != null) {
                    out.add(e.view(tenantId));
                }
            }
            return out;
        }
    }

    @Override
    public List<OutboxEvent> dead(TenantId tenantId, int limit) {
        Log log = log(tenantId);
        synchronized (log) {
            List<OutboxEvent> out = new ArrayList<>();
            for (Entry e : log.entries) {
                if (e != null && e.state == OutboxEvent.State.DEAD && out.size() < limit) {
                    out.add(e.view(tenantId));
                }
            }
            return out;
        }
    }

    @Override
    public OptionalLong cursor(TenantId tenantId, String consumer) {
        Log log = log(tenantId);
        synchronized (log) {
            Long id = log.cursors.get(consumer);
            return id == null ? OptionalLong.empty() : OptionalLong.of(id);
        }
    }

    @Override
    public void saveCursor(TenantId tenantId, String consumer, long id, @Nullable Instant now) {
        Log log = log(tenantId);
        synchronized (log) {
            log.cursors.put(consumer, id);
        }
    }

    @Override
    public OutboxStats stats(TenantId tenantId, @Nullable Instant now) {
        Instant at = now(now);
        Log log = log(tenantId);
        synchronized (log) {
            long dead = 0;
            for (Entry e : log.entries) {
                if (e != null && e.state == OutboxEvent.State.DEAD) {
                    dead++;
                }
            }
            Instant oldest = null;
            for (int i = log.firstPending(); i < log.entries.size(); i++) {
                Entry e = log.entries.get(i);
                if (e != null && e.state == OutboxEvent.State.PENDING
                        && (oldest == null || e.writtenAt.isBefore(oldest))) {
                    oldest = e.writtenAt;
                }
            }
            Duration age = oldest == null || oldest.isAfter(at) ? Duration.ZERO : Duration.between(oldest, at);
            return new OutboxStats(tenantId, log.pending, dead, oldest, age, log.lastId);
        }
    }

    @Override
    public List<TenantId> backlogTenants(@Nullable TenantId after, int limit) {
        List<TenantId> out = new ArrayList<>();
        for (Map.Entry<TenantId, Log> t : new TreeMap<>(logs).entrySet()) {
            if (after != null && t.getKey().compareTo(after) <= 0) {
                continue;
            }
            synchronized (t.getValue()) {
                if (t.getValue().pending > 0) {
                    out.add(t.getKey());
                }
            }
            if (out.size() >= limit) {
                break;
            }
        }
        return out;
    }

    @Override
    public int purge(TenantId tenantId, Duration olderThan, @Nullable Instant now, int limit) {
        Instant before = now(now).minus(olderThan);
        Log log = log(tenantId);
        synchronized (log) {
            int n = 0;
            for (int i = 0; i < log.entries.size() && n < limit; i++) {
                Entry e = log.entries.get(i);
                if (e != null && e.state == OutboxEvent.State.DELIVERED && e.deliveredAt != null
                        && e.deliveredAt.isBefore(before)) {
                    log.entries.set(i, null);
                    n++;
                }
            }
            // the purged prefix is cut off once it is half the list
            int cut = 0;
            while (cut < log.entries.size() && log.entries.get(cut) == null) {
                cut++;
            }
            if (cut > 0 && cut * 2 >= log.entries.size()) {
                log.entries.subList(0, cut).clear();
                log.first += cut;
                log.pendingFrom = Math.max(0, log.pendingFrom - cut);
            }
            return n;
        }
    }
}
