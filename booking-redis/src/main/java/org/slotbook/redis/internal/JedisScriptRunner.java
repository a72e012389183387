package org.slotbook.redis.internal;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.List;
import java.util.stream.IntStream;
import org.slotbook.core.internal.CallCombiner;
import redis.clients.jedis.AbstractPipeline;
import redis.clients.jedis.Pipeline;
import redis.clients.jedis.Response;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisClusterOperationException;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.exceptions.JedisRedirectionException;

/**
 * {@link ScriptRunner} over Jedis' {@link UnifiedJedis}: standalone, pooled and cluster clients alike.
 * Routing in a cluster is the client's: it sends the call to the node that owns the first key's slot.
 *
 * <p>With {@code lanes > 0}, concurrent {@link #runBinary} calls share round trips through a
 * {@link CallCombiner}: the calls queued while a batch is on the wire go out as one pipeline on one
 * pooled connection, and the calls of a {@link LuaScript#combinable() combinable} script among them
 * (the holds) as one call of it. This needs a client whose {@code pipelined()} answers a pipeline on one
 * connection (a standalone client: {@code RedisClient}, {@code JedisPooled}); on any other client
 * ({@code RedisClusterClient}, {@code JedisCluster}, a client that cannot pipeline) each call is sent
 * on its own, as with {@code lanes = 0}, from the first batch on. A {@code UnifiedJedis} over a cluster
 * provider answers a pipeline on one node: the calls that node redirects are sent again on their own,
 * and so is every call after them; so are calls sent as one that the node refuses ({@code CROSSSLOT},
 * {@code MOVED}, {@code ASK}).
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

    /**
     * A batch of the combiner: one call alone, more as one pipeline; a call the server did not know is
     * sent again alone. The calls of a {@link LuaScript#combinable() combinable} script (the holds) go
     * in the pipeline as one call of it, when two or more of them share its shape.
     */
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
        int[] combined = combined(calls, count);
        Response<Object> together = null;
        if (combined != null) {
            try {
                together = sendTogether(pipeline, calls, combined);
            } catch (RuntimeException e) {
                // refused while it was built, before anything was queued: nothing ran
                closeQuietly(pipeline);
                notRun(calls, IntStream.range(0, count).toArray(), e);
                return;
            }
        }
        @SuppressWarnings("unchecked")
        Response<Object>[] responses = new Response[count];
        try (pipeline) {
            for (int i = 0; i < count; i++) {
                if (combined == null || Arrays.binarySearch(combined, i) < 0) {
                    ScriptCall call = calls[i].request();
                    responses[i] = pipeline.evalsha(call.script().shaBytes(), call.keyCount(), call.keysAndArgs());
                }
            }
            pipeline.sync();
        } catch (RuntimeException e) {
            for (int i = 0; i < count; i++) {
                calls[i].fail(e);
            }
            return;
        }
        if (combined != null) {
            answerTogether(together, calls, combined);
        }
        for (int i = 0; i < count; i++) {
            if (responses[i] == null) {
                continue;
            }
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

    /**
     * The positions, ascending, of the batch's calls that go out as one call: those of the first
     * combinable script with the shape (keys, arguments) of its first call; null when fewer than two.
     */
    private static int[] combined(CallCombiner.Call<ScriptCall, Object>[] calls, int count) {
        ScriptCall first = null;
        int[] positions = null;
        int n = 0;
        for (int i = 0; i < count; i++) {
            ScriptCall call = calls[i].request();
            if (!call.script().combinable()) {
                continue;
            }
            if (first == null) {
                first = call;
                positions = new int[count - i];
            } else if (call.script() != first.script() || call.keyCount() != first.keyCount()
                    || call.keysAndArgs().length != first.keysAndArgs().length) {
                continue;
            }
            positions[n++] = i;
        }
        return n < 2 ? null : Arrays.copyOf(positions, n);
    }

    /** One call of the combinable script for the calls at {@code positions}: all their keys, then all their arguments. */
    private static Response<Object> sendTogether(AbstractPipeline pipeline, CallCombiner.Call<ScriptCall, Object>[] calls,
                                                 int[] positions) {
        ScriptCall first = calls[positions[0]].request();
        int keys = first.keyCount();
        int args = first.keysAndArgs().length - keys;
        int n = positions.length;
        byte[][] keysAndArgs = new byte[n * (keys + args)][];
        for (int k = 0; k < n; k++) {
            byte[][] one = calls[positions[k]].request().keysAndArgs();
            System.arraycopy(one, 0, keysAndArgs, k * keys, keys);
            System.arraycopy(one, keys, keysAndArgs, n * keys + k * args, args);
        }
        return pipeline.evalsha(first.script().shaBytes(), n * keys, keysAndArgs);
    }

    /** Answers the calls sent as one from its reply: each its own element, or each alone again when it did not run. */
    private void answerTogether(Response<Object> together, CallCombiner.Call<ScriptCall, Object>[] calls,
                                int[] positions) {
        Object reply;
        try {
            reply = together.get();
        } catch (RuntimeException e) {
            notRun(calls, positions, e);
            return;
        }
        if (!(reply instanceof List<?> replies) || replies.size() != positions.length) {
            IllegalStateException wrong = new IllegalStateException("unexpected reply of " + calls[positions[0]]
                    .request().script().name() + ".lua for " + positions.length + " calls: " + reply);
            for (int position : positions) {
                calls[position].fail(wrong);
            }
            return;
        }
        for (int k = 0; k < positions.length; k++) {
            Object one = replies.get(k);
            if (one instanceof RuntimeException e) {
                calls[positions[k]].fail(e);
            } else {
                calls[positions[k]].complete(one);
            }
        }
    }

    /**
     * The calls at {@code positions}, sent as one, failed as a whole with {@code e}. Refused because their
     * keys are not in one hash slot (a cluster: {@code CROSSSLOT}, {@code MOVED}, {@code ASK}, or the
     * client's own check), or unknown to the server ({@code NOSCRIPT}), they did not run and each goes
     * alone, and on a cluster every call from then on; any other failure is theirs.
     */
    private void notRun(CallCombiner.Call<ScriptCall, Object>[] calls, int[] positions, RuntimeException e) {
        boolean cluster = e instanceof JedisClusterOperationException
                || e instanceof JedisDataException d && (isRedirect(d) || isCrossSlot(d));
        if (cluster) {
            pipelines = false;
        }
        boolean again = cluster || e instanceof JedisDataException d && isNoScript(d);
        for (int position : positions) {
            if (again) {
                sendAlone(calls[position]);
            } else {
                calls[position].fail(e);
            }
        }
    }

    private static void closeQuietly(AbstractPipeline pipeline) {
        try {
            pipeline.close();
        } catch (RuntimeException e) {
            // nothing was queued on it
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

    /** Keys of several hash slots in one call, refused by a cluster node. */
    static boolean isCrossSlot(JedisDataException e) {
        String message = e.getMessage();
        return message != null && message.startsWith("CROSSSLOT");
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
