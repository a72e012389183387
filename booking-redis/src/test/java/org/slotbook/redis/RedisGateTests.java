package org.slotbook.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.slotbook.core.RequestId;
import org.slotbook.core.SlotId;
import org.slotbook.core.StudentId;
import org.slotbook.core.TenantId;
import org.slotbook.core.spi.GateDecision;
import org.slotbook.core.spi.GateHolder;
import org.slotbook.core.spi.GateSync;
import org.slotbook.core.spi.GateView;
import org.slotbook.redis.internal.SlotKeys;
import redis.clients.jedis.UnifiedJedis;

/**
 * What the Redis gate does beyond the shared contract ({@code SeatReservationContract}): its scripts,
 * keys, expiry and reclaim, run against a real server (standalone or cluster, per subclass). Each test
 * uses its own key prefix.
 */
abstract class RedisGateTests {
    static final Duration TTL = Duration.ofMinutes(10);
    static final Duration SHORT = Duration.ofSeconds(1);

    protected abstract UnifiedJedis jedis();

    /** Runs SCRIPT FLUSH on every server behind {@link #jedis()}. */
    protected abstract void flushScripts();

    String prefix;
    RedisSeatReservation gate;
    TenantId tenant;

    @BeforeEach
    void freshGate() {
        prefix = org.slotbook.redis.support.TestRedis.freshPrefix(getClass().getSimpleName());
        gate = RedisSeatReservation.builder(jedis()).keyPrefix(prefix).build();
        tenant = TenantId.of("t-" + Long.toHexString(ThreadLocalRandom.current().nextLong()));
    }

    Instant keep() {
        return Instant.now().plus(Duration.ofHours(2));
    }

    GateDecision hold(SlotId slot, String student) {
        return hold(tenant, slot, student, RequestId.random());
    }

    GateDecision hold(TenantId t, SlotId slot, String student, RequestId request) {
        return gate.tryHold(t, slot, StudentId.of(student), request, TTL);
    }

    int remaining(SlotId slot) {
        return gate.inspect(tenant, slot).orElseThrow().remaining();
    }

    List<String> keys(SlotId slot) {
        return SlotKeys.keys(prefix, tenant, slot);
    }

    String holdersKey(SlotId slot) {
        return keys(slot).get(SlotKeys.HOLDERS);
    }

    String metaKey(SlotId slot) {
        return keys(slot).get(SlotKeys.META);
    }

    /**
     * The gate contract's check of the stored holders: the holders key has one member per live holder
     * (a released one is gone from it, not only from the meta hash) and its presence marker.
     */
    static void assertStoredHolders(UnifiedJedis jedis, RedisSeatReservation gate, TenantId tenant, SlotId slot,
                                    GateView view) {
        assertThat(jedis.zcard(gate.keys(tenant, slot).get(SlotKeys.HOLDERS))).as("members of the holders key")
                .isEqualTo(view.holders().size() + 1L);
    }

