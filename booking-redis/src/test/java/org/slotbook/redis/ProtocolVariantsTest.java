package org.slotbook.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.slotbook.core.RequestId;
import org.slotbook.core.SlotId;
import org.slotbook.core.StudentId;
import org.slotbook.core.TenantId;
import org.slotbook.core.spi.GateDecision;
import org.slotbook.core.spi.GateHolder;
import org.slotbook.core.spi.GateSync;
import org.slotbook.core.spi.GateView;
import org.slotbook.redis.support.JedisClients;
import org.slotbook.redis.support.TestRedis;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.RedisProtocol;
import redis.clients.jedis.UnifiedJedis;

/** Script replies decode the same whether the client speaks RESP2 or RESP3. */
class ProtocolVariantsTest {

    @ParameterizedTest
    @EnumSource(RedisProtocol.class)
    void everyScriptReplyDecodes(RedisProtocol protocol) {
        try (UnifiedJedis client = JedisClients.standalone(TestRedis.standalone(),
                DefaultJedisClientConfig.builder().protocol(protocol).connectionTimeoutMillis(500)
                        .socketTimeoutMillis(1000).build(), TestRedis.poolConfig(8))) {
            RedisSeatReservation gate = RedisSeatReservation.builder(client)
                    .keyPrefix(TestRedis.freshPrefix("protocol-" + protocol)).build();
            TenantId tenant = TenantId.of("t");
            SlotId slot = SlotId.of("s");
            Instant now = Instant.now();
            Duration ttl = Duration.ofMinutes(10);
            gate.initialize(tenant, slot, 1, now.plus(Duration.ofHours(1)));
            assertThat(gate.tryHold(tenant, slot, StudentId.of("a"), RequestId.of("ra"), ttl))
                    .isEqualTo(GateDecision.HELD);
            assertThat(gate.tryHold(tenant, slot, StudentId.of("a"), RequestId.of("rb"), ttl))
                    .isEqualTo(GateDecision.duplicate(RequestId.of("ra")));
            assertThat(gate.tryHold(tenant, slot, StudentId.of("b"), RequestId.of("rb"), ttl))
                    .isEqualTo(GateDecision.FULL);
            assertThat(gate.tryHold(tenant, SlotId.of("none"), StudentId.of("b"), RequestId.of("rb"), ttl))
                    .isEqualTo(GateDecision.MISSING);
            GateHolder a = gate.inspect(tenant, slot).orElseThrow().holders().get(0);
            assertThat(a.requestId()).isEqualTo(RequestId.of("ra"));
            assertThat(a.expiresAt()).isEqualTo(a.takenAt().plus(ttl));
            assertThat(gate.inspect(tenant, slot)).contains(new GateView(1, List.of(a)));
            assertThat(gate.reconcile(tenant, slot, 2, List.of(a), Duration.ZERO, now.plus(Duration.ofHours(1))))
                    .isEqualTo(new GateSync(0, 0, true));
            assertThat(gate.release(tenant, slot, StudentId.of("a"), RequestId.of("ra"))).isTrue();
            assertThat(gate.release(tenant, slot, StudentId.of("a"), RequestId.of("ra"))).isFalse();
            assertThat(gate.inspect(tenant, SlotId.of("none"))).isEmpty();
            assertThat(gate.unavailableCount()).isZero();
        }
    }
}
