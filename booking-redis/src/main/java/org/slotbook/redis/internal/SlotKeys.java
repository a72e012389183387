package org.slotbook.redis.internal;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import org.slotbook.core.InvalidInputException;
import org.slotbook.core.SlotId;
import org.slotbook.core.TenantId;

/**
 * The Redis keys of one slot: {@code <prefix>{<tenant>:<slot>}:holders} (sorted set of students by
 * hold expiry, with the member {@code ''} at {@code +inf} marking the key as present) and
 * {@code ...:meta} (hash: {@code ''} to the capacity or {@code closed}; student to
 * {@code expiry|takenAt|requestId}; {@code \u0001<requestId>} to the tombstone of a released request).
 * Both share the hash tag {@code {<tenant>:<slot>}}, so one script can touch them in Redis Cluster.
 *
 * <p>Tenant and slot ids may contain any printable character. {@code %}, {@code :}, <code>{</code>
 * and <code>}</code> are percent-encoded inside the tag, which keeps the tag intact (its first
 * <code>}</code> is the one written here) and makes the mapping one-to-one: two different
 * (tenant, slot) pairs never share keys. Ids never contain control characters, and are never empty,
 * so neither {@code ''} nor a {@code \u0001} field can be a student.
 *
 * <p>An instance builds each slot's keys once, as names and as the UTF-8 bytes sent to Redis, and keeps
 * them in a small bounded cache (emptied when it reaches its bound), so the hot path neither
 * concatenates nor encodes them per call.
 */
public final class SlotKeys {
    /** Index of the holders key in {@link #keys}. */
    public static final int HOLDERS = 0;
    /** Index of the meta key in {@link #keys}. */
    public static final int META = 1;

    private final String prefix;
    private final int bound;
    private final ConcurrentHashMap<Slot, Keys> cache = new ConcurrentHashMap<>();

    /** A cache of the key lists of up to {@code bound} slots under {@code prefix}. */
    public SlotKeys(String prefix, int bound) {
        this.prefix = checkPrefix(prefix);
        this.bound = bound;
    }

    /** The slot's keys, in the order every script expects them: holders, meta. */
    public List<String> of(TenantId tenantId, SlotId slotId) {
        return keysOf(tenantId, slotId).names();
    }

    /** The slot's keys as names and as bytes, built once. */
    public Keys keysOf(TenantId tenantId, SlotId slotId) {
        Slot slot = new Slot(tenantId, slotId);
        Keys keys = cache.get(slot);
        if (keys == null) {
            keys = new Keys(keys(prefix, tenantId, slotId));
            if (cache.size() >= bound) {
                cache.clear();
            }
            cache.put(slot, keys);
        }
        return keys;
    }

    public String prefix() {
        return prefix;
    }

    /** Checks a key prefix: it must not contain a brace, which would move the hash tag. */
    public static String checkPrefix(String prefix) {
        if (prefix == null) {
            throw new InvalidInputException("keyPrefix must not be null");
        }
        if (prefix.indexOf('{') >= 0 || prefix.indexOf('}') >= 0) {
            throw new InvalidInputException("keyPrefix must not contain '{' or '}', got '" + prefix + "'");
        }
        for (int i = 0; i < prefix.length(); i++) {
            if (Character.isISOControl(prefix.charAt(i))) {
                throw new InvalidInputException("keyPrefix must not contain control characters, got '"
                        + prefix.replaceAll("\\p{Cntrl}", "?") + "'");
            }
        }
        return prefix;
    }

    /**
     * The MATCH pattern (of {@code SCAN}, or {@code KEYS}) of every key under {@code prefix}: the
     * prefix with its glob characters ({@code *}, {@code ?}, {@code [}, {@code ]} and the backslash)
     * escaped, then {@code *}.
     */
    public static String pattern(String prefix) {
        checkPrefix(prefix);
        StringBuilder out = new StringBuilder(prefix.length() + 8);
        for (int i = 0; i < prefix.length(); i++) {
            char c = prefix.charAt(i);
            if (c == '*' || c == '?' || c == '[' || c == ']' || c == '\\') {
                out.append('\\');
            }
            out.append(c);
        }
        return out.append('*').toString();
    }

    /** The hash tag of the slot, braces included. */
    public static String tag(TenantId tenantId, SlotId slotId) {
        return "{" + encode(tenantId.value()) + ":" + encode(slotId.value()) + "}";
    }

    /** Holders and meta keys, in the order every script expects them (built afresh: prefer {@link #of}). */
    public static List<String> keys(String prefix, TenantId tenantId, SlotId slotId) {
        String base = prefix + tag(tenantId, slotId);
        return List.of(base + ":holders", base + ":meta");
    }

    static String encode(String id) {
        StringBuilder out = null;
        for (int i = 0; i < id.length(); i++) {
            char c = id.charAt(i);
            if (c == '%' || c == ':' || c == '{' || c == '}') {
                if (out == null) {
                    out = new StringBuilder(id.length() + 8).append(id, 0, i);
                }
                out.append('%').append(Character.toUpperCase(Character.forDigit(c >> 4, 16)))
                        .append(Character.toUpperCase(Character.forDigit(c & 0xF, 16)));
            } else if (out != null) {
                out.append(c);
            }
        }
        return out == null ? id : out.toString();
    }

    private record Slot(TenantId tenantId, SlotId slotId) {
    }

    /** One slot's keys: the names (holders, meta) and the same in UTF-8, which callers must not modify. */
    public static final class Keys {
        private final List<String> names;
        private final byte[] holders;
        private final byte[] meta;

        Keys(List<String> names) {
            this.names = names;
            this.holders = names.get(HOLDERS).getBytes(StandardCharsets.UTF_8);
            this.meta = names.get(META).getBytes(StandardCharsets.UTF_8);
        }

        public List<String> names() {
            return names;
        }

        public byte[] holders() {
            return holders;
        }

        public byte[] meta() {
            return meta;
        }
    }
}
