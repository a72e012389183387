package org.slotbook.core.shard;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slotbook.core.Availability;
import org.slotbook.core.BookedSession;
import org.slotbook.core.Booking;
import org.slotbook.core.BookingId;
import org.slotbook.core.CancelResult;
import org.slotbook.core.CancelSlotResult;
import org.slotbook.core.CheckInResult;
import org.slotbook.core.ConfirmResult;
import org.slotbook.core.CreditEntry;
import org.slotbook.core.HoldResult;
import org.slotbook.core.InvalidInputException;
import org.slotbook.core.LeaveResult;
import org.slotbook.core.LessonPackage;
import org.slotbook.core.PackageGrant;
import org.slotbook.core.PackageId;
import org.slotbook.core.RequestId;
import org.slotbook.core.ResourceRef;
import org.slotbook.core.ScheduleResult;
import org.slotbook.core.SeriesCancelled;
import org.slotbook.core.SeriesId;
import org.slotbook.core.SeriesMode;
import org.slotbook.core.SeriesResult;
import org.slotbook.core.Slot;
import org.slotbook.core.SlotId;
import org.slotbook.core.StoreUnreachableException;
import org.slotbook.core.StudentId;
import org.slotbook.core.TenantId;
import org.slotbook.core.TimeRange;
import org.slotbook.core.WaitlistEntry;
import org.slotbook.core.internal.Checks;
import org.slotbook.core.spi.BookingStore;
import org.slotbook.core.spi.OutboxStore;
import org.slotbook.core.spi.HoldCommand;
import org.slotbook.core.spi.LiveSlot;
import org.slotbook.core.spi.StoreOutcome;
import org.slotbook.core.spi.Terms;

/**
 * A {@link BookingStore} over several stores (shards, each its own database server) that sends every
 * call to the shard holding the call's tenant. Every key begins with the tenant and no call spans
 * tenants, so a tenant lives whole on one shard and each guarantee holds there exactly as on a single
 * database; the router adds no state, no lock and no round trip.
 *
 * <pre>{@code
 * BookingStore store = TenantRoutedStore.builder()
 *     .shard("pg-a", JdbcStore.create(dataSourceA))
 *     .shard("pg-b", JdbcStore.create(dataSourceB))
 *     // optional: the host's own mapping; default: rendezvous hashing over the shard names
 *     .mapping(ShardMapping.table(tenantDirectory, ShardMapping.rendezvous(List.of("pg-a", "pg-b"))))
 *     .build();
 * BookingEngine engine = BookingEngine.builder().store(store).reservation(gate).build();
 * }</pre>
 *
 * <p>A shard that is down fails the calls of its own tenants with
 * {@link org.slotbook.core.BookingStoreException} (as that store reports it) and nothing else: the
 * other shards' tenants are served as usual. Upkeep runs shard by shard ({@link ShardedUpkeep}), so
 * one shard down never stops the sweep or the reconciliation of the others.
 *
 * <p><b>Fail-fast per shard.</b> Worker threads are shared by every tenant, so a shard that is down
 * must not hold them: once a call to a shard fails with {@link StoreUnreachableException} (no
 * connection within its pool's timeout), further calls to that shard fail at once with a
 * {@link StoreUnreachableException} of their own (retryable; nothing was sent) until a trial call gets
 * through: after a back-off ({@link Builder#shardBackoff}, default 1 s, doubled after each failed
 * trial up to 16 times), one call goes to the shard while the others keep failing at once; its answer
 * closes the circuit. So a call to a dead shard waits at most its pool's connection timeout, and the
 * threads go on serving the other shards' tenants. A store that never throws
 * {@link StoreUnreachableException} is never failed fast.
 *
 * <p>The one call that spans tenants, {@link #tenants}, merges the shards' pages in tenant id order
 * and keeps, from each shard, only the tenants the mapping puts there (rows left behind on a former
 * shard after a move are not listed twice); it fails when any shard fails. Upkeep does not use it:
 * {@link #tenantsOn(String)} lists one shard.
 */
public final class TenantRoutedStore implements BookingStore {
    private final Map<String, BookingStore> shards;
    private final Map<String, ShardCircuit> circuits;
    private final @Nullable ShardMapping mapping;

