package org.slotbook.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slotbook.core.BookingStoreException;
import org.slotbook.core.InvalidInputException;
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
import org.slotbook.redis.internal.JedisScriptRunner;
import org.slotbook.redis.internal.GateReplies;
import org.slotbook.redis.internal.GateScripts;
import org.slotbook.redis.internal.LuaScript;
import org.slotbook.redis.internal.ScriptRunner;
import org.slotbook.redis.internal.SlotKeys;
import redis.clients.jedis.UnifiedJedis;

/**
 * The seat gate as Redis Lua scripts, over any Jedis {@link UnifiedJedis}: {@code RedisClient} (the
 * pooled standalone client of Jedis 7.1 and newer, the only one in Jedis 8), {@code JedisPooled}
 * (Jedis 6.x and 7.x), {@code RedisClusterClient} or {@code JedisCluster}. It calls nothing but
 * {@code evalsha} and {@code eval}, so it runs on Jedis 6.x, 7.x and 8.x alike. The host owns the
 * client (and closes it); this class only borrows it.
 *
 * <pre>{@code
 * RedisClient redis = RedisClient.builder()
 *     .hostAndPort("127.0.0.1", 6379)
 *     .clientConfig(DefaultJedisClientConfig.builder()
 *         .connectionTimeoutMillis(200).socketTimeoutMillis(200).build())
 *     .build();
 * SeatReservation gate = RedisSeatReservation.create(redis);
 * }</pre>
 * On Jedis 6.x and 7.0: {@code new JedisPooled(poolConfig, new HostAndPort("127.0.0.1", 6379), clientConfig)}.
 *
 * <h2>Keys</h2>
 * Per slot, {@code <prefix>{<tenant>:<slot>}:holders} (sorted set of students scored by hold expiry
 * in epoch milliseconds of the Redis server's clock; a confirmed hold is pinned at 9e15; the member
 * {@code ''} at {@code +inf} marks the key as present) and {@code ...:meta} (hash: {@code ''} to the
 * capacity, or {@code closed} once the slot is called off; student to
 * {@code expiry|takenAt|requestId}; and one tombstone field per request id whose holder left: released,
 * expired and reclaimed, or replaced). They share one
 * hash tag, so every script runs on one node of a cluster, and expire at the slot's {@code keepUntil}
 * (set when the state is created, reconciled or closed, never on the hold path). Remaining seats are
 * derived (capacity - live holders), never counted.
 *
 * <h2>Partial loss</h2>
 * Under a {@code volatile-*} eviction policy Redis may evict one of the two keys and keep the other.
 * Every script then sees the slot as missing (the holders key without its marker, or the meta hash
 * without its capacity): {@code tryHold} answers {@code MISSING}, {@code initialize} leaves it alone,
 * and {@code reconcile} rebuilds it from the ledger's truth (keeping the tombstones of a surviving
 * meta hash), so a lost key never silently drops holders while the other key pretends all is well.
 *
 * <h2>Time</h2>
 * Every script reads the server's {@code TIME}; no client clock is involved.
 *
 * <h2>Scripts</h2>
 * {@code hold.lua}, {@code release.lua}, {@code confirm.lua}, {@code init.lua}, {@code reconcile.lua},
 * {@code close.lua}, {@code inspect.lua}, {@code transfer.lua} and {@code mark.lua}, each run by {@code EVALSHA}; a server that does not know
 * a script ({@code NOSCRIPT}: first use on a node, {@code SCRIPT FLUSH}, restart) gets it by one
 * {@code EVAL}, which caches it again. A hold on a slot with fewer members (live or expired holders)
 * than seats runs {@code TIME}, {@code HGET} (the capacity), {@code ZCARD}, {@code HEXISTS} (whether the
 * request's booking ended: such a request answers {@code REPLAY} and never takes a seat again),
 * {@code ZADD NX} and {@code HSET}; a full slot {@code TIME}, {@code HGET}, {@code ZCARD}, {@code HEXISTS},
 * {@code HMGET} (the student's record: a live hold answers a duplicate before full; the request's
 * tombstone, and whether a booking of the student here ended: such a request or student answers
 * {@code REPLAY}, for the ledger to answer), {@code ZCOUNT} and, when it keeps expired holders, one bounded
 * reclaim of them (which leaves their tombstones). {@code tryHold} sends its keys and arguments as bytes (the
 * keys and the ttl encoded once) and decodes only the first byte of the reply, plus the request id
 * of a duplicate.
 *
 * <h2>Concurrent holds</h2>
 * On a standalone client, {@code tryHold} calls of many threads share round trips: calls that arrive
 * while a pipeline of their lane is on the wire queue, and go out together (at most 64) in the next
 * one, on one pooled connection; a lone call goes out at once. {@link Builder#pipelineLanes} sets how
 * many pipelines may be on the wire at once (default 2; 0 sends each call on its own connection).
 * The holds of one pipeline go in it as a single call of {@code hold.lua}, which decides each exactly
 * as it would alone. Cluster clients send each call on its own. {@code confirm} and {@code release} share the pipelines
 * too; the other scripts (initialize, reconcile, close, inspect) are always sent on their own.
 *
 * <h2>Faults</h2>
 * {@link #tryHold} never throws for an infrastructure fault: it answers
 * {@link GateDecision#UNAVAILABLE} (the engine goes on with the database alone), counts it
 * ({@link #unavailableCount()}) and logs a warning at most once per interval. How quickly it answers
 * is the client's connect and socket timeouts (and a pool's maximum wait): keep them short. A hold
 * queued behind a pipeline may wait for that one first, so its worst case is about two timeouts; a
 * failed pipeline answers {@code UNAVAILABLE} to every hold in it. The other methods throw
 * {@link BookingStoreException}.
 */
