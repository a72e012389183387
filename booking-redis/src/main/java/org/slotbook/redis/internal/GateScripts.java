package org.slotbook.redis.internal;

import java.time.Duration;
import org.slotbook.core.InvalidInputException;

/**
 * The gate's scripts and the arguments they take, in one place, so that the gate and anything that
 * measures it (the benchmark) send exactly the same calls. Keys come from {@link SlotKeys}.
 */
public final class GateScripts {
    /** The score (and record expiry) of a pinned holder: far beyond any real expiry. */
    public static final long PINNED_SCORE = 9_000_000_000_000_000L;
    public static final String PINNED = Long.toString(PINNED_SCORE);

    public static final LuaScript HOLD = LuaScript.loadCombinable("hold");
    public static final LuaScript RELEASE = LuaScript.load("release");
    public static final LuaScript CONFIRM = LuaScript.load("confirm");
    public static final LuaScript INIT = LuaScript.load("init");
    public static final LuaScript RECONCILE = LuaScript.load("reconcile");
    public static final LuaScript CLOSE = LuaScript.load("close");
    public static final LuaScript INSPECT = LuaScript.load("inspect");
    public static final LuaScript TRANSFER = LuaScript.load("transfer");
    public static final LuaScript MARK = LuaScript.load("mark");

    private GateScripts() {
    }

    /** The ttl in whole milliseconds, never cut short. */
    public static long ttlMillis(Duration ttl) {
        if (ttl == null || ttl.isNegative() || ttl.isZero()) {
            throw new InvalidInputException("ttl must be positive, got " + ttl);
        }
        long millis = ttl.toMillis();
        return ttl.minusMillis(millis).isZero() ? millis : millis + 1;
    }
}
