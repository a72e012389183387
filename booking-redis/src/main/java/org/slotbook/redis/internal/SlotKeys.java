package org.slotbook.redis.internal;

import java.util.List;
import org.slotbook.core.SlotId;
import org.slotbook.core.TenantId;

/**
 * The Redis keys of one slot: {@code <prefix>{<tenant>:<slot>}:cap}, {@code ...:holders} and
 * {@code ...:meta}. All three share the hash tag {@code {<tenant>:<slot>}}, so one script can touch
 * them in Redis Cluster.
 *
 * <p>Tenant and slot ids may contain any printable character. {@code %}, {@code :}, <code>{</code>
 * and <code>}</code> are percent-encoded inside the tag, which keeps the tag intact (its first
 * <code>}</code> is the one written here) and makes the mapping one-to-one: two different
 * (tenant, slot) pairs never share keys.
 */
public final class SlotKeys {
    private SlotKeys() {
    }

    /** Checks a key prefix: it must not contain a brace, which would move the hash tag. */
    public static String checkPrefix(String prefix) {
        if (prefix == null) {
            throw new IllegalArgumentException("keyPrefix must not be null");
        }
        if (prefix.indexOf('{') >= 0 || prefix.indexOf('}') >= 0) {
            throw new IllegalArgumentException("keyPrefix must not contain '{' or '}', got '" + prefix + "'");
        }
        for (int i = 0; i < prefix.length(); i++) {
            if (Character.isISOControl(prefix.charAt(i))) {
                throw new IllegalArgumentException("keyPrefix must not contain control characters, got '"
                        + prefix.replaceAll("\\p{Cntrl}", "?") + "'");
            }
        }
        return prefix;
    }

    /** The hash tag of the slot, braces included. */
    public static String tag(TenantId tenantId, SlotId slotId) {
        return "{" + encode(tenantId.value()) + ":" + encode(slotId.value()) + "}";
    }

    /** Capacity, holders and meta keys, in the order every script expects them. */
    public static List<String> keys(String prefix, TenantId tenantId, SlotId slotId) {
        String base = prefix + tag(tenantId, slotId);
        return List.of(base + ":cap", base + ":holders", base + ":meta");
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
}