public final class RedisSeatReservation implements SeatReservation {
    private static final Logger LOG = LoggerFactory.getLogger(RedisSeatReservation.class);
    /** How many slots' key lists one gate keeps built. */
    private static final int KEY_CACHE_SLOTS = 4096;
    /** The most pipeline lanes a gate takes ({@link Builder#pipelineLanes}). */
    public static final int MAX_PIPELINE_LANES = 64;

    private final ScriptRunner redis;
    private final int pipelineLanes;
    private final SlotKeys slotKeys;
    private static final byte[] NO_KEY = new byte[0];
    private static final byte[] PINNED_ARG = GateScripts.PINNED.getBytes(StandardCharsets.US_ASCII);
    private static final byte[] WITHDRAW_ARG = {'w'};
    private static final byte[] ENDED_ARG = {'e'};

    private final byte[] reclaimBatchArg;
    private volatile @Nullable TtlArg lastTtl;
    private final long logIntervalNanos;
    private final LongAdder unavailable = new LongAdder();
    private final AtomicLong nextLogNanos = new AtomicLong(System.nanoTime());
    private final AtomicLong unloggedSinceLast = new AtomicLong();

    private RedisSeatReservation(Builder builder) {
        this.redis = new JedisScriptRunner(builder.jedis, builder.pipelineLanes);
        this.pipelineLanes = builder.pipelineLanes;
        this.slotKeys = new SlotKeys(builder.keyPrefix, KEY_CACHE_SLOTS);
        this.reclaimBatchArg = Integer.toString(builder.reclaimBatch).getBytes(StandardCharsets.US_ASCII);
        this.logIntervalNanos = builder.unavailableLogInterval.toNanos();
    }

    /**
     * A gate with the default settings: key prefix {@code slotbook:}, reclaim batch 16.
     *
     * @param jedis the Redis client: standalone or cluster, any UnifiedJedis
     * @return the gate
     */
    public static RedisSeatReservation create(UnifiedJedis jedis) {
        return builder(jedis).build();
    }

