package org.slotbook.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slotbook.core.RequestId;
import org.slotbook.core.SlotId;
import org.slotbook.core.StudentId;
import org.slotbook.core.TenantId;
import org.slotbook.core.spi.GateDecision;
import org.slotbook.core.spi.GateHolder;
import org.slotbook.core.spi.GateOutcome;
import org.slotbook.core.spi.GateSync;
import org.slotbook.core.spi.GateView;
import org.slotbook.core.tck.MutableClock;
import org.slotbook.redis.internal.SlotKeys;
import redis.clients.jedis.UnifiedJedis;

/**
 * What the Redis gate does beyond the shared contract: its scripts, keys, expiry and reclaim, run
 * against a real server (standalone or cluster, per subclass). Each test uses its own key prefix.
 */
abstract class AbstractRedisGateTest {
    static final Duration TTL = Duration.ofMinutes(10);

    protected abstract UnifiedJedis jedis();

    /** Runs SCRIPT FLUSH on every server behind {@link #jedis()}. */
    protected abstract void flushScripts();

    MutableClock clock;
    String prefix;
    RedisSeatReservation gate;
    TenantId tenant;

    @BeforeEach
    void freshGate() {
        clock = new MutableClock();
        prefix = org.slotbook.redis.support.TestRedis.freshPrefix(getClass().getSimpleName());
        gate = RedisSeatReservation.builder(jedis()).keyPrefix(prefix).build();
        tenant = TenantId.of("t-" + Long.toHexString(ThreadLocalRandom.current().nextLong()));
    }

    Instant now() {
        return clock.instant();
    }

    Instant keep() {
        return now().plus(Duration.ofHours(2));
    }

    GateDecision hold(SlotId slot, String student) {
        return hold(tenant, slot, student, RequestId.random());
    }

    GateDecision hold(TenantId t, SlotId slot, String student, RequestId request) {
        return gate.tryHold(t, slot, StudentId.of(student), request, now(), now().plus(TTL));
    }

    int remaining(SlotId slot) {
        return gate.inspect(tenant, slot, now()).orElseThrow().remaining();
    }

    List<String> keys(SlotId slot) {
        return SlotKeys.keys(prefix, tenant, slot);
    }

    @Test
    void holdsUntilFullThenRefuses() {
        SlotId slot = SlotId.of("s1");
        gate.initialize(tenant, slot, 3, keep());
        assertThat(hold(slot, "a")).isEqualTo(GateDecision.HELD);
        assertThat(hold(slot, "b")).isEqualTo(GateDecision.HELD);
        assertThat(hold(slot, "c")).isEqualTo(GateDecision.HELD);
        assertThat(hold(slot, "d")).isEqualTo(GateDecision.FULL);
        GateView view = gate.inspect(tenant, slot, now()).orElseThrow();
        assertThat(view.capacity()).isEqualTo(3);
        assertThat(view.remaining()).isZero();
        assertThat(view.holders()).extracting(h -> h.studentId().value()).containsExactlyInAnyOrder("a", "b", "c");
        assertThat(view.holders()).allSatisfy(h -> {
            assertThat(h.expiresAt()).isEqualTo(now().plus(TTL));
            assertThat(h.takenAt()).isEqualTo(now());
        });
    }

    @Test
    void slotWithoutStateIsMissing() {
        assertThat(hold(SlotId.of("never"), "a")).isEqualTo(GateDecision.MISSING);
        assertThat(gate.inspect(tenant, SlotId.of("never"), now())).isEmpty();
        assertThat(jedis().exists(keys(SlotId.of("never")).get(1))).isFalse();
    }

    @Test
    void duplicateNamesTheRequestTheSeatIsHeldUnder() {
        SlotId slot = SlotId.of("dup");
        gate.initialize(tenant, slot, 5, keep());
        RequestId first = RequestId.of("req|with|bars:{x}");
        assertThat(hold(tenant, slot, "a", first)).isEqualTo(GateDecision.HELD);
        assertThat(hold(tenant, slot, "a", first)).isEqualTo(GateDecision.duplicate(first));
        assertThat(hold(tenant, slot, "a", RequestId.of("other"))).isEqualTo(GateDecision.duplicate(first));
        assertThat(remaining(slot)).isEqualTo(4);
    }

