/**
 * The transactional outbox: the booking events every decision writes in its own store call, and what the
 * engine does with them.
 *
 * <ul>
 *   <li>{@link org.slotbook.core.outbox.OutboxEvent}: one stored event, with its id (its position in
 *       the tenant's order) and its delivery state.</li>
 *   <li>{@link org.slotbook.core.outbox.Outbox}: the engine's side of it ({@code engine.outbox()}):
 *       the relay that delivers undelivered events to the listener at least once, in order per tenant;
 *       the pull API with stored cursors; dead letters and their re-delivery; stats and retention.</li>
 *   <li>{@link org.slotbook.core.outbox.OutboxSettings}: the relay's tries, back-off, lease, batch and
 *       retention.</li>
 * </ul>
 */
@NullMarked
package org.slotbook.core.outbox;

import org.jspecify.annotations.NullMarked;
