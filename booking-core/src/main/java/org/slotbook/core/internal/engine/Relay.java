package org.slotbook.core.internal.engine;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiConsumer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slotbook.core.BookingListener;
import org.slotbook.core.InvalidInputException;
import org.slotbook.core.TenantId;
import org.slotbook.core.internal.Checks;
import org.slotbook.core.outbox.Outbox;
import org.slotbook.core.outbox.OutboxEvent;
import org.slotbook.core.outbox.OutboxMetrics;
import org.slotbook.core.outbox.OutboxSettings;
import org.slotbook.core.outbox.OutboxStats;
import org.slotbook.core.spi.BookingEvent;
import org.slotbook.core.spi.BookingStore;
import org.slotbook.core.spi.OutboxStore;

/**
 * The engine's outbox: records what this node delivered right after its commits, delivers what nobody
 * delivered (claim a tenant, deliver in order, record delivered, back off a failure, dead-letter after
 * the bounded tries), and serves the pull API. See {@link Outbox}.
 */
public final class Relay implements Outbox {
    private static final Logger LOG = LoggerFactory.getLogger(Relay.class);
    /** The most in-process deliveries waiting to be recorded; beyond it the relay delivers them again. */
    private static final int MAX_MARKS = 100_000;
    private static final int TENANT_PAGE = 500;
    private static final long PURGE_EVERY_MILLIS = 3_600_000L;

    private final BookingStore tenants;
    private final @Nullable OutboxStore store;
    private final BookingListener listener;
    private final EngineClock clock;
    private final OutboxSettings settings;
    private volatile BiConsumer<TenantId, List<BookingEvent>> gate = (t, e) -> { };
    private final ConcurrentLinkedQueue<BookingEvent> marks = new ConcurrentLinkedQueue<>();
    private final AtomicInteger markCount = new AtomicInteger();
    private final AtomicLong inProcess = new AtomicLong();
    private final AtomicLong relayed = new AtomicLong();
    private final AtomicLong failures = new AtomicLong();
    private final AtomicLong dead = new AtomicLong();
    private final AtomicLong redelivered = new AtomicLong();
    private volatile long backlog;
    private volatile long oldestMillis;

    public Relay(BookingStore store, BookingListener listener, EngineClock clock, OutboxSettings settings) {
        this.tenants = store;
        this.store = store.outbox();
        this.listener = listener;
        this.clock = clock;
        this.settings = settings;
    }

    /** What the gate does with an event the relay delivers (the engine's settlement of events). */
    public void gate(BiConsumer<TenantId, List<BookingEvent>> settle) {
        this.gate = settle;
    }

    /** The deciding node told the listener these events right after its commit: recorded on the next pass. */
    public void deliveredInProcess(List<BookingEvent> events) {
        if (store == null || events.isEmpty()) {
            return;
        }
        for (BookingEvent e : events) {
            if (markCount.incrementAndGet() > MAX_MARKS) {
                markCount.decrementAndGet();
                return; // the relay delivers it again: at least once
            }
            marks.add(e);
        }
    }

    private OutboxStore store() {
        if (store == null) {
            throw new UnsupportedOperationException("the engine's store keeps no outbox");
        }
        return store;
    }

    @Override
    public List<OutboxEvent> events(TenantId tenantId, long afterId, int limit) {
        Checks.notNull("tenantId", tenantId);
        if (afterId < 0) {
            throw new InvalidInputException("afterId must be 0 or more, got " + afterId);
        }
        Checks.between("limit", limit, 1, 1000);
        return store().read(tenantId, afterId, limit);
    }

    @Override
    public List<OutboxEvent> next(TenantId tenantId, String consumer, int limit) {
        return events(tenantId, cursor(tenantId, consumer), limit);
    }

    @Override
    public long cursor(TenantId tenantId, String consumer) {
        Checks.notNull("tenantId", tenantId);
        return store().cursor(tenantId, consumer(consumer)).orElse(0L);
    }