    private TenantRoutedStore(Map<String, BookingStore> shards, ShardMapping mapping, Duration backoff) {
        this.shards = Collections.unmodifiableMap(new LinkedHashMap<>(shards));
        Map<String, ShardCircuit> byShard = new LinkedHashMap<>();
        shards.keySet().forEach(name -> byShard.put(name, new ShardCircuit(name, backoff)));
        this.circuits = Collections.unmodifiableMap(byShard);
        this.mapping = mapping;
    }

    /** {@return a builder of a store over named shards} */
    public static Builder builder() {
        return new Builder();
    }

    /** {@return the shard names, in the order they were added} */
    public Set<String> shardNames() {
        return shards.keySet();
    }

    /**
     * {@return the store of the named shard}
     *
     * @param name the shard's name
     */
    public BookingStore shard(String name) {
        BookingStore store = shards.get(Checks.notNull("shard", name));
        if (store == null) {
            throw new InvalidInputException("shard must be one of " + shards.keySet() + ", got '"
                    + Checks.escape(name) + "'");
        }
        return store;
    }

    /**
     * {@return the name of the shard that holds {@code tenant} now}
     *
     * @param tenant the tenant to look up
     */
    public String shardOf(TenantId tenant) {
        Checks.notNull("tenantId", tenant);
        String name = mapping.shardOf(tenant);
        if (name == null || !shards.containsKey(name)) {
            throw new IllegalStateException("the shard mapping put tenant '" + Checks.escape(tenant.value())
                    + "' on shard " + (name == null ? "null" : "'" + Checks.escape(name) + "'")
                    + ", which is not one of " + shards.keySet());
        }
        return name;
    }

    /**
     * {@return the store that holds {@code tenant}: every call of this store is {@code
     * route(tenant).call(...)}, made through the shard's fail-fast circuit (a call on the returned store itself
     * bypasses it)}
     *
     * @param tenant the tenant to route
     */
    public BookingStore route(TenantId tenant) {
        return shards.get(shardOf(tenant));
    }

    /**
     * {@return whether calls to the named shard fail at once now (its calls got no connection; no trial got
     * through yet)}
     *
     * @param shard the shard's name
     */
    public boolean failingFast(String shard) {
        shard(shard);
        return circuits.get(shard).isOpen();
    }

    /** Runs a call of {@code tenant} on its shard, through the shard's circuit. */
    private <T> T call(TenantId tenant, Function<BookingStore, T> call) {
        return call(shardOf(tenant), call);
    }

    <T> T call(String shard, Function<BookingStore, T> call) {
        ShardCircuit circuit = circuits.get(shard);
        boolean trial = circuit.enter();
        T result;
        try {
            result = call.apply(shards.get(shard));
        } catch (RuntimeException e) {
            circuit.failed(trial, e);
            throw e;
        }
        circuit.answered(trial);
        return result;
    }

    /**
     * {@return every tenant that has a slot on the named shard and that the mapping puts there, read page by
     * page from that shard alone (each call of the supplier reads it again): the tenant list of one
     * shard's upkeep} Fails when that shard fails, and only then.
     *
     * @param shard the shard, by its name
     */
    public Supplier<List<TenantId>> tenantsOn(String shard) {
        shard(shard);
        int page = 500;
        return () -> {
            List<TenantId> all = new ArrayList<>();
            TenantId after = null;
            while (true) {
                TenantId from = after;
                List<TenantId> batch = call(shard, s -> s.tenants(from, page));
                for (TenantId tenant : batch) {
                    if (shard.equals(mapping.shardOf(tenant))) {
                        all.add(tenant);
                    }
                }
                if (batch.size() < page) {
                    return all;
                }
                after = batch.get(batch.size() - 1);
            }
        };
    }

    @Override
    public ScheduleResult schedule(TenantId tenantId, Slot slot, Duration longestSession, ZoneId weekZone) {
        return call(tenantId, s -> s.schedule(tenantId, slot, longestSession, weekZone));
    }

    @Override
    public StoreOutcome<HoldResult> hold(TenantId tenantId, HoldCommand command) {
        return call(tenantId, s -> s.hold(tenantId, command));
    }

    @Override
    public StoreOutcome<ConfirmResult> confirm(TenantId tenantId, BookingId bookingId, StudentId studentId,
                                               @Nullable Instant now, Terms terms) {
        return call(tenantId, s -> s.confirm(tenantId, bookingId, studentId, now, terms));
    }

    @Override
    public StoreOutcome<CancelResult> cancel(TenantId tenantId, BookingId bookingId, @Nullable StudentId studentId,
                                             @Nullable Instant now, Terms terms) {
        return call(tenantId, s -> s.cancel(tenantId, bookingId, studentId, now, terms));
    }

