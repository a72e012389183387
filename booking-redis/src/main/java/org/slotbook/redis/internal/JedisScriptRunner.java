package org.slotbook.redis.internal;

import java.util.List;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * {@link ScriptRunner} over Jedis' {@link UnifiedJedis}: standalone, pooled and cluster clients alike.
 * Routing in a cluster is the client's: it sends the call to the node that owns the first key's slot.
 */
public final class JedisScriptRunner implements ScriptRunner {
    private final UnifiedJedis jedis;

    public JedisScriptRunner(UnifiedJedis jedis) {
        this.jedis = jedis;
    }

    @Override
    public Object run(LuaScript script, List<String> keys, List<String> args) {
        try {
            return jedis.evalsha(script.sha(), keys, args);
        } catch (JedisDataException e) {
            if (!isNoScript(e)) {
                throw e;
            }
            // The node does not know the script (first use there, SCRIPT FLUSH, restart):
            // EVAL runs it and caches it on that node for the next EVALSHA.
            return jedis.eval(script.body(), keys, args);
        }
    }

    @Override
    public Object runBinary(LuaScript script, int keyCount, byte[]... keysAndArgs) {
        try {
            return jedis.evalsha(script.shaBytes(), keyCount, keysAndArgs);
        } catch (JedisDataException e) {
            if (!isNoScript(e)) {
                throw e;
            }
            return jedis.eval(script.bodyBytes(), keyCount, keysAndArgs);
        }
    }

    static boolean isNoScript(JedisDataException e) {
        String message = e.getMessage();
        return message != null && message.startsWith("NOSCRIPT");
    }

    @Override
    public String toString() {
        return "JedisScriptRunner[" + jedis.getClass().getSimpleName() + "]";
    }
}
