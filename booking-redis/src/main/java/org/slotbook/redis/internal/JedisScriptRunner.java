package org.slotbook.redis.internal;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.List;
import org.slotbook.core.internal.CallCombiner;
import redis.clients.jedis.AbstractPipeline;
import redis.clients.jedis.Pipeline;
import redis.clients.jedis.Response;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.exceptions.JedisRedirectionException;

/**
 * {@link ScriptRunner} over Jedis' {@link UnifiedJedis}: standalone, pooled and cluster clients alike.
 * Routing in a cluster is the client's: it sends the call to the node that owns the first key's slot.
 *
 * <p>With {@code lanes > 0}, concurrent {@link #runBinary} calls share round trips through a
 * {@link CallCombiner}: the calls queued while a batch is on the wire go out as one pipeline on one
 * pooled connection. This needs a client whose {@code pipelined()} answers a pipeline on one
 * connection (a standalone client: {@code RedisClient}, {@code JedisPooled}); on any other client
 * ({@code RedisClusterClient}, {@code JedisCluster}, a client that cannot pipeline) each call is sent
 * on its own, as with {@code lanes = 0}, from the first batch on. A {@code UnifiedJedis} over a cluster
 * provider answers a pipeline on one node: the calls that node redirects are sent again on their own,
 * and so is every call after them.
 */
public final class JedisScriptRunner implements ScriptRunner {
    /** UnifiedJedis.pipelined(): its declared return type differs between Jedis 6 and 8, so it is called reflectively. */
    private static final Method PIPELINED;

    static {
        try {
            PIPELINED = UnifiedJedis.class.getMethod("pipelined");
        } catch (NoSuchMethodException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final UnifiedJedis jedis;
    /** The most calls one pipeline sends. */
    public static final int MAX_PIPELINE = 64;

    /** One call of {@link #runBinary}, as queued on the combiner. */
    private record ScriptCall(LuaScript script, int keyCount, byte[][] keysAndArgs) {
    }

    private final CallCombiner<ScriptCall, Object> combiner;
    /** False once the client answered a pipeline that is not on one connection: each call then goes alone. */
    private volatile boolean pipelines = true;

    /** @param lanes how many pipelines of {@link #runBinary} calls may be on the wire at once; 0: none */
    public JedisScriptRunner(UnifiedJedis jedis, int lanes) {
        this.jedis = jedis;
        this.combiner = lanes == 0 ? null : new CallCombiner<>(this::send, lanes, MAX_PIPELINE);
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
        if (combiner == null || !pipelines) {
            return runAlone(script, keyCount, keysAndArgs);
        }
        return combiner.run(new ScriptCall(script, keyCount, keysAndArgs));
    }

    private Object runAlone(LuaScript script, int keyCount, byte[]... keysAndArgs) {
        try {
            return jedis.evalsha(script.shaBytes(), keyCount, keysAndArgs);
        } catch (JedisDataException e) {
            if (!isNoScript(e)) {
                throw e;
            }
            return jedis.eval(script.bodyBytes(), keyCount, keysAndArgs);
        }
    }

    /** A batch of the combiner: one call alone, more as one pipeline; a call the server did not know is sent again alone. */
    private void send(CallCombiner.Call<ScriptCall, Object>[] calls, int count) {
        if (count == 1 || !pipelines) {
            for (int i = 0; i < count; i++) {
                sendAlone(calls[i]);
            }
            return;
        }
        AbstractPipeline pipeline = pipelineOrNull();
        if (!(pipeline instanceof Pipeline)) {
            if (pipeline != null) {
                pipeline.close();
            }
            pipelines = false;
            for (int i = 0; i < count; i++) {
                sendAlone(calls[i]);
            }
            return;
        }
        @SuppressWarnings("unchecked")
        Response<Object>[] responses = new Response[count];
        try (pipeline) {
            for (int i = 0; i < count; i++) {
                ScriptCall call = calls[i].request();
                responses[i] = pipeline.evalsha(call.script().shaBytes(), call.keyCount(), call.keysAndArgs());
            }
            pipeline.sync();
        } catch (RuntimeException e) {
            for (int i = 0; i < count; i++) {
                calls[i].fail(e);
            }
            return;
        }
        for (int i = 0; i < count; i++) {
            try {
                calls[i].complete(responses[i].get());
            } catch (JedisDataException e) {
                if (isRedirect(e)) {
                    // a client that routes single calls by key (a UnifiedJedis over a cluster provider)
                    // pipelined to one node: the call did not run there; single calls from now on
                    pipelines = false;
                    sendAlone(calls[i]);
                } else if (isNoScript(e)) {
                    sendAlone(calls[i]);
                } else {
                    calls[i].fail(e);
                }
            } catch (RuntimeException e) {
                calls[i].fail(e);
            }
        }
    }

    private void sendAlone(CallCombiner.Call<ScriptCall, Object> call) {
        try {
            ScriptCall request = call.request();
            call.complete(runAlone(request.script(), request.keyCount(), request.keysAndArgs()));
        } catch (RuntimeException e) {
            call.fail(e);
        }
    }

    /** A pipeline of the client; null for a client that cannot pipeline at all. */
    private AbstractPipeline pipelineOrNull() {
        try {
            return pipeline();
        } catch (IllegalStateException e) {
            // "It is not allowed to create Pipeline from ...": a client without a connection provider
            return null;
        }
    }

    private AbstractPipeline pipeline() {
        try {
            return (AbstractPipeline) PIPELINED.invoke(jedis);
        } catch (InvocationTargetException e) {
            if (e.getCause() instanceof RuntimeException runtime) {
                throw runtime;
            }
            if (e.getCause() instanceof Error error) {
                throw error;
            }
            throw new IllegalStateException(e.getCause());
        } catch (IllegalAccessException e) {
            throw new IllegalStateException(e);
        }
    }

    /** A cluster redirection: the call was not run on the node that answered. */
    static boolean isRedirect(JedisDataException e) {
        String message = e.getMessage();
        return e instanceof JedisRedirectionException
                || message != null && (message.startsWith("MOVED ") || message.startsWith("ASK "));
    }

    static boolean isNoScript(JedisDataException e) {
        String message = e.getMessage();
        return message != null && message.startsWith("NOSCRIPT");
    }

    @Override
    public String toString() {
        return "JedisScriptRunner[" + jedis.getClass().getSimpleName()
                + (combiner == null ? "" : ", " + combiner.lanes() + " pipeline lane(s)") + "]";
    }
}
