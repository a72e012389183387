/**
 * In-memory backends: a store ({@link org.slotbook.core.memory.InMemoryStore}, the booking rules of
 * {@link org.slotbook.core.rules.RulesStore} over maps), and a gate
 * ({@link org.slotbook.core.memory.InMemorySeatReservation}) with the semantics of the Redis one.
 *
 * <p>They keep the same guarantees as the database backends and are meant for tests, demos and
 * single-process deployments; nothing survives the process.
 */
@NullMarked
package org.slotbook.core.memory;

import org.jspecify.annotations.NullMarked;
