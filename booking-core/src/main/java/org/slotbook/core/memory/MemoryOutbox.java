package org.slotbook.core.memory;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;
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

    private static final class Log {
        final TreeMap<Long, Entry> entries = new TreeMap<>();
        final Map<String, Entry> byKey = new HashMap<>();
        final Map<String, Long> cursors = new HashMap<>();
        long lastId;
        @Nullable String leaseOwner;
        @Nullable Instant leaseUntil;
    }

    private Log log(TenantId tenantId) {
        return logs.computeIfAbsent(Checks.notNull("tenantId", tenantId), t -> new Log());
    }

    private Instant now(@Nullable Instant now) {
        return now != null ? now : clock.instant();
    }

    private static String key(BookingEvent e) {
        return e.booking().bookingId().value() + '\u001f' + e.kind();
    }

    /** Appends a committed decision's events (called by the store under the tenant's lock). */
    void append(TenantId tenantId, List<BookingEvent> events) {
        if (events.isEmpty()) {
            return;
        }
        Log log = log(tenantId);
        synchronized (log) {
            for (BookingEvent e : events) {
                Entry entry = new Entry(++log.lastId, e, e.booking().updatedAt());
                log.entries.put(entry.id, entry);
                log.byKey.put(key(e), entry);
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
            for (Entry e : log.entries.values()) {
                if (e.state != OutboxEvent.State.PENDING) {
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
                Entry e = log.entries.get(id);
                if (e != null && e.state != OutboxEvent.State.DELIVERED) {
                    e.state = OutboxEvent.State.DELIVERED;
                    e.deliveredAt = at;
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
        int n = 0;
        synchronized (log) {
            for (BookingEvent e : events) {
                Entry entry = log.byKey.get(key(e));
                if (entry != null && entry.state == OutboxEvent.State.PENDING) {
                    entry.state = OutboxEvent.State.DELIVERED;
                    entry.deliveredAt = at;
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
            Entry e = log.entries.get(id);
            if (e == null || e.state != OutboxEvent.State.PENDING) {
                return e == null ? OutboxEvent.State.PENDING : e.state;
            }
            e.attempts++;
            e.lastError = error;
            if (e.attempts >= maxAttempts) {
                e.state = OutboxEvent.State.DEAD;
                e.nextAttemptAt = null;
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
            Entry e = log.entries.get(id);
            if (e == null || e.state != OutboxEvent.State.DEAD) {
                return false;
            }
            e.state = OutboxEvent.State.PENDING;
            e.attempts = 0;
            e.nextAttemptAt = null;
            return true;
        }
    }

    @Override
    public List<OutboxEvent> read(TenantId tenantId, long afterId, int limit) {
        Log log = log(tenantId);
        synchronized (log) {
            List<OutboxEvent> out = new ArrayList<>();
            for (Entry e : log.entries.tailMap(afterId, false).values()) {
                if (out.size() >= limit) {
                    break;
                }
                out.add(e.view(tenantId));
            }
            return out;
        }
    }

    @Override
    public List<OutboxEvent> dead(TenantId tenantId, int limit) {
        Log log = log(tenantId);
        synchronized (log) {
            List<OutboxEvent> out = new ArrayList<>();
            for (Entry e : log.entries.values()) {
                if (e.state == OutboxEvent.State.DEAD && out.size() < limit) {
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
            long pending = 0;
            long dead = 0;
            Instant oldest = null;
            for (Entry e : log.entries.values()) {
                if (e.state == OutboxEvent.State.PENDING) {
                    pending++;
                    if (oldest == null || e.writtenAt.isBefore(oldest)) {
                        oldest = e.writtenAt;
                    }
                } else if (e.state == OutboxEvent.State.DEAD) {
                    dead++;
                }
            }
            Duration age = oldest == null || oldest.isAfter(at) ? Duration.ZERO : Duration.between(oldest, at);
            return new OutboxStats(tenantId, pending, dead, oldest, age, log.lastId);
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
                boolean pending = t.getValue().entries.values().stream()
                        .anyMatch(e -> e.state == OutboxEvent.State.PENDING);
                if (pending) {
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
            var it = log.entries.values().iterator();
            while (it.hasNext() && n < limit) {
                Entry e = it.next();
                if (e.state == OutboxEvent.State.DELIVERED && e.deliveredAt != null && e.deliveredAt.isBefore(before)) {
                    it.remove();
                    log.byKey.remove(key(e.event));
                    n++;
                }
            }
            return n;
        }
    }
}
