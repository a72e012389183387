/**
 * The Redis seat gate: {@link org.slotbook.redis.RedisSeatReservation}, a
 * {@link org.slotbook.core.spi.SeatReservation} made of Lua scripts over any Jedis
 * {@code UnifiedJedis}, standalone or Redis Cluster.
 *
 * <p>Everything under {@code org.slotbook.redis.internal} is an implementation detail and may change
 * in any release.
 */
@NullMarked
package org.slotbook.redis;

import org.jspecify.annotations.NullMarked;