    @Test
    void releaseIsIdempotentAndGivesTheSeatBack() {
        SlotId slot = SlotId.of("rel");
        gate.initialize(tenant, slot, 1, keep());
        assertThat(hold(slot, "a")).isEqualTo(GateDecision.HELD);
        assertThat(hold(slot, "b")).isEqualTo(GateDecision.FULL);
        assertThat(gate.release(tenant, slot, StudentId.of("a"))).isTrue();
        assertThat(gate.release(tenant, slot, StudentId.of("a"))).isFalse();
        assertThat(gate.release(tenant, SlotId.of("no-such-slot"), StudentId.of("a"))).isFalse();
        assertThat(remaining(slot)).isEqualTo(1);
        assertThat(hold(slot, "b")).isEqualTo(GateDecision.HELD);
        assertThat(jedis().hexists(keys(slot).get(2), "a")).isFalse();
    }

    @Test
    void confirmPinsTheHolder() {
        SlotId slot = SlotId.of("pin");
        gate.initialize(tenant, slot, 1, keep());
        assertThat(hold(slot, "a")).isEqualTo(GateDecision.HELD);
        gate.confirm(tenant, slot, StudentId.of("a"));
        gate.confirm(tenant, slot, StudentId.of("nobody"));
        clock.advance(TTL.multipliedBy(3));
        assertThat(hold(slot, "b")).isEqualTo(GateDecision.FULL);
        GateHolder holder = gate.inspect(tenant, slot, now()).orElseThrow().holders().get(0);
        assertThat(holder.pinned()).isTrue();
        assertThat(holder.studentId()).isEqualTo(StudentId.of("a"));
        assertThat(jedis().zcard(keys(slot).get(1))).isEqualTo(1);
    }

    @Test
    void initializeNeverOverwrites() {
        SlotId slot = SlotId.of("init");
        gate.initialize(tenant, slot, 2, keep());
        hold(slot, "a");
        hold(slot, "b");
        gate.initialize(tenant, slot, 5, keep());
        assertThat(hold(slot, "c")).isEqualTo(GateDecision.FULL);
        assertThat(gate.inspect(tenant, slot, now()).orElseThrow().capacity()).isEqualTo(2);

        SlotId zero = SlotId.of("zero");
        gate.initialize(tenant, zero, 0, keep());
        gate.initialize(tenant, zero, 9, keep());
        assertThat(hold(zero, "a")).isEqualTo(GateDecision.FULL);
    }

    @Test
    void slotKeysExpireAtKeepUntil() {
        SlotId slot = SlotId.of("ttl");
        gate.initialize(tenant, slot, 2, Instant.now().plus(Duration.ofMinutes(30)));
        hold(slot, "a");
        for (String key : keys(slot)) {
            assertThat(jedis().pttl(key)).as(key).isBetween(Duration.ofMinutes(29).toMillis(),
                    Duration.ofMinutes(30).toMillis());
        }
        gate.reconcile(tenant, slot, 2, List.of(), now(), now(), Instant.now().plus(Duration.ofHours(3)));
        assertThat(jedis().pttl(keys(slot).get(0))).isGreaterThan(Duration.ofHours(2).toMillis());
        assertThat(jedis().pttl(keys(slot).get(1))).isGreaterThan(Duration.ofHours(2).toMillis());
    }

    @Test
    void clearDropsTheSlot() {
        SlotId slot = SlotId.of("clear");
        gate.initialize(tenant, slot, 2, keep());
        hold(slot, "a");
        gate.clear(tenant, slot);
        assertThat(gate.inspect(tenant, slot, now())).isEmpty();
        assertThat(hold(slot, "a")).isEqualTo(GateDecision.MISSING);
        for (String key : keys(slot)) {
            assertThat(jedis().exists(key)).isFalse();
        }
    }

    @Test
    void abandonedHoldIsReclaimedByTheNextHoldWithoutSweeper() {
        SlotId slot = SlotId.of("abandoned");
        gate.initialize(tenant, slot, 1, keep());
        assertThat(gate.tryHold(tenant, slot, StudentId.of("a"), RequestId.random(), now(),
                now().plusSeconds(30))).isEqualTo(GateDecision.HELD);
        clock.advance(Duration.ofSeconds(29));
        assertThat(hold(slot, "b")).isEqualTo(GateDecision.FULL);
        clock.advance(Duration.ofSeconds(1));
        // expiresAt is exclusive: at exactly expiresAt the hold is over
        assertThat(hold(slot, "b")).isEqualTo(GateDecision.HELD);
        assertThat(jedis().zrange(keys(slot).get(1), 0, -1)).containsExactly("b");
        assertThat(jedis().hexists(keys(slot).get(2), "a")).isFalse();
        assertThat(gate.release(tenant, slot, StudentId.of("a"))).isFalse();
        assertThat(remaining(slot)).isZero();
    }

