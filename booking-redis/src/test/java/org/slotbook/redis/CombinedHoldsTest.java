package org.slotbook.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.slotbook.core.RequestId;
import org.slotbook.core.SlotId;
import org.slotbook.core.StudentId;
import org.slotbook.core.TenantId;
import org.slotbook.core.spi.GateDecision;
import org.slotbook.core.spi.GateHolder;
import org.slotbook.core.spi.GateOutcome;
import org.slotbook.core.spi.GateView;
import org.slotbook.redis.internal.GateScripts;
import org.slotbook.redis.support.JedisClients;
import org.slotbook.redis.support.TestRedis;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.RedisProtocol;
import redis.clients.jedis.UnifiedJedis;

/**
 * The holds a pipeline carries go to Redis as one call of {@code hold.lua}. Each is answered as it
 * would be alone, whatever the state of its slot, and a hold that fails takes none of the others with
 * it. Holds queue behind a lane that Redis keeps busy, so that they leave together; the server's
 * count of {@code EVALSHA} calls shows that they went as one. Read back from Redis afterwards.
 */
class CombinedHoldsTest {
    private static final TenantId TENANT = TenantId.of("t");
    private static final Duration TTL = Duration.ofMinutes(10);
    /** Keeps Redis busy for about {@code ARGV[1]} ms: every call of the gate waits behind it. */
    private static final String BUSY = "local t = redis.call('TIME') local until_ = t[1] * 1000000 + t[2] + ARGV[1] * 1000 "
            + "repeat t = redis.call('TIME') until t[1] * 1000000 + t[2] >= until_ return 1";