    /**
     * Settings for a gate over {@code jedis}: any {@link UnifiedJedis} ({@code RedisClient},
     * {@code JedisPooled}, {@code RedisClusterClient}, {@code JedisCluster}). The client's timeouts
     * bound how long a hold waits for a sick Redis.
     *
     * @param jedis the Redis client: standalone or cluster, any UnifiedJedis
     * @return a builder of the gate
     */
    public static Builder builder(UnifiedJedis jedis) {
        Checks.notNull("jedis", jedis);
        return new Builder(jedis);
    }

    /** {@return how many times {@link #tryHold} answered {@link GateDecision#UNAVAILABLE} since this gate was built} */
    public long unavailableCount() {
        return unavailable.sum();
    }

    /**
     * {@return how many pipelines of concurrent holds this gate lets on the wire at once (0: none; see the
     * builder)}
     */
    public int pipelineLanes() {
        return pipelineLanes;
    }

    /** {@return the key prefix of every key this gate writes} */
    public String keyPrefix() {
        return slotKeys.prefix();
    }

    /**
     * The keys of one slot, as every script of this gate takes them: the holders sorted set, then the
     * meta hash (see <i>Keys</i> above). For operators who inspect Redis, and for tools that run a
     * script of the gate themselves.
     *
     * @param tenantId the tenant whose data the call reads or changes
     * @param slotId the slot, by its id within the tenant
     * @return the keys, in the order the scripts take them
     */
    public List<String> keys(TenantId tenantId, SlotId slotId) {
        Checks.notNull("tenantId", tenantId);
        Checks.notNull("slotId", slotId);
        return slotKeys.of(tenantId, slotId);
    }

    /**
     * The MATCH pattern of every key this gate writes, for {@code SCAN} (e.g.
     * {@code redis-cli --scan --pattern}): its key prefix with the glob characters escaped, then
     * {@code *}. Keys of another gate whose prefix begins with this one's match it too.
     *
     * @return the SCAN pattern of every key this gate writes
     */
    public String keyPattern() {
        return SlotKeys.pattern(slotKeys.prefix());
    }

    /**
     * The arguments {@link #tryHold} sends to {@code hold.lua}, for tools that measure the script alone.
     *
     * @param studentId the student the booking or entry belongs to
     * @param requestId the client's request id, which makes a repeat answer as the first call
     * @param ttl how long the hold lasts before it expires
     * @return the arguments, in order
     */
    public List<String> holdArgs(StudentId studentId, RequestId requestId, Duration ttl) {
        byte[][] call = holdCall(NO_KEY, NO_KEY, studentId, requestId, ttl);
        List<String> args = new ArrayList<>(call.length - 2);
        for (int i = 2; i < call.length; i++) {
            args.add(new String(call[i], StandardCharsets.UTF_8));
        }
        return args;
    }

    /**
     * One call of {@code hold.lua}, in its order: the keys (holders, meta), then student, request id,
     * ttl in ms (a sub-millisecond rest rounded up) and the most expired holders reclaimed.
     */
    private byte[][] holdCall(byte[] holders, byte[] meta, StudentId studentId, RequestId requestId, Duration ttl) {
        return new byte[][] {holders, meta, studentId.value().getBytes(StandardCharsets.UTF_8),
                requestId.value().getBytes(StandardCharsets.UTF_8), ttlArg(ttl), reclaimBatchArg};
    }

    @Override
    public GateDecision tryHold(TenantId tenantId, SlotId slotId, StudentId studentId, RequestId requestId,
                                Duration ttl) {
        SlotKeys.Keys keys = holderKeys(tenantId, slotId, studentId, requestId);
        Checks.positive("ttl", ttl);
        Object reply;
        try {
            reply = redis.runBinary(GateScripts.HOLD, 2,
                    holdCall(keys.holders(), keys.meta(), studentId, requestId, ttl));
        } catch (RuntimeException e) {
            return unavailable(e);
        }
        return holdDecision(reply);
    }

