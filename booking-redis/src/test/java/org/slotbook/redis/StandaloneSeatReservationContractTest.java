package org.slotbook.redis;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.slotbook.core.spi.SeatReservation;
import org.slotbook.core.tck.SeatReservationContract;
import org.slotbook.redis.support.TestRedis;
import redis.clients.jedis.UnifiedJedis;

/** The gate contract on a standalone Redis. */
class StandaloneSeatReservationContractTest extends SeatReservationContract {
    private static UnifiedJedis client;
    private static RedisSeatReservation gate;

    @BeforeAll
    static void connect() {
        client = TestRedis.client(TestRedis.standalone());
        gate = RedisSeatReservation.builder(client).keyPrefix(TestRedis.freshPrefix("contract")).build();
    }

    @AfterAll
    static void disconnect() {
        if (client != null) {
            client.close();
        }
    }

    @Override
    protected SeatReservation reservation() {
        return gate;
    }
}