    @ParameterizedTest
    @EnumSource(RedisProtocol.class)
    void holdsSentAsOneCallAreEachAnsweredAsAlone(RedisProtocol protocol) throws Exception {
        try (UnifiedJedis client = client(protocol, 8);
             UnifiedJedis other = TestRedis.client(TestRedis.standalone())) {
            RedisSeatReservation gate = RedisSeatReservation.builder(client)
                    .keyPrefix(TestRedis.freshPrefix("combined-" + protocol)).pipelineLanes(1).build();
            Instant keep = Instant.now().plus(Duration.ofHours(1));
            SlotId open = SlotId.of("open");
            SlotId full = SlotId.of("full");
            SlotId closed = SlotId.of("closed");
            SlotId later = SlotId.of("later");
            SlotId broken = SlotId.of("broken");
            SlotId lead = SlotId.of("lead");
            SlotId last = SlotId.of("last");
            gate.initialize(TENANT, open, 3, keep);
            gate.initialize(TENANT, full, 1, keep);
            gate.initialize(TENANT, closed, 2, keep);
            gate.close(TENANT, closed, keep);
            Instant opens = Instant.now().plus(Duration.ofHours(2)).truncatedTo(ChronoUnit.MICROS);
            gate.initialize(TENANT, later, 2, opens, keep);
            gate.initialize(TENANT, broken, 2, keep);
            gate.initialize(TENANT, lead, 1, keep);
            gate.initialize(TENANT, last, 1, keep);
            assertThat(gate.tryHold(TENANT, full, StudentId.of("x"), RequestId.of("rx"), TTL)).isEqualTo(GateDecision.HELD);
            assertThat(gate.tryHold(TENANT, open, StudentId.of("a"), RequestId.of("ra"), TTL)).isEqualTo(GateDecision.HELD);
            // a holders key of the wrong type: the hold on this slot fails, and only that one
            String brokenHolders = gate.keys(TENANT, broken).get(0);
            other.del(brokenHolders);
            other.set(brokenHolders, "not a sorted set");

            // student -> slot, request, the answer it gets alone
            Map<String, Object[]> holds = new LinkedHashMap<>();
            holds.put("b", new Object[] {open, "rb", GateDecision.HELD});
            holds.put("c", new Object[] {open, "rc", GateDecision.HELD});
            holds.put("a", new Object[] {open, "ra2", GateDecision.duplicate(RequestId.of("ra"))});
            holds.put("y", new Object[] {full, "ry", GateDecision.FULL});
            holds.put("z", new Object[] {closed, "rz", GateDecision.CLOSED});
            holds.put("w", new Object[] {later, "rw", GateDecision.notOpen(opens)});
            holds.put("v", new Object[] {SlotId.of("none"), "rv", GateDecision.MISSING});
            holds.put("u", new Object[] {broken, "ru", null});
            // two students for the last seat: whichever the call takes first gets it
            holds.put("p", new Object[] {last, "rp", null});
            holds.put("q", new Object[] {last, "rq", null});

            long evalshaBefore = evalshaCalls(other);
            ExecutorService pool = Executors.newFixedThreadPool(holds.size() + 2);
            try {
                // Redis busy for 1.5 s; the first hold takes the lane and waits behind it, the others queue
                Future<Object> busy = pool.submit(() -> other.eval(BUSY, 0, "1500"));
                Thread.sleep(200);
                Future<GateDecision> first = pool.submit(() -> gate.tryHold(TENANT, lead, StudentId.of("l"),
                        RequestId.of("rl"), TTL));
                Thread.sleep(200);
                CountDownLatch queued = new CountDownLatch(holds.size());
                Map<String, Future<GateDecision>> answers = new LinkedHashMap<>();
                for (Map.Entry<String, Object[]> h : holds.entrySet()) {
                    answers.put(h.getKey(), pool.submit(() -> {
                        queued.countDown();
                        return gate.tryHold(TENANT, (SlotId) h.getValue()[0], StudentId.of(h.getKey()),
                                RequestId.of((String) h.getValue()[1]), TTL);
                    }));
                }
                assertThat(queued.await(5, TimeUnit.SECONDS)).isTrue();
                assertThat(busy.get(10, TimeUnit.SECONDS)).isEqualTo(1L);
                assertThat(first.get(10, TimeUnit.SECONDS)).isEqualTo(GateDecision.HELD);
                List<String> heldOnOpen = new ArrayList<>();
                List<GateDecision> onLast = new ArrayList<>();
                for (Map.Entry<String, Future<GateDecision>> a : answers.entrySet()) {
                    GateDecision decision = a.getValue().get(10, TimeUnit.SECONDS);
                    Object expected = holds.get(a.getKey())[2];
                    if (a.getKey().equals("u")) {
                        assertThat(decision.outcome()).as("the hold on the broken slot").isEqualTo(GateOutcome.UNAVAILABLE);
                    } else if (holds.get(a.getKey())[0].equals(last)) {
                        onLast.add(decision);
                    } else {
                        assertThat(decision).as("student %s", a.getKey()).isEqualTo(expected);
                    }
                    if (decision.outcome() == GateOutcome.HELD && holds.get(a.getKey())[0].equals(open)) {
                        heldOnOpen.add(a.getKey());
                    }
                }
                assertThat(heldOnOpen).containsExactlyInAnyOrder("b", "c");
                assertThat(onLast).containsExactlyInAnyOrder(GateDecision.HELD, GateDecision.FULL);
            } finally {
                pool.shutdownNow();
            }
            // the lead hold, then the ten queued ones in one call
            assertThat(evalshaCalls(other) - evalshaBefore).isEqualTo(2);
            assertThat(gate.unavailableCount()).isEqualTo(1);

            GateView openView = gate.inspect(TENANT, open).orElseThrow();
            assertThat(openView.capacity()).isEqualTo(3);
            assertThat(openView.holders()).extracting(h -> h.studentId().value()).containsExactlyInAnyOrder("a", "b", "c");
            assertThat(openView.holders()).extracting(GateHolder::requestId)
                    .containsExactlyInAnyOrder(RequestId.of("ra"), RequestId.of("rb"), RequestId.of("rc"));
            RedisGateTests.assertStoredHolders(other, gate, TENANT, open, openView);
            assertThat(gate.inspect(TENANT, full).orElseThrow().holders()).extracting(h -> h.studentId().value())
                    .containsExactly("x");
            assertThat(gate.inspect(TENANT, later).orElseThrow().holders()).isEmpty();
            GateView lastView = gate.inspect(TENANT, last).orElseThrow();
            assertThat(lastView.holders()).hasSize(1);
            RedisGateTests.assertStoredHolders(other, gate, TENANT, last, lastView);
            assertThat(gate.inspect(TENANT, SlotId.of("none"))).isEmpty();
            assertThat(other.get(brokenHolders)).isEqualTo("not a sorted set");
        }
    }