    @Override
    public void commit(TenantId tenantId, String consumer, long id) {
        Checks.notNull("tenantId", tenantId);
        if (id < 0) {
            throw new InvalidInputException("id must be 0 or more, got " + id);
        }
        store().saveCursor(tenantId, consumer(consumer), id, clock.storeNow());
    }

    private static String consumer(String consumer) {
        Checks.notNull("consumer", consumer);
        if (consumer.isEmpty() || consumer.length() > 64) {
            throw new InvalidInputException("consumer must be 1 to 64 characters, got '" + consumer + "'");
        }
        return consumer;
    }

    /** Records the in-process deliveries waiting, per tenant in one store call each. */
    private void flushMarks() {
        if (marks.isEmpty()) {
            return;
        }
        Map<TenantId, List<BookingEvent>> byTenant = new LinkedHashMap<>();
        BookingEvent e;
        while ((e = marks.poll()) != null) {
            markCount.decrementAndGet();
            byTenant.computeIfAbsent(e.booking().tenantId(), t -> new ArrayList<>()).add(e);
        }
        for (Map.Entry<TenantId, List<BookingEvent>> tenant : byTenant.entrySet()) {
            try {
                store().deliveredInProcess(tenant.getKey(), settings.relayId(), tenant.getValue(), clock.storeNow());
                inProcess.addAndGet(tenant.getValue().size());
            } catch (RuntimeException failed) {
                // not recorded: the relay delivers them again (at least once)
                LOG.warn("could not record {} events of tenant {} delivered; they will be delivered again",
                        tenant.getValue().size(), tenant.getKey(), failed);
            }
        }
    }

    @Override
    public int relay(TenantId tenantId) {
        Checks.notNull("tenantId", tenantId);
        OutboxStore s = store();
        flushMarks();
        int delivered = 0;
        while (true) {
            Instant now = clock.storeNow();
            List<OutboxEvent> batch = s.claim(tenantId, settings.relayId(), now, settings.lease(),
                    settings.fastPathGrace(), settings.batchSize());
            if (batch.isEmpty()) {
                return delivered;
            }
            List<Long> ids = new ArrayList<>(batch.size());
            List<BookingEvent> done = new ArrayList<>(batch.size());
            OutboxEvent failed = null;
            RuntimeException error = null;
            for (OutboxEvent e : batch) {
                try {
                    listener.event(e);
                } catch (RuntimeException thrown) {
                    failed = e;
                    error = thrown;
                    break;
                }
                ids.add(e.id());
                done.add(e.event());
            }
            if (!ids.isEmpty() || failed == null) {
                s.delivered(tenantId, settings.relayId(), ids, now);
                relayed.addAndGet(ids.size());
                delivered += ids.size();
                settleGate(tenantId, done);
            }
            if (failed != null) {
                fail(s, tenantId, failed, error, now);
                return delivered;
            }
            if (batch.size() < settings.batchSize()) {
                return delivered;
            }
        }
    }

    private void fail(OutboxStore s, TenantId tenantId, OutboxEvent event, RuntimeException error, @Nullable Instant now) {
        failures.incrementAndGet();
        String message = error.getClass().getName() + ": " + error.getMessage();
        OutboxEvent.State state = s.failed(tenantId, settings.relayId(), event.id(),
                message.length() > 500 ? message.substring(0, 500) : message, now,
                settings.backoff(event.attempts() + 1), settings.maxAttempts());
        if (state == OutboxEvent.State.DEAD) {
            dead.incrementAndGet();
            LOG.error("BookingListener failed {} times on event {} ({}) of tenant {}: set aside as a dead letter",
                    event.attempts() + 1, event.id(), event.kind(), tenantId, error);
        } else {
            LOG.warn("BookingListener threw on event {} ({}) of tenant {}, try {}; tried again later", event.id(),
                    event.kind(), tenantId, event.attempts() + 1, error);
        }
    }

