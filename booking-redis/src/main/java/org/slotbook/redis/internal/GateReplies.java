package org.slotbook.redis.internal;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import org.jspecify.annotations.Nullable;
import org.slotbook.core.RequestId;
import org.slotbook.core.spi.GateDecision;

/** The gate's decisions as {@code hold.lua} and {@code transfer.lua} reply them. */
public final class GateReplies {
    private GateReplies() {
    }

    /** The decision in a reply of {@code hold.lua} or {@code transfer.lua}; null when it is none. */
    public static @Nullable GateDecision decision(Object reply) {
        byte[] bytes = reply instanceof byte[] raw ? raw
                : reply instanceof String text ? text.getBytes(StandardCharsets.UTF_8) : null;
        if (bytes == null || bytes.length == 0) {
            return null;
        }
        switch (bytes[0]) {
            case 'H':
                return GateDecision.HELD;
            case 'F':
                return GateDecision.FULL;
            case 'R':
                return GateDecision.REPLAY;
            case 'M':
                return GateDecision.MISSING;
            case 'C':
                return GateDecision.CLOSED;
            case 'D':
                return GateDecision.duplicate(RequestId.of(new String(bytes, 1, bytes.length - 1,
                        StandardCharsets.UTF_8)));
            case 'N':
                long micros;
                try {
                    micros = Long.parseLong(new String(bytes, 1, bytes.length - 1, StandardCharsets.US_ASCII));
                } catch (NumberFormatException e) {
                    return null;
                }
                return GateDecision.notOpen(Instant.ofEpochSecond(Math.floorDiv(micros, 1_000_000L),
                        Math.floorMod(micros, 1_000_000L) * 1000L));
            default:
                return null;
        }
    }
}
