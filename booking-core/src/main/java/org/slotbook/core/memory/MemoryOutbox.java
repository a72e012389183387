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
import org.slotbook.core.outbox.OutboxEvent.State;
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

    /** What an event's failed deliveries left: how many, when to try again, the last error. */
    private record Retry(int attempts, @Nullable Instant nextAttemptAt, @Nullable String lastError) {
    }

    /** A committed event named as {@link #deliveredInProcess} names it: its booking and kind. */
    private record Key(BookingId bookingId, BookingEvent.Kind kind) {
        static Key of(BookingEvent e) {
            return new Key(e.booking().bookingId(), e.kind());
        }
    }

    /** {@value #CHUNK} events of a tenant side by side: the event, its state and when it was delivered. */
    private static final class Chunk {
        static final int SHIFT = 12;
        static final int CHUNK = 1 << SHIFT;
        final @Nullable BookingEvent[] events = new BookingEvent[CHUNK];
        final State[] states = new State[CHUNK];
        final @Nullable Instant[] deliveredAt = new Instant[CHUNK];
    }

    /**
     * One tenant's events, in chunks: the event at index {@code i} has id {@code first + i + 1} (ids are
     * given one after the other; a purged event is null until its whole chunk is purged and dropped).
     * No event before {@code pendingFrom} is PENDING. The chunks keep the stored events compact and never
     * copy them as the log grows.
     */
    private static final class Log {
        final ArrayList<Chunk> chunks = new ArrayList<>();
        int size;
        long first;
        int pendingFrom;
        long pending;
        long dead;
        final Map<Long, Retry> retries = new HashMap<>();
        final Map<String, Long> cursors = new HashMap<>();
        long lastId;
        @Nullable String leaseOwner;
        @Nullable Instant leaseUntil;

        Chunk chunk(int i) {
            return chunks.get(i >>> Chunk.SHIFT);
        }

        @Nullable BookingEvent event(int i) {
            return chunk(i).events[i & (Chunk.CHUNK - 1)];
        }

        State state(int i) {
            return chunk(i).states[i & (Chunk.CHUNK - 1)];
        }

        /** {@return the index of event {@code id}, or -1 when it is not (or no longer) stored} */
        int index(long id) {
            long i = id - first - 1;
            return i < 0 || i >= size || event((int) i) == null ? -1 : (int) i;
        }

        void add(BookingEvent e) {
            if ((size & (Chunk.CHUNK - 1)) == 0) {
                chunks.add(new Chunk());
            }
            Chunk c = chunk(size);
            c.events[size & (Chunk.CHUNK - 1)] = e;
            c.states[size & (Chunk.CHUNK - 1)] = State.PENDING;
            size++;
            lastId++;
            pending++;
        }

        void set(int i, State state, @Nullable Instant deliveredAt) {
            State before = state(i);
            pending += (state == State.PENDING ? 1 : 0) - (before == State.PENDING ? 1 : 0);
            dead += (state == State.DEAD ? 1 : 0) - (before == State.DEAD ? 1 : 0);
            chunk(i).states[i & (Chunk.CHUNK - 1)] = state;
            chunk(i).deliveredAt[i & (Chunk.CHUNK - 1)] = deliveredAt;
        }

        boolean pending(int i) {
            return event(i) != null && state(i) == State.PENDING;
        }

        /** {@return the index of the first PENDING event, or the size} (moving {@code pendingFrom} up to it) */
        int firstPending() {
            while (pendingFrom < size && !pending(pendingFrom)) {
                pendingFrom++;
            }
            return pendingFrom;
        }

        OutboxEvent view(TenantId tenant, int i) {
            BookingEvent e = event(i);
            long id = first + i + 1;
            Retry r = retries.get(id);
            return new OutboxEvent(tenant, id, e.kind(), e.booking(), e.booking().updatedAt(), state(i),
                    r == null ? 0 : r.attempts(), r == null ? null : r.nextAttemptAt(),
                    r == null ? null : r.lastError(), chunk(i).deliveredAt[i & (Chunk.CHUNK - 1)]);
        }

        /** Drops the leading chunks whose events were all purged. */
        void dropPurged() {
            while (!chunks.isEmpty() && size >= Chunk.CHUNK) {
                for (BookingEvent e : chunks.get(0).events) {
                    if (e != null) {
                        return;
                    }
                }
                chunks.remove(0);
                size -= Chunk.CHUNK;
                first += Chunk.CHUNK;
                pendingFrom = Math.max(0, pendingFrom - Chunk.CHUNK);
            }
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
                log.add(e);
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
            for (int i = log.firstPending(); i < log.size; i++) {
                if (!log.pending(i)) {
                    continue;
                }
                OutboxEvent e = log.view(tenantId, i);
                if ((e.nextAttemptAt() != null && e.nextAttemptAt().isAfter(at))
                        || e.writtenAt().isAfter(at.minus(minAge)) || out.size() >= limit) {
                    break;
                }
                out.add(e);
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
                int i = log.index(id);
                if (i >= 0 && log.state(i) != State.DELIVERED) {
                    log.set(i, State.DELIVERED, at);
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
            for (int i = log.firstPending(); i < log.size && !named.isEmpty(); i++) {
                if (log.pending(i) && named.remove(Key.of(log.event(i)))) {
                    log.set(i, State.DELIVERED, at);
                    n++;
                }
            }
        }
        return n;
    }

    @Override
    public State failed(TenantId tenantId, String relay, long id, String error, @Nullable Instant now,
                        Duration retryAfter, int maxAttempts) {
        Instant at = now(now);
        Log log = log(tenantId);
        synchronized (log) {
            release(log, relay);
            int i = log.index(id);
            if (i < 0 || log.state(i) != State.PENDING) {
                return i < 0 ? State.PENDING : log.state(i);
            }
            Retry before = log.retries.get(id);
            int attempts = (before == null ? 0 : before.attempts()) + 1;
            if (attempts >= maxAttempts) {
                log.set(i, State.DEAD, null);
                log.retries.put(id, new Retry(attempts, null, error));
            } else {
                log.retries.put(id, new Retry(attempts, at.plus(retryAfter), error));
            }
            return log.state(i);
        }
    }

    @Override
    public boolean redeliver(TenantId tenantId, long id) {
        Log log = log(tenantId);
        synchronized (log) {
            int i = log.index(id);
            if (i < 0 || log.state(i) != State.DEAD) {
                return false;
            }
            Retry failed = log.retries.get(id);
            log.set(i, State.PENDING, null);
            log.retries.put(id, new Retry(0, null, failed == null ? null : failed.lastError()));
            log.pendingFrom = Math.min(log.pendingFrom, i);
            return true;
        }
    }

    @Override
    public List<OutboxEvent> read(TenantId tenantId, long afterId, int limit) {
        Log log = log(tenantId);
        synchronized (log) {
            List<OutboxEvent> out = new ArrayList<>();
            for (long i = Math.max(0, afterId - log.first); i < log.size && out.size() < limit; i++) {
                if (log.event((int) i) != null) {
                    out.add(log.view(tenantId, (int) i));
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
            for (int i = 0; i < log.size && out.size() < limit && log.dead > 0; i++) {
                if (log.event(i) != null && log.state(i) == State.DEAD) {
                    out.add(log.view(tenantId, i));
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
            Instant oldest = null;
            for (int i = log.firstPending(); i < log.size; i++) {
                if (log.pending(i)) {
                    Instant written = log.event(i).booking().updatedAt();
                    if (oldest == null || written.isBefore(oldest)) {
                        oldest = written;
                    }
                }
            }
            Duration age = oldest == null || oldest.isAfter(at) ? Duration.ZERO : Duration.between(oldest, at);
            return new OutboxStats(tenantId, log.pending, log.dead, oldest, age, log.lastId);
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
            for (int i = 0; i < log.size && n < limit; i++) {
                Instant delivered = log.chunk(i).deliveredAt[i & (Chunk.CHUNK - 1)];
                if (log.event(i) != null && log.state(i) == State.DELIVERED && delivered != null
                        && delivered.isBefore(before)) {
                    log.chunk(i).events[i & (Chunk.CHUNK - 1)] = null;
                    log.chunk(i).deliveredAt[i & (Chunk.CHUNK - 1)] = null;
                    log.retries.remove(log.first + i + 1);
                    n++;
                }
            }
            log.dropPurged();
            return n;
        }
    }
}