    private void settleGate(TenantId tenantId, List<BookingEvent> done) {
        if (done.isEmpty()) {
            return;
        }
        try {
            gate.accept(tenantId, done);
        } catch (RuntimeException e) {
            LOG.warn("the gate could not follow {} relayed events of tenant {}; reconciliation repairs it",
                    done.size(), tenantId, e);
        }
    }

    @Override
    public int relayAll() {
        if (store == null) {
            return 0;
        }
        flushMarks();
        int delivered = 0;
        long pending = 0;
        long oldest = 0;
        TenantId after = null;
        while (true) {
            List<TenantId> page = store.backlogTenants(after, TENANT_PAGE);
            for (TenantId tenant : page) {
                try {
                    delivered += relay(tenant);
                    OutboxStats stats = store.stats(tenant, clock.storeNow());
                    pending += stats.pending();
                    oldest = Math.max(oldest, stats.oldestPendingAge().toMillis());
                } catch (RuntimeException e) {
                    LOG.warn("the outbox relay could not deliver tenant {}; the next pass tries again", tenant, e);
                }
            }
            if (page.size() < TENANT_PAGE) {
                break;
            }
            after = page.get(page.size() - 1);
        }
        backlog = pending;
        oldestMillis = oldest;
        return delivered;
    }

    @Override
    public AutoCloseable start(ScheduledExecutorService scheduler, Duration every) {
        Checks.notNull("scheduler", scheduler);
        Checks.notNull("every", every);
        if (every.isNegative() || every.isZero()) {
            throw new InvalidInputException("every must be positive, got " + every);
        }
        AtomicLong lastPurge = new AtomicLong(System.currentTimeMillis());
        ScheduledFuture<?> task = scheduler.scheduleWithFixedDelay(() -> {
            try {
                relayAll();
                if (System.currentTimeMillis() - lastPurge.get() > PURGE_EVERY_MILLIS) {
                    lastPurge.set(System.currentTimeMillis());
                    purgeAll();
                }
            } catch (RuntimeException e) {
                LOG.warn("outbox relay pass failed; the next one tries again", e);
            }
        }, 0, every.toMillis(), TimeUnit.MILLISECONDS);
        return () -> task.cancel(false);
    }

    private void purgeAll() {
        TenantId after = null;
        while (true) {
            List<TenantId> page = tenants.tenants(after, TENANT_PAGE);
            for (TenantId t : page) {
                purge(t);
            }
            if (page.size() < TENANT_PAGE) {
                return;
            }
            after = page.get(page.size() - 1);
        }
    }

    @Override
    public List<OutboxEvent> deadLetters(TenantId tenantId, int limit) {
        Checks.notNull("tenantId", tenantId);
        Checks.between("limit", limit, 1, 1000);
        return store().dead(tenantId, limit);
    }

    @Override
    public boolean redeliver(TenantId tenantId, long id) {
        Checks.notNull("tenantId", tenantId);
        boolean was = store().redeliver(tenantId, id);
        if (was) {
            redelivered.incrementAndGet();
        }
        return was;
    }

    @Override
    public OutboxStats stats(TenantId tenantId) {
        Checks.notNull("tenantId", tenantId);
        return store().stats(tenantId, clock.storeNow());
    }

    @Override
    public int purge(TenantId tenantId) {
        Checks.notNull("tenantId", tenantId);
        if (store == null) {
            return 0;
        }
        int total = 0;
        while (true) {
            int n = store().purge(tenantId, settings.retention(), clock.storeNow(), 1000);
            total += n;
            if (n < 1000) {
                return total;
            }
        }
    }

    @Override
    public OutboxMetrics metrics() {
        return new OutboxMetrics(inProcess.get(), relayed.get(), failures.get(), dead.get(), redelivered.get(),
                backlog, oldestMillis);
    }

    @Override
    public OutboxSettings settings() {
        return settings;
    }
}
