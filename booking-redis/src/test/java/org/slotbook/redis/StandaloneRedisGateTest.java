package org.slotbook.redis;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.slotbook.redis.support.TestRedis;
import redis.clients.jedis.UnifiedJedis;

class StandaloneRedisGateTest extends AbstractRedisGateTest {
    private static UnifiedJedis client;

    @BeforeAll
    static void connect() {
        client = TestRedis.client(TestRedis.standalone());
    }

    @AfterAll
    static void disconnect() {
        if (client != null) {
            client.close();
        }
    }

    @Override
    protected UnifiedJedis jedis() {
        return client;
    }

    @Override
    protected void flushScripts() {
        client.scriptFlush();
    }
}
