package org.slotbook.redis;

import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.slotbook.core.SlotId;
import org.slotbook.core.TenantId;
import org.slotbook.core.spi.GateView;
import org.slotbook.core.spi.SeatReservation;
import org.slotbook.core.tck.SeatReservationContract;
import org.slotbook.redis.support.TestRedis;
import redis.clients.jedis.UnifiedJedis;

/**
 * The gate contract over one Redis server (standalone or cluster), its holders read back from the server's
 * keys. Its tests that let a hold expire wait for it on the server's clock, and each works in a tenant, slot
 * and key prefix of its own, so they run side by side (junit-platform.properties); a subclass is nested in
 * a class of its own, which ends only when they all have, so nothing else runs beside them.
 */
@Execution(ExecutionMode.CONCURRENT)
abstract class RedisGateContract extends SeatReservationContract {
    private final UnifiedJedis client;
    private final RedisSeatReservation gate;

    RedisGateContract(UnifiedJedis client) {
        this.client = client;
        this.gate = RedisSeatReservation.builder(client).keyPrefix(TestRedis.freshPrefix("contract")).build();
    }

    @Override
    protected SeatReservation reservation() {
        return gate;
    }

    @Override
    protected void checkStoredHolders(TenantId tenantId, SlotId slotId, GateView view) {
        RedisGateTests.assertStoredHolders(client, gate, tenantId, slotId, view);
    }
}