    @Test
    void studentWhoseHoldExpiredMayHoldAgain() {
        SlotId slot = SlotId.of("again");
        gate.initialize(tenant, slot, 1, keep());
        gate.tryHold(tenant, slot, StudentId.of("a"), RequestId.of("r1"), now(), now().plusSeconds(5));
        clock.advance(Duration.ofSeconds(6));
        assertThat(hold(tenant, slot, "a", RequestId.of("r2"))).isEqualTo(GateDecision.HELD);
        assertThat(hold(tenant, slot, "a", RequestId.of("r3"))).isEqualTo(GateDecision.duplicate(RequestId.of("r2")));
    }

    @Test
    void reclaimIsBoundedPerCallButCountingIsExact() {
        RedisSeatReservation small = RedisSeatReservation.builder(jedis()).keyPrefix(prefix).reclaimBatch(2).build();
        SlotId slot = SlotId.of("bounded");
        small.initialize(tenant, slot, 10, keep());
        for (int i = 0; i < 10; i++) {
            small.tryHold(tenant, slot, StudentId.of("old" + i), RequestId.random(), now(), now().plusSeconds(1));
        }
        clock.advance(Duration.ofSeconds(2));
        assertThat(small.tryHold(tenant, slot, StudentId.of("new"), RequestId.random(), now(), now().plus(TTL)))
                .isEqualTo(GateDecision.HELD);
        assertThat(jedis().zcard(keys(slot).get(1))).isEqualTo(10 - 2 + 1);
        assertThat(small.inspect(tenant, slot, now()).orElseThrow().remaining()).isEqualTo(9);
        for (int i = 0; i < 9; i++) {
            assertThat(small.tryHold(tenant, slot, StudentId.of("more" + i), RequestId.random(), now(),
                    now().plus(TTL))).isEqualTo(GateDecision.HELD);
        }
        assertThat(small.tryHold(tenant, slot, StudentId.of("last"), RequestId.random(), now(), now().plus(TTL)))
                .isEqualTo(GateDecision.FULL);
    }