    /**
     * In one call, a slot found full stays full: the later holds there read only their student's record
     * (a live one answers its request id), and the server counts the slot's live holders once.
     */
    @ParameterizedTest
    @EnumSource(RedisProtocol.class)
    void aSlotFoundFullInACallIsNotCountedAgainInIt(RedisProtocol protocol) {
        try (UnifiedJedis client = client(protocol, 2)) {
            RedisSeatReservation gate = RedisSeatReservation.builder(client)
                    .keyPrefix(TestRedis.freshPrefix("full-once-" + protocol)).build();
            SlotId full = SlotId.of("full");
            SlotId open = SlotId.of("open");
            Instant keep = Instant.now().plus(Duration.ofHours(1));
            gate.initialize(TENANT, full, 1, keep);
            gate.initialize(TENANT, open, 5, keep);
            assertThat(gate.tryHold(TENANT, full, StudentId.of("x"), RequestId.of("rx"), TTL)).isEqualTo(GateDecision.HELD);
            // y, x again, z on the full slot, w on the open one, in that order in one call
            String[][] holds = {{"y", "ry", "full"}, {"x", "rx2", "full"}, {"z", "rz", "full"}, {"w", "rw", "open"}};
            List<byte[]> keys = new ArrayList<>();
            List<byte[]> args = new ArrayList<>();
            for (String[] h : holds) {
                for (String key : gate.keys(TENANT, SlotId.of(h[2]))) {
                    keys.add(key.getBytes(StandardCharsets.UTF_8));
                }
                for (String arg : gate.holdArgs(StudentId.of(h[0]), RequestId.of(h[1]), TTL)) {
                    args.add(arg.getBytes(StandardCharsets.UTF_8));
                }
            }
            keys.addAll(args);
            long zcountBefore = calls(client, "zcount");
            Object reply = client.evalsha(GateScripts.HOLD.shaBytes(), holds.length * 2, keys.toArray(byte[][]::new));
            assertThat(calls(client, "zcount") - zcountBefore).as("live holders counted").isEqualTo(1);
            assertThat(reply).isInstanceOf(List.class);
            List<String> answers = new ArrayList<>();
            for (Object one : (List<?>) reply) {
                answers.add(new String((byte[]) one, StandardCharsets.UTF_8));
            }
            assertThat(answers).containsExactly("F", "Drx", "F", "H");
            assertThat(gate.inspect(TENANT, full).orElseThrow().holders()).extracting(h -> h.requestId().value())
                    .containsExactly("rx");
            assertThat(gate.inspect(TENANT, open).orElseThrow().holders()).extracting(h -> h.requestId().value())
                    .containsExactly("rw");
        }
    }

    /** A client of the standalone server speaking {@code protocol}, its socket timeout above the busy script's time. */
    private static UnifiedJedis client(RedisProtocol protocol, int pool) {
        return JedisClients.standalone(TestRedis.standalone(), DefaultJedisClientConfig.builder().protocol(protocol)
                .connectionTimeoutMillis(500).socketTimeoutMillis(5000).build(), TestRedis.poolConfig(pool));
    }

    private static long evalshaCalls(UnifiedJedis redis) {
        return calls(redis, "evalsha");
    }

    /** How many times the server ran {@code command} since its statistics were last reset. */
    private static long calls(UnifiedJedis redis, String command) {
        String prefix = "cmdstat_" + command + ":calls=";
        for (String line : redis.info("commandstats").split("\r\n")) {
            if (line.startsWith(prefix)) {
                return Long.parseLong(line.substring(prefix.length(), line.indexOf(',')));
            }
        }
        return 0;
    }
}
