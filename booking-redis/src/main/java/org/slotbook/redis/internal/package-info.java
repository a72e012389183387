/**
 * Internals of the Redis gate, not public API: the script runner abstraction (so another Redis
 * client can be plugged in later), the Jedis runner, the scripts and the key layout.
 */
@NullMarked
package org.slotbook.redis.internal;

import org.jspecify.annotations.NullMarked;
