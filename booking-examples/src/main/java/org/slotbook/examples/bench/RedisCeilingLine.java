package org.slotbook.examples.bench;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.slotbook.core.RequestId;
import org.slotbook.core.SlotId;
import org.slotbook.core.StudentId;
import org.slotbook.core.TenantId;
import org.slotbook.redis.RedisSeatReservation;
import org.slotbook.redis.internal.GateScripts;
import redis.clients.jedis.UnifiedJedis;

/**
 * The Redis ceiling: a plain Jedis {@code EVALSHA} of the gate's own {@code hold.lua} per request,
 * from the same threads as the gated line. The slots' state is made by a gate of the run's own key
 * prefix, and each call takes its keys and arguments from that gate ({@code keys},
 * {@code holdArgs}), so the loop sends exactly what the gate would, whatever the script's layout.
 */
public final class RedisCeilingLine {
    public static final String NAME = "ceiling: Jedis EVALSHA hold.lua";
    /** The backend column of the line. */
    static final String BACKEND = "Redis";
    /** The tenant of the line's slots. */
    static final TenantId TENANT = TenantId.of("ceiling");
    /** How long the slots' keys and holds live. */
    private static final Duration KEEP = Duration.ofMinutes(10);

    private final UnifiedJedis redis;
    private final String keyPrefix;

    /** A line whose keys all begin with {@code keyPrefix}: give it one under the run's own prefix. */
    RedisCeilingLine(UnifiedJedis redis, String keyPrefix) {
        this.redis = redis;
        this.keyPrefix = keyPrefix;
    }

    /** The key prefix of one workload's slots. */
    String keyPrefix(Workload w) {
        return keyPrefix + w.tag() + "-" + w.name() + ":";
    }

    /** The {@code i}-th slot of a workload. */
    static SlotId slot(int i) {
        return SlotId.of("s" + i);
    }

    /** The workload's slots initialized in the gate's keys, ready to be measured in turns. */
    Turns prepare(Workload w) {
        String prefix = keyPrefix(w);
        RedisSeatReservation gate = RedisSeatReservation.builder(redis).keyPrefix(prefix).build();
        List<List<String>> keys = new ArrayList<>(w.slots());
        for (int i = 0; i < w.slots(); i++) {
            gate.initialize(TENANT, slot(i), w.seats(), Instant.now().plus(KEEP));
            keys.add(gate.keys(TENANT, slot(i)));
        }
        int[] pick = w.picks(prefix.hashCode());
        return new Turns() {
            @Override
            public Measured run(int from, int to) throws Exception {
                // loaded again right before each turn: another client may have flushed the script cache
                String sha = redis.scriptLoad(GateScripts.HOLD.body());
                return LoadDriver.threads(w.threads()).requests(from, to, (thread, i) -> "H".equals(
                        redis.evalsha(sha, keys.get(pick[i]), gate.holdArgs(StudentId.of("student-" + i),
                                RequestId.of("r" + i), KEEP))));
            }

            @Override
            public Result finish(Measured all) {
                return all.result(w.name(), NAME, BACKEND, w.threads(), null, null, "");
            }
        };
    }
}
