package org.slotbook.examples.bench;

import java.util.List;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;

/**
 * Removes a run's Redis keys from a server that may be shared: {@code SCAN} page by page, never
 * {@code KEYS}, and {@code UNLINK}, never {@code DEL}: a run leaves sorted sets and hashes of hundreds of
 * thousands of members, which {@code DEL} frees before it answers (a page of them took longer than the
 * bench client's one-second read timeout), while {@code UNLINK} frees them in the background.
 */
public final class RedisCleanUp {
    private static final int PAGE = 500;

    private RedisCleanUp() {
    }

    /**
     * Unlinks every key {@code SCAN} finds for the MATCH {@code pattern} (take it from the gate:
     * {@code RedisSeatReservation.keyPattern()}), and answers how many it deleted.
     */
    public static long deleteMatching(UnifiedJedis redis, String pattern) {
        if (pattern == null || pattern.isEmpty() || pattern.equals("*")) {
            throw new IllegalArgumentException("pattern must name a run's own keys, got '" + pattern + "'");
        }
        ScanParams params = new ScanParams().match(pattern).count(PAGE);
        String cursor = ScanParams.SCAN_POINTER_START;
        long deleted = 0;
        do {
            ScanResult<String> page = redis.scan(cursor, params);
            List<String> keys = page.getResult();
            if (!keys.isEmpty()) {
                deleted += redis.unlink(keys.toArray(String[]::new));
            }
            cursor = page.getCursor();
        } while (!cursor.equals(ScanParams.SCAN_POINTER_START));
        return deleted;
    }
}