    /** The decision in a reply of {@code hold.lua}: its first byte, then the request id or instant after it. */
    private GateDecision holdDecision(Object reply) {
        GateDecision decision = GateReplies.decision(reply);
        return decision == null ? unavailable(new IllegalStateException("unexpected reply of hold.lua: " + text(reply)))
                : decision;
    }

    /** The ttl argument of {@code hold.lua}, encoded once for the ttl most recently asked for. */
    private byte[] ttlArg(Duration ttl) {
        TtlArg last = lastTtl;
        if (last == null || !last.ttl.equals(ttl)) {
            last = new TtlArg(ttl, Long.toString(GateScripts.ttlMillis(ttl)).getBytes(StandardCharsets.US_ASCII));
            lastTtl = last;
        }
        return last.bytes;
    }

    /** A ttl and its argument bytes, swapped as one. */
    private record TtlArg(Duration ttl, byte[] bytes) {
    }

    @Override
    public void confirm(TenantId tenantId, SlotId slotId, StudentId studentId, RequestId requestId) {
        SlotKeys.Keys keys = holderKeys(tenantId, slotId, studentId, requestId);
        runBinary(GateScripts.CONFIRM, "confirm", tenantId, slotId, keys.holders(), keys.meta(), utf8(studentId.value()),
                utf8(requestId.value()), PINNED_ARG);
    }

    @Override
    public boolean release(TenantId tenantId, SlotId slotId, StudentId studentId, RequestId requestId) {
        return releaseScript("release", tenantId, slotId, studentId, requestId, null);
    }

    @Override
    public boolean releaseEnded(TenantId tenantId, SlotId slotId, StudentId studentId, RequestId requestId) {
        return releaseScript("release", tenantId, slotId, studentId, requestId, ENDED_ARG);
    }

    @Override
    public GateDecision transfer(TenantId tenantId, SlotId slotId, StudentId studentId, RequestId from, RequestId to,
                                 Duration ttl) {
        SlotKeys.Keys keys = holderKeys(tenantId, slotId, studentId, from);
        Checks.notNull("to", to);
        Checks.positive("ttl", ttl);
        Object reply = runBinary(GateScripts.TRANSFER, "transfer", tenantId, slotId, keys.holders(), keys.meta(),
                utf8(studentId.value()), utf8(from.value()), utf8(to.value()), ttlArg(ttl));
        GateDecision decision = GateReplies.decision(reply);
        if (decision == null) {
            throw new BookingStoreException("Redis gate: unexpected reply of transfer.lua for tenant " + tenantId
                    + ", slot " + slotId + ": " + text(reply));
        }
        return decision;
    }

    @Override
    public boolean withdraw(TenantId tenantId, SlotId slotId, StudentId studentId, RequestId requestId) {
        return releaseScript("withdraw", tenantId, slotId, studentId, requestId, WITHDRAW_ARG);
    }

    /** One call of {@code release.lua}, with its mode argument ('e' ended, 'w' withdraw) when not null. */
    private boolean releaseScript(String operation, TenantId tenantId, SlotId slotId, StudentId studentId,
                                  RequestId requestId, byte @Nullable [] mode) {
        SlotKeys.Keys k = holderKeys(tenantId, slotId, studentId, requestId);
        byte[] student = utf8(studentId.value());
        byte[] request = utf8(requestId.value());
        byte[][] call = mode == null ? new byte[][] {k.holders(), k.meta(), student, request}
                : new byte[][] {k.holders(), k.meta(), student, request, mode};
        Object reply = runBinary(GateScripts.RELEASE, operation, tenantId, slotId, call);
        return reply instanceof Long removed ? removed == 1L : "1".equals(text(reply));
    }

