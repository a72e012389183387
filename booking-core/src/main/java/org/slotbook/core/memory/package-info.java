/**
 * In-memory backends: a {@link org.slotbook.core.spi.SeatLedger} and
 * {@link org.slotbook.core.spi.ConflictDetector} sharing one store ({@link org.slotbook.core.memory.InMemoryStore}),
 * and a gate ({@link org.slotbook.core.memory.InMemorySeatReservation}) with the semantics of the Redis one.
 *
 * <p>They keep the same guarantees as the database backends and are meant for tests, demos and
 * single-process deployments; nothing survives the process.
 */
@NullMarked
package org.slotbook.core.memory;

import org.jspecify.annotations.NullMarked;