    @Test
    void releaseRacingReclaimGivesTheSeatBackOnce() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            for (int round = 0; round < 100; round++) {
                SlotId slot = SlotId.of("race-" + round);
                gate.initialize(tenant, slot, 1, keep());
                Instant start = now();
                gate.tryHold(tenant, slot, StudentId.of("a"), RequestId.random(), start, start.plusSeconds(1));
                Instant later = start.plusSeconds(2);
                CountDownLatch go = new CountDownLatch(1);
                Future<Boolean> release = pool.submit(() -> {
                    go.await();
                    return gate.release(tenant, slot, StudentId.of("a"));
                });
                Future<GateDecision> reclaim = pool.submit(() -> {
                    go.await();
                    return gate.tryHold(tenant, slot, StudentId.of("b"), RequestId.random(), later,
                            later.plus(TTL));
                });
                go.countDown();
                release.get(10, TimeUnit.SECONDS);
                assertThat(reclaim.get(10, TimeUnit.SECONDS)).isEqualTo(GateDecision.HELD);
                assertThat(gate.release(tenant, slot, StudentId.of("a"))).isFalse();
                GateView view = gate.inspect(tenant, slot, later).orElseThrow();
                assertThat(view.holders()).extracting(GateHolder::studentId).containsExactly(StudentId.of("b"));
                assertThat(view.remaining()).isZero();
                assertThat(jedis().zcard(keys(slot).get(1))).isEqualTo(1);
                assertThat(gate.release(tenant, slot, StudentId.of("b"))).isTrue();
                assertThat(gate.inspect(tenant, slot, later).orElseThrow().remaining()).isEqualTo(1);
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void reconcileConvergesToTheTruth() {
        SlotId slot = SlotId.of("recon");
        gate.initialize(tenant, slot, 3, keep());
        Instant t0 = now();
        hold(slot, "stale");
        clock.advance(Duration.ofMinutes(2));
        hold(slot, "young");
        clock.advance(Duration.ofSeconds(10));
        Instant cutoff = now().minus(Duration.ofMinutes(1));
        List<GateHolder> truth = List.of(
                new GateHolder(StudentId.of("db1"), RequestId.of("r-db1"), t0, now().plus(TTL)),
                new GateHolder(StudentId.of("db2"), RequestId.of("r-db2"), t0, null),
                new GateHolder(StudentId.of("gone"), RequestId.of("r-gone"), t0, now().minusSeconds(1)));
        GateSync sync = gate.reconcile(tenant, slot, 4, truth, now(), cutoff, keep());
        assertThat(sync).isEqualTo(new GateSync(2, 1, true));
        GateView view = gate.inspect(tenant, slot, now()).orElseThrow();
        assertThat(view.capacity()).isEqualTo(4);
        assertThat(view.holders()).extracting(h -> h.studentId().value())
                .containsExactlyInAnyOrder("db1", "db2", "young");
        GateHolder db2 = view.holders().stream().filter(h -> h.studentId().value().equals("db2")).findFirst()
                .orElseThrow();
        assertThat(db2.pinned()).isTrue();
        assertThat(db2.requestId()).isEqualTo(RequestId.of("r-db2"));
        assertThat(db2.takenAt()).isEqualTo(t0);
        assertThat(hold(slot, "db1")).isEqualTo(GateDecision.duplicate(RequestId.of("r-db1")));

        // converged: a second run changes nothing
        assertThat(gate.reconcile(tenant, slot, 4, truth.subList(0, 2), now(), now().minus(Duration.ofDays(1)),
                keep())).isEqualTo(new GateSync(0, 0, false));
    }

    @Test
    void reconcileRebuildsAMissingSlotAndAppliesTheTruthsExpiry() {
        SlotId slot = SlotId.of("rebuild");
        List<GateHolder> truth = List.of(
                new GateHolder(StudentId.of("a"), RequestId.of("ra"), now(), now().plus(TTL)));
        assertThat(gate.reconcile(tenant, slot, 2, truth, now(), now(), keep())).isEqualTo(new GateSync(1, 0, true));
        assertThat(hold(slot, "b")).isEqualTo(GateDecision.HELD);
        assertThat(hold(slot, "c")).isEqualTo(GateDecision.FULL);

        // the ledger confirmed a: the truth pins it
        List<GateHolder> confirmed = List.of(
                new GateHolder(StudentId.of("a"), RequestId.of("ra"), now(), null),
                new GateHolder(StudentId.of("b"), RequestId.of("rb"), now(), now().plusSeconds(5)));
        assertThat(gate.reconcile(tenant, slot, 2, confirmed, now(), now().minus(Duration.ofHours(1)), keep()))
                .isEqualTo(new GateSync(0, 0, false));
        clock.advance(Duration.ofSeconds(5));
        GateView view = gate.inspect(tenant, slot, now()).orElseThrow();
        assertThat(view.holders()).extracting(h -> h.studentId().value()).containsExactly("a");
        assertThat(view.holders().get(0).pinned()).isTrue();
        assertThat(hold(slot, "c")).isEqualTo(GateDecision.HELD);
    }

    @Test
    void withoutKeepUntilTheSlotNeverExpires() {
        SlotId slot = SlotId.of("forever");
        gate.initialize(tenant, slot, 1, null);
        hold(slot, "a");
        for (String key : keys(slot)) {
            assertThat(jedis().pttl(key)).as(key).isEqualTo(-1L);
        }
        gate.reconcile(tenant, slot, 1, List.of(), now(), now(), keep());
        assertThat(jedis().pttl(keys(slot).get(0))).isPositive();
        gate.reconcile(tenant, slot, 1, List.of(), now(), now(), null);
        assertThat(jedis().pttl(keys(slot).get(0))).isEqualTo(-1L);
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
        assertThat(hold(slot, "b")).isEqualTo(GateDecision.HELD);
        flushScripts();
        assertThat(gate.release(tenant, slot, StudentId.of("b"))).isTrue();
        flushScripts();
        assertThat(gate.inspect(tenant, slot, now()).orElseThrow().remaining()).isEqualTo(1);
    }

    @Test
    void concurrentHoldsNeverOversell() throws Exception {
        long seed = System.nanoTime();
        System.out.println(getClass().getSimpleName() + ".concurrentHoldsNeverOversell seed=" + seed);
        java.util.Random random = new java.util.Random(seed);
        int slots = 4;
        int[] capacity = new int[slots];
        for (int i = 0; i < slots; i++) {
            capacity[i] = 1 + random.nextInt(20);
            gate.initialize(tenant, SlotId.of("fuzz-" + i), capacity[i], keep());
        }
        int threads = 16;
        int perThread = 150;
        ConcurrentHashMap<String, Boolean> heldBy = new ConcurrentHashMap<>();
        AtomicInteger[] held = new AtomicInteger[slots];
        for (int i = 0; i < slots; i++) {
            held[i] = new AtomicInteger();
        }
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Callable<Void>> work = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                long threadSeed = random.nextLong();
                work.add(() -> {
                    java.util.Random r = new java.util.Random(threadSeed);
                    for (int i = 0; i < perThread; i++) {
                        int s = r.nextInt(slots);
                        String student = "st" + r.nextInt(400);
                        SlotId slot = SlotId.of("fuzz-" + s);
                        GateDecision d = hold(tenant, slot, student, RequestId.random());
                        if (d.outcome() == GateOutcome.HELD) {
                            assertThat(heldBy.putIfAbsent(s + "/" + student, true)).isNull();
                            held[s].incrementAndGet();
                            if (r.nextInt(4) == 0 && gate.release(tenant, slot, StudentId.of(student))) {
                                heldBy.remove(s + "/" + student);
                                held[s].decrementAndGet();
                            }
                        }
                    }
                    return null;
                });
            }
            for (Future<Void> f : pool.invokeAll(work)) {
                f.get();
            }
        } finally {
            pool.shutdownNow();
        }
        for (int i = 0; i < slots; i++) {
            GateView view = gate.inspect(tenant, SlotId.of("fuzz-" + i), now()).orElseThrow();
            assertThat(view.holders().size()).as("slot %d, seed %d", i, seed).isLessThanOrEqualTo(capacity[i]);
            assertThat(view.holders().size()).as("slot %d, seed %d", i, seed).isEqualTo(held[i].get());
            assertThat(jedis().zcard(keys(SlotId.of("fuzz-" + i)).get(1))).isEqualTo(held[i].get());
            String slotPrefix = i + "/";
            Set<String> holders = new java.util.HashSet<>();
            view.holders().forEach(h -> holders.add(slotPrefix + h.studentId().value()));
            assertThat(heldBy.keySet().stream().filter(k -> k.startsWith(slotPrefix)))
                    .containsExactlyInAnyOrderElementsOf(holders);
        }
    }

    @Test
    void aSubMillisecondExpiryIsRoundedUpNeverDown() {
        SlotId slot = SlotId.of("micros");
        gate.initialize(tenant, slot, 1, keep());
        Instant at = now();
        assertThat(gate.tryHold(tenant, slot, StudentId.of("a"), RequestId.random(), at, at.plusNanos(500_000)))
                .isEqualTo(GateDecision.HELD);
        assertThat(gate.inspect(tenant, slot, at).orElseThrow().holders()).hasSize(1);
        assertThat(gate.inspect(tenant, slot, at.plusMillis(1)).orElseThrow().holders()).isEmpty();
    }

    @Test
    void badInputIsRefusedWithTheFieldNamed() {
        SlotId slot = SlotId.of("bad");
        assertThatThrownBy(() -> gate.tryHold(null, slot, StudentId.of("a"), RequestId.random(), now(), keep()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("tenantId");
        assertThatThrownBy(() -> gate.tryHold(tenant, slot, StudentId.of("a"), RequestId.random(), now(), now()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("expiresAt");
        assertThatThrownBy(() -> gate.initialize(tenant, slot, -1, keep()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("capacity").hasMessageContaining("-1");
        assertThatThrownBy(() -> RedisSeatReservation.builder(jedis()).keyPrefix("a{b}"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("keyPrefix");
        assertThatThrownBy(() -> RedisSeatReservation.builder(jedis()).reclaimBatch(0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("reclaimBatch");
        assertThatThrownBy(() -> gate.reconcile(tenant, slot, 1, null, now(), now(), keep()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("truth");
    }
}