    /** The server's clock on the node of the slot's keys, in epoch milliseconds (one call of {@code mark.lua}). */
    @Override
    public GateMark mark(TenantId tenantId, SlotId slotId) {
        Object reply = run(GateScripts.MARK, "mark", tenantId, slotId, keys(tenantId, slotId), List.of());
        try {
            return new GateMark(Long.parseLong(text(reply)));
        } catch (NumberFormatException e) {
            throw new BookingStoreException("Redis gate: unexpected reply of mark.lua: " + text(reply), e);
        }
    }

    @Override
    public GateSync reconcileFrom(TenantId tenantId, SlotId slotId, int capacity, @Nullable Instant opensAt,
                                  Collection<GateHolder> truth, GateMark readFrom, Duration inFlightGrace,
                                  @Nullable Instant keepUntil) {
        Checks.notNull("readFrom", readFrom);
        return reconcileScript(tenantId, slotId, capacity, opensAt, truth, "@" + readFrom.position(), inFlightGrace,
                keepUntil);
    }

    @Override
    public void initialize(TenantId tenantId, SlotId slotId, int capacity, @Nullable Instant keepUntil) {
        initialize(tenantId, slotId, capacity, null, keepUntil);
    }

    @Override
    public void initialize(TenantId tenantId, SlotId slotId, int capacity, @Nullable Instant opensAt,
                           @Nullable Instant keepUntil) {
        List<String> keys = keys(tenantId, slotId);
        checkCapacity(capacity);
        run(GateScripts.INIT, "initialize", tenantId, slotId, keys,
                List.of(capacityField(capacity, opensAt), keepArg(keepUntil)));
    }

    /** The meta hash's '' field: the capacity, and the opening in epoch microseconds when there is one. */
    private static String capacityField(int capacity, Instant opensAt) {
        if (opensAt == null) {
            return Integer.toString(capacity);
        }
        long micros = Math.addExact(Math.multiplyExact(opensAt.getEpochSecond(), 1_000_000L), opensAt.getNano() / 1000);
        return capacity + "|" + micros;
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
        return reconcileScript(tenantId, slotId, capacity, opensAt, truth, truthAge == null ? ""
                : Long.toString(Math.min(Checks.notNegative("truthAge", truthAge).toMillis(), GateScripts.PINNED_SCORE)),
                inFlightGrace, keepUntil);
    }

    /** One call of {@code reconcile.lua}; {@code readAt} is its fifth argument (a mark, an age, or ''). */
    private GateSync reconcileScript(TenantId tenantId, SlotId slotId, int capacity, @Nullable Instant opensAt,
                               Collection<GateHolder> truth, String readAt, Duration inFlightGrace,
                               @Nullable Instant keepUntil) {
        List<String> keys = keys(tenantId, slotId);
        checkCapacity(capacity);
        Checks.notNull("truth", truth);
        Checks.notNegative("inFlightGrace", inFlightGrace);
        List<String> args = new ArrayList<>(4 + 4 * truth.size());
        args.add(capacityField(capacity, opensAt));
        args.add(Long.toString(Math.min(inFlightGrace.toMillis(), GateScripts.PINNED_SCORE)));
        args.add(keepArg(keepUntil));
        args.add(GateScripts.PINNED);
        args.add(readAt);
        for (GateHolder holder : truth) {
            Checks.notNull("truth holder", holder);
            args.add(holder.studentId().value());
            args.add(holder.requestId().value());
            args.add(Long.toString(millis("takenAt", holder.takenAt())));
            args.add(holder.pinned() ? "" : Long.toString(millis("expiresAt", holder.expiresAt())));
        }
        Object reply = run(GateScripts.RECONCILE, "reconcile", tenantId, slotId, keys, args);
        if (!(reply instanceof List<?> counts) || counts.size() != 3) {
            throw new BookingStoreException("Redis gate: unexpected reply of reconcile.lua: " + reply);
        }
        return new GateSync(toInt(counts.get(0)), toInt(counts.get(1)), toInt(counts.get(2)) == 1);
    }