    @Override
    public StoreOutcome<CancelSlotResult> cancelSlot(TenantId tenantId, SlotId slotId, @Nullable Instant now) {
        return call(tenantId, s -> s.cancelSlot(tenantId, slotId, now));
    }

    @Override
    public StoreOutcome<Integer> expireDue(TenantId tenantId, @Nullable Instant now, int limit, Terms terms) {
        return call(tenantId, s -> s.expireDue(tenantId, now, limit, terms));
    }

    @Override
    public StoreOutcome<LeaveResult> leaveWaitlist(TenantId tenantId, RequestId requestId, StudentId studentId,
                                                   @Nullable Instant now) {
        return call(tenantId, s -> s.leaveWaitlist(tenantId, requestId, studentId, now));
    }

    @Override
    public Optional<WaitlistEntry> findWaiter(TenantId tenantId, RequestId requestId) {
        return call(tenantId, s -> s.findWaiter(tenantId, requestId));
    }

    @Override
    public List<WaitlistEntry> waitlist(TenantId tenantId, SlotId slotId, int offset, int limit) {
        return call(tenantId, s -> s.waitlist(tenantId, slotId, offset, limit));
    }

    @Override
    public List<Booking> roster(TenantId tenantId, SlotId slotId, @Nullable Instant now, int offset, int limit) {
        return call(tenantId, s -> s.roster(tenantId, slotId, now, offset, limit));
    }

    @Override
    public List<BookedSession> studentBookings(TenantId tenantId, StudentId studentId, @Nullable Instant now,
                                               boolean upcoming, int offset, int limit) {
        return call(tenantId, s -> s.studentBookings(tenantId, studentId, now, upcoming, offset, limit));
    }

    @Override
    public List<Slot> timetable(TenantId tenantId, ResourceRef resource, TimeRange range, int offset, int limit) {
        return call(tenantId, s -> s.timetable(tenantId, resource, range, offset, limit));
    }

    @Override
    public Optional<Availability> availability(TenantId tenantId, SlotId slotId, @Nullable Instant now) {
        return call(tenantId, s -> s.availability(tenantId, slotId, now));
    }

    @Override
    public Optional<LiveSlot> liveSlot(TenantId tenantId, SlotId slotId, @Nullable Instant now) {
        return call(tenantId, s -> s.liveSlot(tenantId, slotId, now));
    }

    @Override
    public Optional<Booking> findBooking(TenantId tenantId, BookingId bookingId) {
        return call(tenantId, s -> s.findBooking(tenantId, bookingId));
    }

    @Override
    public Optional<Booking> findByRequest(TenantId tenantId, RequestId requestId) {
        return call(tenantId, s -> s.findByRequest(tenantId, requestId));
    }

    @Override
    public List<Slot> slots(TenantId tenantId, @Nullable SlotId after, int limit) {
        return call(tenantId, s -> s.slots(tenantId, after, limit));
    }

    @Override
    public LessonPackage grantPackage(TenantId tenantId, PackageGrant grant, @Nullable Instant now) {
        return call(tenantId, s -> s.grantPackage(tenantId, grant, now));
    }

    @Override
    public List<LessonPackage> packages(TenantId tenantId, StudentId studentId, int offset, int limit) {
        return call(tenantId, s -> s.packages(tenantId, studentId, offset, limit));
    }

    @Override
    public List<CreditEntry> creditJournal(TenantId tenantId, PackageId packageId, int offset, int limit) {
        return call(tenantId, s -> s.creditJournal(tenantId, packageId, offset, limit));
    }

    @Override
    public StoreOutcome<CheckInResult> checkIn(TenantId tenantId, BookingId bookingId, @Nullable StudentId studentId,
                                               @Nullable Instant now, Terms terms) {
        return call(tenantId, s -> s.checkIn(tenantId, bookingId, studentId, now, terms));
    }

    @Override
    public SeriesResult scheduleSeries(TenantId tenantId, SeriesId seriesId, SeriesMode mode, List<Slot> occurrences,
                                       Duration longestSession, ZoneId weekZone) {
        return call(tenantId, s -> s.scheduleSeries(tenantId, seriesId, mode, occurrences, longestSession, weekZone));
    }

    @Override
    public StoreOutcome<SeriesCancelled> cancelSeries(TenantId tenantId, SeriesId seriesId, Instant from,
                                                      @Nullable Instant now) {
        return call(tenantId, s -> s.cancelSeries(tenantId, seriesId, from, now));
    }