    static void sleep(Duration d) {
        try {
            Thread.sleep(d.toMillis() + 20);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    @Test
    void theSlotLivesInTheTwoKeysOfSlotKeysWhichTheGateBuildsOnce() {
        SlotId slot = SlotId.of("k");
        assertThat(gate.keys(tenant, slot)).isEqualTo(keys(slot));
        assertThat(gate.keys(tenant, slot)).isSameAs(gate.keys(tenant, slot));
        assertThat(keys(slot)).containsExactly(prefix + SlotKeys.tag(tenant, slot) + ":holders",
                prefix + SlotKeys.tag(tenant, slot) + ":meta");
        // the capacity under the meta hash's empty field, the holders' presence marker at +inf
        gate.initialize(tenant, slot, 3, keep());
        for (String student : List.of("a", "b", "c")) {
            assertThat(hold(slot, student)).isEqualTo(GateDecision.HELD);
        }
        assertThat(jedis().hget(metaKey(slot), "")).isEqualTo("3");
        assertThat(jedis().zscore(holdersKey(slot), "")).isEqualTo(Double.POSITIVE_INFINITY);
        assertThat(jedis().zcard(holdersKey(slot))).isEqualTo(1 + 3);
    }

    /**
     * The gate's memory grows only with holds that got a seat: a flood on a full slot, new requests and
     * retries alike, leaves both keys exactly as they were, and so does a bad request's withdrawn hold.
     */
    @Test
    void refusedHoldsAndAWithdrawnHoldLeaveTheSlotsKeysAsTheyWere() {
        SlotId slot = SlotId.of("flood");
        gate.initialize(tenant, slot, 2, keep());
        RequestId released = RequestId.random();
        assertThat(hold(tenant, slot, "a", released)).isEqualTo(GateDecision.HELD);
        assertThat(gate.release(tenant, slot, StudentId.of("a"), released)).isTrue();
        assertThat(hold(slot, "b")).isEqualTo(GateDecision.HELD);
        assertThat(hold(slot, "c")).isEqualTo(GateDecision.HELD);
        Map<String, Object> before = org.slotbook.redis.support.TestRedis.slotState(jedis(), gate, tenant, slot);

        for (int i = 0; i < 200; i++) {
            assertThat(hold(slot, "s" + i)).isEqualTo(GateDecision.FULL);
            assertThat(hold(tenant, slot, "a", released)).isEqualTo(GateDecision.REPLAY);
        }
        assertThat(org.slotbook.redis.support.TestRedis.slotState(jedis(), gate, tenant, slot)).isEqualTo(before);
        assertThat(jedis().hlen(metaKey(slot))).as("capacity, two holders, one tombstone, the released student's mark")
                .isEqualTo(5);

        SlotId open = SlotId.of("withdrawn");
        gate.initialize(tenant, open, 2, keep());
        assertThat(hold(open, "b")).isEqualTo(GateDecision.HELD);
        Map<String, Object> openBefore = org.slotbook.redis.support.TestRedis.slotState(jedis(), gate, tenant, open);
        RequestId reused = RequestId.random();
        assertThat(hold(tenant, open, "d", reused)).isEqualTo(GateDecision.HELD);
        assertThat(gate.withdraw(tenant, open, StudentId.of("d"), reused)).isTrue();
        assertThat(org.slotbook.redis.support.TestRedis.slotState(jedis(), gate, tenant, open)).isEqualTo(openBefore);
        assertThat(gate.withdraw(tenant, SlotId.of("no-state"), StudentId.of("d"), reused)).isFalse();
        for (String key : keys(SlotId.of("no-state"))) {
            assertThat(jedis().exists(key)).as("a withdraw creates nothing: %s", key).isFalse();
        }
    }

    /** A full slot's hold reclaims expired holders and keeps their request ids: a retry of one is a replay. */
    @Test
    void reclaimedHoldersLeaveTheirTombstones() {
        SlotId slot = SlotId.of("reclaimed");
        gate.initialize(tenant, slot, 2, keep());
        RequestId x = RequestId.random();
        assertThat(gate.tryHold(tenant, slot, StudentId.of("x"), x, SHORT)).isEqualTo(GateDecision.HELD);
        assertThat(gate.tryHold(tenant, slot, StudentId.of("y"), RequestId.random(), SHORT))
                .isEqualTo(GateDecision.HELD);
        sleep(SHORT);
        assertThat(hold(slot, "z")).isEqualTo(GateDecision.HELD);
        assertThat(hold(slot, "w")).isEqualTo(GateDecision.HELD);
        assertThat(jedis().hexists(metaKey(slot), "\u0001" + x.value())).as("not reclaimed yet").isFalse();

        assertThat(hold(slot, "v")).isEqualTo(GateDecision.FULL);

        assertThat(jedis().zcard(holdersKey(slot))).as("the marker and two live holders").isEqualTo(3);
        assertThat(jedis().hget(metaKey(slot), "\u0001" + x.value())).as("x's tombstone").isNotNull();
        assertThat(hold(tenant, slot, "x", x)).isEqualTo(GateDecision.REPLAY);
    }

    @Test
    void slotWithoutStateIsMissing() {
        assertThat(hold(SlotId.of("never"), "a")).isEqualTo(GateDecision.MISSING);
        assertThat(gate.inspect(tenant, SlotId.of("never"))).isEmpty();
        for (String key : keys(SlotId.of("never"))) {
            assertThat(jedis().exists(key)).as(key).isFalse();
        }
        // a release still leaves its tombstone (for a rebuild from an earlier ledger read), in a meta
        // key that expires within the hour and that every script reads as missing state
        assertThat(gate.release(tenant, SlotId.of("never"), StudentId.of("a"), RequestId.random())).isFalse();
        List<String> keys = keys(SlotId.of("never"));
        assertThat(jedis().exists(keys.get(SlotKeys.HOLDERS))).as("holders").isFalse();
        assertThat(jedis().pttl(keys.get(SlotKeys.META))).as("meta ttl").isBetween(1L, 3_600_000L);
        assertThat(hold(SlotId.of("never"), "a")).isEqualTo(GateDecision.MISSING);
        assertThat(gate.inspect(tenant, SlotId.of("never"))).isEmpty();
    }

    @Test
    void duplicateNamesTheRequestTheSeatIsHeldUnder() {
        SlotId slot = SlotId.of("dup");
        gate.initialize(tenant, slot, 5, keep());
        RequestId first = RequestId.of("req|with|bars:{x}");
        assertThat(hold(tenant, slot, "a", first)).isEqualTo(GateDecision.HELD);
        assertThat(hold(tenant, slot, "a", first)).isEqualTo(GateDecision.duplicate(first));
        assertThat(hold(tenant, slot, "a", RequestId.of("other"))).isEqualTo(GateDecision.duplicate(first));
        assertThat(gate.release(tenant, slot, StudentId.of("a"), RequestId.of("bars:{x}"))).isFalse();
        assertThat(remaining(slot)).isEqualTo(4);
        assertThat(gate.release(tenant, slot, StudentId.of("a"), first)).isTrue();
        assertThat(jedis().hexists(metaKey(slot), "a")).isFalse();
        assertThat(jedis().hexists(metaKey(slot), "\u0001" + first.value())).as("tombstone").isTrue();
    }

    @Test
    void slotKeysExpireAtKeepUntilAndTheHoldPathNeverTouchesTheirExpiry() {
        SlotId slot = SlotId.of("ttl");
        gate.initialize(tenant, slot, 2, Instant.now().plus(Duration.ofMinutes(30)));
        hold(slot, "a");
        for (String key : keys(slot)) {
            assertThat(jedis().pttl(key)).as(key).isBetween(Duration.ofMinutes(29).toMillis(),
                    Duration.ofMinutes(30).toMillis());
        }
        gate.reconcile(tenant, slot, 2, List.of(), Duration.ofDays(1), Instant.now().plus(Duration.ofHours(3)));
        for (String key : keys(slot)) {
            assertThat(jedis().pttl(key)).as(key).isGreaterThan(Duration.ofHours(2).toMillis());
        }
        gate.close(tenant, slot, Instant.now().plus(Duration.ofMinutes(5)));
        assertThat(jedis().exists(holdersKey(slot))).isFalse();
        assertThat(jedis().hgetAll(metaKey(slot))).isEqualTo(java.util.Map.of("", "closed"));
        assertThat(jedis().pttl(metaKey(slot))).isBetween(Duration.ofMinutes(4).toMillis(),
                Duration.ofMinutes(5).toMillis());
    }

    @Test
    void withoutKeepUntilTheSlotNeverExpires() {
        SlotId slot = SlotId.of("forever");
        gate.initialize(tenant, slot, 1, null);
        hold(slot, "a");
        for (String key : keys(slot)) {
            assertThat(jedis().pttl(key)).as(key).isEqualTo(-1L);
        }
        gate.reconcile(tenant, slot, 1, List.of(), Duration.ofDays(1), keep());
        assertThat(jedis().pttl(holdersKey(slot))).isPositive();
        gate.reconcile(tenant, slot, 1, List.of(), Duration.ofDays(1), null);
        assertThat(jedis().pttl(holdersKey(slot))).isEqualTo(-1L);
        assertThat(jedis().pttl(metaKey(slot))).isEqualTo(-1L);
    }

    @Test
    void losingEitherKeyAloneMakesTheSlotMissingUntilReconcileRebuildsIt() {
        for (int lost = 0; lost < 2; lost++) {
            SlotId slot = SlotId.of("partial-" + lost);
            gate.initialize(tenant, slot, 2, keep());
            RequestId aRequest = RequestId.of("ra");
            assertThat(hold(tenant, slot, "a", aRequest)).isEqualTo(GateDecision.HELD);
            assertThat(gate.release(tenant, slot, StudentId.of("x"), RequestId.of("rx"))).isFalse();
            jedis().del(keys(slot).get(lost));

            assertThat(hold(slot, "b")).as("lost key %d", lost).isEqualTo(GateDecision.MISSING);
            assertThat(hold(tenant, slot, "a", aRequest)).isEqualTo(GateDecision.MISSING);
            assertThat(gate.inspect(tenant, slot)).isEmpty();
            assertThat(gate.release(tenant, slot, StudentId.of("a"), RequestId.of("rz"))).isFalse();
            gate.confirm(tenant, slot, StudentId.of("a"), aRequest);
            gate.initialize(tenant, slot, 2, keep());
            assertThat(hold(slot, "b")).as("initialize leaves a partial state alone").isEqualTo(GateDecision.MISSING);

            Instant now = Instant.now().truncatedTo(ChronoUnit.MILLIS);
            GateHolder a = new GateHolder(StudentId.of("a"), aRequest, now, now.plus(TTL));
            GateHolder x = new GateHolder(StudentId.of("x"), RequestId.of("rx"), now, now.plus(TTL));
            assertThat(gate.reconcile(tenant, slot, 2, List.of(a, x), Duration.ofDays(1), keep()))
                    .as("rebuilt from the truth").isEqualTo(new GateSync(lost == 0 ? 1 : 2, 0, true));
            GateView view = gate.inspect(tenant, slot).orElseThrow();
            assertThat(view.holders()).extracting(h -> h.studentId().value())
                    .as("x's tombstone survives when the meta key does")
                    .containsExactlyInAnyOrderElementsOf(lost == 0 ? List.of("a") : List.of("a", "x"));
            assertThat(hold(tenant, slot, "a", RequestId.random())).isEqualTo(GateDecision.duplicate(aRequest));
            for (String key : keys(slot)) {
                assertThat(jedis().pttl(key)).as(key).isPositive();
            }
        }
    }

    @Test
    void reclaimRunsOnTheFullPathAndIsBoundedPerCall() {
        RedisSeatReservation small = RedisSeatReservation.builder(jedis()).keyPrefix(prefix).reclaimBatch(2).build();
        SlotId slot = SlotId.of("bounded");
        small.initialize(tenant, slot, 3, keep());
        for (int i = 0; i < 3; i++) {
            small.tryHold(tenant, slot, StudentId.of("old" + i), RequestId.random(), SHORT);
        }
        sleep(SHORT);
        for (int i = 0; i < 3; i++) {
            assertThat(small.tryHold(tenant, slot, StudentId.of("new" + i), RequestId.random(), TTL))
                    .isEqualTo(GateDecision.HELD);
        }
        assertThat(jedis().zcard(holdersKey(slot))).as("the success path reclaims nothing").isEqualTo(1 + 6);
        assertThat(small.tryHold(tenant, slot, StudentId.of("late"), RequestId.random(), TTL))
                .isEqualTo(GateDecision.FULL);
        assertThat(jedis().zcard(holdersKey(slot))).isEqualTo(1 + 4);
        assertThat(small.tryHold(tenant, slot, StudentId.of("late"), RequestId.random(), TTL))
                .isEqualTo(GateDecision.FULL);
        assertThat(jedis().zcard(holdersKey(slot))).isEqualTo(1 + 3);
        for (int i = 0; i < 3; i++) {
            assertThat(jedis().hexists(metaKey(slot), "old" + i)).isFalse();
        }
        assertThat(small.inspect(tenant, slot).orElseThrow().remaining()).isZero();
    }

    @Test
    void aStudentWhoseExpiredHoldIsStillAMemberHoldsAgainOnASlotWithMoreMembersThanSeats() {
        SlotId slot = SlotId.of("members");
        gate.initialize(tenant, slot, 2, keep());
        assertThat(gate.tryHold(tenant, slot, StudentId.of("a"), RequestId.of("a1"), SHORT)).isEqualTo(GateDecision.HELD);
        assertThat(gate.tryHold(tenant, slot, StudentId.of("b"), RequestId.of("b1"), SHORT)).isEqualTo(GateDecision.HELD);
        sleep(SHORT);
        // three members (the marker, a and b, both expired) on two seats: the exact count decides
        assertThat(hold(tenant, slot, "a", RequestId.of("a2"))).isEqualTo(GateDecision.HELD);
        assertThat(jedis().zcard(holdersKey(slot))).as("a's member was reused, b's not reclaimed").isEqualTo(1 + 2);
        assertThat(hold(tenant, slot, "a", RequestId.of("a3"))).isEqualTo(GateDecision.duplicate(RequestId.of("a2")));
        assertThat(hold(tenant, slot, "c", RequestId.of("c1"))).isEqualTo(GateDecision.HELD);
        assertThat(hold(tenant, slot, "d", RequestId.of("d1"))).isEqualTo(GateDecision.FULL);
        assertThat(jedis().zcard(holdersKey(slot))).as("the full path reclaimed b").isEqualTo(1 + 2);
        assertThat(jedis().hexists(metaKey(slot), "b")).isFalse();
        assertThat(gate.inspect(tenant, slot).orElseThrow().holders()).extracting(h -> h.requestId().value())
                .containsExactlyInAnyOrder("a2", "c1");
    }

    @Test
    void tenantsAndSlotsNeverShareKeysWhateverTheirIds() {
        TenantId t1 = TenantId.of("a:b");
        TenantId t2 = TenantId.of("a");
        SlotId s1 = SlotId.of("c");
        SlotId s2 = SlotId.of("b:c");
        TenantId t3 = TenantId.of("x}{y%3A");
        SlotId s3 = SlotId.of("{z}:%");
        gate.initialize(t1, s1, 1, keep());
        gate.initialize(t2, s2, 1, keep());
        gate.initialize(t3, s3, 1, keep());
        assertThat(hold(t1, s1, "st", RequestId.random())).isEqualTo(GateDecision.HELD);
        assertThat(hold(t2, s2, "st", RequestId.random())).isEqualTo(GateDecision.HELD);
        assertThat(hold(t3, s3, "st", RequestId.random())).isEqualTo(GateDecision.HELD);
        assertThat(hold(t1, s2, "st", RequestId.random())).isEqualTo(GateDecision.MISSING);
        assertThat(SlotKeys.keys(prefix, t1, s1)).doesNotContainAnyElementsOf(SlotKeys.keys(prefix, t2, s2));
        assertThat(SlotKeys.tag(t3, s3)).isEqualTo("{x%7D%7By%253A:%7Bz%7D%3A%25}");
        for (String key : SlotKeys.keys(prefix, t3, s3)) {
            assertThat(jedis().exists(key)).as(key).isTrue();
        }
    }

    @Test
    void survivesScriptFlush() {
        SlotId slot = SlotId.of("flush");
        gate.initialize(tenant, slot, 2, keep());
        assertThat(hold(slot, "a")).isEqualTo(GateDecision.HELD);
        flushScripts();
        RequestId b = RequestId.random();
        assertThat(hold(tenant, slot, "b", b)).isEqualTo(GateDecision.HELD);
        flushScripts();
        assertThat(gate.release(tenant, slot, StudentId.of("b"), b)).isTrue();
        flushScripts();
        assertThat(gate.inspect(tenant, slot).orElseThrow().remaining()).isEqualTo(1);
    }

    /**
     * Holds from many threads at once, on the default pipelined client path (2 lanes), one lane and
     * none: every caller gets the answer to its own call (a repeated hold names that caller's own
     * request), and read back from Redis, each slot keeps exactly the students answered HELD, never
     * more than its seats.
     */
    @ParameterizedTest(name = "pipeline lanes {0}")
    @ValueSource(ints = {2, 1, 0})
    void concurrentHoldsEachGetTheirOwnAnswerAndNeverOverfillASlot(int lanes) throws Exception {
        RedisSeatReservation lanesGate = RedisSeatReservation.builder(jedis()).keyPrefix(prefix)
                .pipelineLanes(lanes).build();
        int slots = 12;
        int seats = 4;
        int threads = 40;
        int perThread = 6;
        long seed = ThreadLocalRandom.current().nextLong();
        System.out.println("concurrentHoldsEachGetTheirOwnAnswerAndNeverOverfillASlot seed " + seed);
        for (int s = 0; s < slots; s++) {
            lanesGate.initialize(tenant, SlotId.of("c" + lanes + "-" + s), seats, keep());
        }
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        CountDownLatch start = new CountDownLatch(1);
        Map<SlotId, Set<String>> held = new ConcurrentHashMap<>();
        List<Future<List<String>>> wrong = new ArrayList<>();
        try {
            for (int t = 0; t < threads; t++) {
                int thread = t;
                wrong.add(pool.submit(() -> {
                    java.util.Random random = new java.util.Random(seed + thread);
                    List<String> mistakes = new ArrayList<>();
                    start.await();
                    for (int i = 0; i < perThread; i++) {
                        SlotId slot = SlotId.of("c" + lanes + "-" + random.nextInt(slots));
                        StudentId student = StudentId.of("s" + thread + "-" + i);
                        RequestId request = RequestId.random();
                        GateDecision first = lanesGate.tryHold(tenant, slot, student, request, TTL);
                        if (first == GateDecision.HELD) {
                            held.computeIfAbsent(slot, k -> ConcurrentHashMap.newKeySet()).add(student.value());
                            GateDecision again = lanesGate.tryHold(tenant, slot, student, RequestId.random(), TTL);
                            if (!again.equals(GateDecision.duplicate(request))) {
                                mistakes.add(student + " held under " + request + ", then answered " + again);
                            }
                        } else if (first != GateDecision.FULL) {
                            mistakes.add(student + " on " + slot + " answered " + first);
                        }
                    }
                    return mistakes;
                }));
            }
            start.countDown();
            for (Future<List<String>> mistakes : wrong) {
                assertThat(mistakes.get(60, TimeUnit.SECONDS)).isEmpty();
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(lanesGate.unavailableCount()).isZero();
        for (int s = 0; s < slots; s++) {
            SlotId slot = SlotId.of("c" + lanes + "-" + s);
            GateView view = lanesGate.inspect(tenant, slot).orElseThrow();
            Set<String> stored = new HashSet<>();
            view.holders().forEach(h -> stored.add(h.studentId().value()));
            assertThat(stored).as("holders of %s read back", slot).isEqualTo(held.getOrDefault(slot, Set.of()));
            assertThat(stored.size()).isLessThanOrEqualTo(seats);
            assertStoredHolders(jedis(), lanesGate, tenant, slot, view);
        }
        // 240 holds on 48 seats: every seat taken
        assertThat(held.values().stream().mapToInt(Set::size).sum()).isEqualTo(slots * seats);
    }

    /**
     * Confirms and releases from many threads at once, pipelined with one another (lanes 2) or not
     * (lanes 0): each acts on its own holder. Read back from Redis, a confirmed holder is pinned, a
     * released one is gone, and a second release of a request finds nothing.
     */
    @ParameterizedTest(name = "pipeline lanes {0}")
    @ValueSource(ints = {2, 0})
    void concurrentConfirmsAndReleasesEachActOnTheirOwnHolder(int lanes) throws Exception {
        RedisSeatReservation lanesGate = RedisSeatReservation.builder(jedis()).keyPrefix(prefix)
                .pipelineLanes(lanes).build();
        int slots = 4;
        int threads = 32;
        for (int s = 0; s < slots; s++) {
            lanesGate.initialize(tenant, SlotId.of("cr" + lanes + "-" + s), threads, keep());
        }
        RequestId[] requests = new RequestId[threads];
        for (int t = 0; t < threads; t++) {
            requests[t] = RequestId.random();
            assertThat(lanesGate.tryHold(tenant, SlotId.of("cr" + lanes + "-" + t % slots), StudentId.of("s" + t),
                    requests[t], TTL)).isEqualTo(GateDecision.HELD);
        }
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        CountDownLatch start = new CountDownLatch(1);
        List<Future<String>> outcomes = new ArrayList<>();
        try {
            for (int t = 0; t < threads; t++) {
                int thread = t;
                outcomes.add(pool.submit(() -> {
                    start.await();
                    SlotId slot = SlotId.of("cr" + lanes + "-" + thread % slots);
                    StudentId student = StudentId.of("s" + thread);
                    if (thread % 2 == 0) {
                        lanesGate.confirm(tenant, slot, student, requests[thread]);
                        return "confirmed";
                    }
                    boolean first = lanesGate.release(tenant, slot, student, requests[thread]);
                    boolean second = lanesGate.release(tenant, slot, student, requests[thread]);
                    return "released " + first + " " + second;
                }));
            }
            start.countDown();
            for (int t = 0; t < threads; t++) {
                assertThat(outcomes.get(t).get(60, TimeUnit.SECONDS))
                        .isEqualTo(t % 2 == 0 ? "confirmed" : "released true false");
            }
        } finally {
            pool.shutdownNow();
        }
        for (int s = 0; s < slots; s++) {
            SlotId slot = SlotId.of("cr" + lanes + "-" + s);
            GateView view = lanesGate.inspect(tenant, slot).orElseThrow();
            Map<String, GateHolder> holders = new java.util.HashMap<>();
            view.holders().forEach(h -> holders.put(h.studentId().value(), h));
            for (int t = s; t < threads; t += slots) {
                if (t % 2 == 0) {
                    assertThat(holders.get("s" + t)).as("s%d confirmed", t).isNotNull();
                    assertThat(holders.get("s" + t).pinned()).isTrue();
                    assertThat(holders.get("s" + t).requestId()).isEqualTo(requests[t]);
                } else {
                    assertThat(holders).as("s%d released", t).doesNotContainKey("s" + t);
                }
            }
            assertStoredHolders(jedis(), lanesGate, tenant, slot, view);
        }
    }

    /** Holds that go out in one pipeline to a server that forgot the script are each sent again, not lost. */
    @Test
    void concurrentHoldsRightAfterAScriptFlushAreAllAnswered() throws Exception {
        SlotId slot = SlotId.of("flush-many");
        int threads = 32;
        gate.initialize(tenant, slot, threads, keep());
        flushScripts();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        CountDownLatch start = new CountDownLatch(1);
        List<Future<GateDecision>> answers = new ArrayList<>();
        try {
            for (int t = 0; t < threads; t++) {
                String student = "f" + t;
                answers.add(pool.submit(() -> {
                    start.await();
                    return hold(slot, student);
                }));
            }
            start.countDown();
            for (Future<GateDecision> answer : answers) {
                assertThat(answer.get(60, TimeUnit.SECONDS)).isEqualTo(GateDecision.HELD);
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(gate.unavailableCount()).isZero();
        GateView view = gate.inspect(tenant, slot).orElseThrow();
        assertThat(view.holders()).hasSize(threads);
        assertThat(view.remaining()).isZero();
    }

    @Test
    void badInputIsRefusedWithTheFieldNamed() {
        SlotId slot = SlotId.of("bad");
        assertThatThrownBy(() -> gate.tryHold(null, slot, StudentId.of("a"), RequestId.random(), TTL))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("tenantId");
        assertThatThrownBy(() -> gate.tryHold(tenant, slot, StudentId.of("a"), RequestId.random(), Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("ttl");
        assertThatThrownBy(() -> gate.initialize(tenant, slot, -1, keep()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("capacity").hasMessageContaining("-1");
        assertThatThrownBy(() -> RedisSeatReservation.builder(jedis()).keyPrefix("a{b}"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("keyPrefix");
        assertThatThrownBy(() -> RedisSeatReservation.builder(jedis()).reclaimBatch(0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("reclaimBatch");
        assertThatThrownBy(() -> gate.reconcile(tenant, slot, 1, null, Duration.ZERO, keep()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("truth");
    }
}