    @Override
    public void close(TenantId tenantId, SlotId slotId, @Nullable Instant keepUntil) {
        run(GateScripts.CLOSE, "close", tenantId, slotId, keys(tenantId, slotId), List.of(keepArg(keepUntil)));
    }

    @Override
    public Optional<GateView> inspect(TenantId tenantId, SlotId slotId) {
        List<String> keys = keys(tenantId, slotId);
        Object reply = run(GateScripts.INSPECT, "inspect", tenantId, slotId, keys, List.of());
        if (!(reply instanceof List<?> values)) {
            throw new BookingStoreException("Redis gate: unexpected reply of inspect.lua: " + reply);
        }
        if (values.isEmpty()) {
            return Optional.empty();
        }
        String stored = text(values.get(0));
        int bar = stored.indexOf('|');
        int capacity = Integer.parseInt(bar < 0 ? stored : stored.substring(0, bar));
        List<GateHolder> holders = new ArrayList<>((values.size() - 1) / 2);
        for (int i = 1; i + 1 < values.size(); i += 2) {
            holders.add(holder(text(values.get(i)), text(values.get(i + 1))));
        }
        return Optional.of(new GateView(capacity, holders));
    }

    /** A holder from its record, {@code expiry|takenAt|requestId}. */
    private static GateHolder holder(String student, String record) {
        int first = record.indexOf('|');
        int second = first < 0 ? -1 : record.indexOf('|', first + 1);
        if (second < 0) {
            throw new BookingStoreException("Redis gate: malformed holder record of " + student + ": " + record);
        }
        long expiry = Long.parseLong(record.substring(0, first));
        Instant expiresAt = expiry >= GateScripts.PINNED_SCORE ? null : Instant.ofEpochMilli(expiry);
        Instant takenAt = Instant.ofEpochMilli(Long.parseLong(record.substring(first + 1, second)));
        return new GateHolder(StudentId.of(student), RequestId.of(record.substring(second + 1)), takenAt, expiresAt);
    }

    /**
     * A script of the booking path (confirm, release) with its two keys and arguments as bytes: on a
     * standalone client it shares pipelines with the holds of other threads.
     */
    private Object runBinary(LuaScript script, String operation, TenantId tenantId, SlotId slotId,
                             byte[]... keysAndArgs) {
        try {
            return redis.runBinary(script, 2, keysAndArgs);
        } catch (RuntimeException e) {
            throw new BookingStoreException("Redis gate: " + operation + " failed for tenant " + tenantId
                    + ", slot " + slotId + ": " + e.getMessage(), e);
        }
    }

    /** The slot's keys as bytes, for a call about one holder (tryHold, confirm, release), its arguments checked. */
    private SlotKeys.Keys holderKeys(TenantId tenantId, SlotId slotId, StudentId studentId, RequestId requestId) {
        Checks.notNull("tenantId", tenantId);
        Checks.notNull("slotId", slotId);
        Checks.notNull("studentId", studentId);
        Checks.notNull("requestId", requestId);
        return slotKeys.keysOf(tenantId, slotId);
    }

    private static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private Object run(LuaScript script, String operation, TenantId tenantId, SlotId slotId, List<String> keys,
                       List<String> args) {
        try {
            return redis.run(script, keys, args);
        } catch (RuntimeException e) {
            throw new BookingStoreException("Redis gate: " + operation + " failed for tenant " + tenantId
                    + ", slot " + slotId + ": " + e.getMessage(), e);
        }
    }

    private GateDecision unavailable(RuntimeException cause) {
        unavailable.increment();
        long missed = unloggedSinceLast.incrementAndGet();
        long now = System.nanoTime();
        long next = nextLogNanos.get();
        if (now - next >= 0 && nextLogNanos.compareAndSet(next, now + logIntervalNanos)) {
            unloggedSinceLast.addAndGet(-missed);
            LOG.warn("Redis gate unavailable ({} hold(s) sent to the database alone since the last warning, "
                    + "{} in total): {}", missed, unavailable.sum(), cause.toString());
        }
        return GateDecision.UNAVAILABLE;
    }