    @Override
    public List<Slot> seriesSlots(TenantId tenantId, SeriesId seriesId, @Nullable Instant after, int limit) {
        return call(tenantId, s -> s.seriesSlots(tenantId, seriesId, after, limit));
    }

    @Override
    public StoreOutcome<List<HoldResult>> holdAll(TenantId tenantId, List<HoldCommand> commands, SeriesMode mode) {
        return call(tenantId, s -> s.holdAll(tenantId, commands, mode));
    }

    /**
     * Up to {@code limit} tenants of all shards in tenant id order after {@code after}: each shard's
     * page (only the tenants the mapping puts on it), merged. Fails when any shard fails. The order is
     * the ids' code point order ({@link org.slotbook.core.Identifier#compareCodePoints}), the order every
     * shard pages by, so continuing after the last id of a merged page skips no shard's tenant.
     */
    @Override
    public List<TenantId> tenants(@Nullable TenantId after, int limit) {
        Checks.positive("limit", limit);
        List<TenantId> merged = new ArrayList<>();
        for (Map.Entry<String, BookingStore> shard : shards.entrySet()) {
            merged.addAll(ownPage(shard.getKey(), after, limit));
        }
        merged.sort(null);
        return List.copyOf(merged.subList(0, Math.min(limit, merged.size())));
    }

    /** Up to {@code limit} tenants after {@code after} that the shard holds and the mapping puts there. */
    private List<TenantId> ownPage(String name, TenantId after, int limit) {
        List<TenantId> own = new ArrayList<>();
        TenantId from = after;
        while (own.size() < limit) {
            TenantId pageAfter = from;
            List<TenantId> page = call(name, s -> s.tenants(pageAfter, limit));
            for (TenantId tenant : page) {
                if (own.size() < limit && name.equals(mapping.shardOf(tenant))) {
                    own.add(tenant);
                }
            }
            if (page.size() < limit) {
                break;
            }
            from = page.get(page.size() - 1);
        }
        return own;
    }

    /** {@return the outbox of the tenant's shard, for every call of a tenant} */
    @Override
    public OutboxStore outbox() {
        return new RoutedOutbox(this, shards.keySet());
    }

    @Override
    public String toString() {
        return "TenantRoutedStore" + shards.keySet();
    }

    /** Builds a {@link TenantRoutedStore}. */
    public static final class Builder {
        private final Map<String, BookingStore> shards = new LinkedHashMap<>();
        private @Nullable ShardMapping mapping;
        private Duration backoff = Duration.ofSeconds(1);

        private Builder() {
        }

        /**
         * Adds a shard: a name every node agrees on (the default mapping hashes it) and its store.
         *
         * @param name the shard's name
         * @param store the shard's store
         * @return this builder
         */
        public Builder shard(String name, BookingStore store) {
            Checks.id("shard", name);
            Checks.notNull("store", store);
            if (store instanceof TenantRoutedStore) {
                throw new InvalidInputException("store of shard '" + Checks.escape(name)
                        + "' must be a single store, got a TenantRoutedStore");
            }
            if (shards.putIfAbsent(name, store) != null) {
                throw new InvalidInputException("shard must be a new name, got '" + Checks.escape(name)
                        + "' twice");
            }
            return this;
        }

        /**
         * The host's mapping from tenant to shard name; default {@link ShardMapping#rendezvous} over
         * the shard names.
         *
         * @param mapping the mapping from tenant to shard name
         * @return this builder
         */
        public Builder mapping(ShardMapping mapping) {
            this.mapping = Checks.notNull("mapping", mapping);
            return this;
        }

        /**
         * How long calls to a shard fail at once after its calls got no connection, before one call is let
         * through as a trial (doubled after each failed trial, up to 16 times); default 1 s.
         *
         * @param backoff the first back-off of an open circuit
         * @return this builder
         */
        public Builder shardBackoff(Duration backoff) {
            this.backoff = Checks.positive("shardBackoff", backoff);
            return this;
        }

        /** {@return the routed store} */
        public TenantRoutedStore build() {
            if (shards.isEmpty()) {
                throw new InvalidInputException("shards must hold at least one shard, got none");
            }
            ShardMapping m = mapping != null ? mapping : ShardMapping.rendezvous(shards.keySet());
            return new TenantRoutedStore(shards, m, backoff);
        }
    }
}
