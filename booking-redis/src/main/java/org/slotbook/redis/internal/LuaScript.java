package org.slotbook.redis.internal;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * One Lua script of the gate: its name, its body (a {@code .lua} resource) and the SHA-1 digest of
 * the body, which is exactly the id Redis gives it in {@code SCRIPT LOAD}, so it can be run by
 * {@code EVALSHA} without a round trip to learn it.
 */
public final class LuaScript {
    private final String name;
    private final String body;
    private final String sha;
    private final byte[] bodyBytes;
    private final byte[] shaBytes;
    private final boolean combinable;

    private LuaScript(String name, String body, boolean combinable) {
        this.name = name;
        this.combinable = combinable;
        this.body = body;
        this.sha = sha1(body);
        this.bodyBytes = body.getBytes(StandardCharsets.UTF_8);
        this.shaBytes = sha.getBytes(StandardCharsets.US_ASCII);
    }

    /** Loads {@code org/slotbook/redis/<name>.lua} from the class path. */
    public static LuaScript load(String name) {
        return load(name, false);
    }

    /**
     * Loads a script of which several calls can be sent as one (see {@link #combinable()}).
     */
    public static LuaScript loadCombinable(String name) {
        return load(name, true);
    }

    private static LuaScript load(String name, boolean combinable) {
        String resource = "/org/slotbook/redis/" + name + ".lua";
        try (InputStream in = LuaScript.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("script resource " + resource + " is missing");
            }
            return new LuaScript(name, new String(in.readAllBytes(), StandardCharsets.UTF_8), combinable);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read script resource " + resource, e);
        }
    }

    /**
     * Whether several calls of this script, each with the same number of keys and of arguments, can
     * go out as one call: every call's keys in order, then every call's arguments in order. The reply
     * is then a list of each call's reply, in order (an error in a call's place is that call's). With
     * one call's keys and arguments, the reply is that call's, as for any script. The keys of one
     * call share a hash tag but those of several need not, so a combined call is for a standalone
     * server only.
     */
    public boolean combinable() {
        return combinable;
    }

    public String name() {
        return name;
    }

    public String body() {
        return body;
    }

    public String sha() {
        return sha;
    }

    /** {@link #body()} in UTF-8, encoded once; callers must not modify it. */
    public byte[] bodyBytes() {
        return bodyBytes;
    }

    /** {@link #sha()} in ASCII, encoded once; callers must not modify it. */
    public byte[] shaBytes() {
        return shaBytes;
    }

    private static String sha1(String text) {
        try {
            MessageDigest digest = MessageDigest.getInstance("SHA-1");
            return HexFormat.of().formatHex(digest.digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-1 is not available", e);
        }
    }

    @Override
    public String toString() {
        return name + ".lua (" + sha + ")";
    }
}
