package org.slotbook.redis.internal;

import java.util.List;

/**
 * Runs one of the gate's scripts against a Redis deployment. This is the only thing the gate needs
 * from a client library, so another client can be added by implementing it.
 *
 * <p>Replies follow the usual Lua-to-Redis conversion: a string, a long, a list of those, or null.
 * All keys of one call share a hash tag, so in Redis Cluster the call goes to the node owning it.
 */
public interface ScriptRunner {

    /**
     * Runs {@code script} with {@code keys} and {@code args}. Implementations run it by its SHA and,
     * when the server does not know it (first use on that node, {@code SCRIPT FLUSH}, restart),
     * send the body once, which also caches it for the following calls.
     *
     * @throws RuntimeException the client's own exception when the server cannot be reached or fails
     */
    Object run(LuaScript script, List<String> keys, List<String> args);

    /**
     * Like {@link #run}, with arguments already encoded and the reply left undecoded: the first
     * {@code keyCount} of {@code keysAndArgs} are the keys, the rest the arguments; a string reply is
     * a {@code byte[]}, a number a {@code Long}, an array a {@code List} of those. The hot path's
     * call: the caller encodes what it can once and decodes only what it reads.
     *
     * @throws RuntimeException the client's own exception when the server cannot be reached or fails
     */
    Object runBinary(LuaScript script, int keyCount, byte[]... keysAndArgs);
}