    private static void checkCapacity(int capacity) {
        Checks.between("capacity", capacity, 0, SlotSpec.MAX_CAPACITY);
    }

    /** Epoch milliseconds, or '' for null: the slot's keys then never expire. */
    private static String keepArg(Instant keepUntil) {
        return keepUntil == null ? "" : Long.toString(millis("keepUntil", keepUntil));
    }

    private static long millis(String field, Instant instant) {
        Checks.notNull(field, instant);
        long millis;
        try {
            millis = instant.toEpochMilli();
        } catch (ArithmeticException e) {
            throw new InvalidInputException(field, field + " is out of range, got " + instant, e);
        }
        if (millis >= GateScripts.PINNED_SCORE || millis <= -GateScripts.PINNED_SCORE) {
            throw new InvalidInputException(field, field + " is out of range, got " + instant);
        }
        return millis;
    }

    private static int toInt(Object value) {
        if (value instanceof Long number) {
            return Math.toIntExact(number);
        }
        return Integer.parseInt(text(value));
    }

    /** A reply element as text, whatever the client decoded it to (String, bytes, number). */
    private static String text(Object value) {
        if (value instanceof byte[] bytes) {
            return new String(bytes, StandardCharsets.UTF_8);
        }
        return value == null ? "" : value.toString();
    }

    @Override
    public String toString() {
        return "RedisSeatReservation[prefix=" + slotKeys.prefix() + ", " + redis + "]";
    }

    /** Settings of a {@link RedisSeatReservation}; every setting has a default. */
    public static final class Builder {
        private final UnifiedJedis jedis;
        private String keyPrefix = "slotbook:";
        private int reclaimBatch = 16;
        private int pipelineLanes = 2;
        private Duration unavailableLogInterval = Duration.ofSeconds(10);

        private Builder(UnifiedJedis jedis) {
            this.jedis = jedis;
        }

        /**
         * Prefix of every key (default {@code slotbook:}); must not contain braces.
         *
         * @param keyPrefix the prefix of every Redis key
         * @return this builder
         */
        public Builder keyPrefix(String keyPrefix) {
            this.keyPrefix = SlotKeys.checkPrefix(keyPrefix);
            return this;
        }

        /**
         * How many expired holders one {@code tryHold} reclaims at most (default 16, 1 to 10,000).
         *
         * @param reclaimBatch how many expired holders one hold may reclaim
         * @return this builder
         */
        public Builder reclaimBatch(int reclaimBatch) {
            this.reclaimBatch = Checks.between("reclaimBatch", reclaimBatch, 1, 10_000);
            return this;
        }

        /**
         * How many pipelines of concurrent {@code tryHold}, {@code confirm} and {@code release} calls may
         * be on the wire at once (default 2, 0 to {@link #MAX_PIPELINE_LANES}). Calls that arrive while a
         * lane's pipeline is on the wire wait for it and go out together in the next one (at most 64
         * calls), on one pooled connection: one write and one read for many calls instead of a round trip
         * each. A lone call goes out at once. 0 sends every call on its own pooled connection. Cluster
         * clients always send each call on its own.
         *
         * @param pipelineLanes how many pipelines of holds may be in flight at once
         * @return this builder
         */
        public Builder pipelineLanes(int pipelineLanes) {
            this.pipelineLanes = Checks.between("pipelineLanes", pipelineLanes, 0, MAX_PIPELINE_LANES);
            return this;
        }

        /**
         * At most one warning per interval while Redis is unavailable (default 10 seconds).
         *
         * @param interval the least time between two warnings
         * @return this builder
         */
        public Builder unavailableLogInterval(Duration interval) {
            this.unavailableLogInterval = Checks.positive("unavailableLogInterval", interval);
            return this;
        }

        /** {@return the gate} */
        public RedisSeatReservation build() {
            return new RedisSeatReservation(this);
        }
    }
}
