/**
 * The machinery behind {@link org.slotbook.core.BookingEngine}: internal, not API. Its types are
 * public only so that the engine in the package above can use them; they may change in any
 * release without notice. Hosts use {@code BookingEngine} and its builder, backends the
 * {@link org.slotbook.core.spi SPI}.
 *
 * <ul>
 *   <li>{@link org.slotbook.core.internal.engine.HoldFlow}: the hold path (gate, one store call,
 *       the gate hold given back whenever the store did not grant the request) and series booking;</li>
 *   <li>{@link org.slotbook.core.internal.engine.GateGuard}: every call to the gate, whose failure
 *       never fails an operation;</li>
 *   <li>{@link org.slotbook.core.internal.engine.SlotFlow}: slots and series scheduled and called off,
 *       the gate told once the store committed;</li>
 *   <li>{@link org.slotbook.core.internal.engine.Settlement}: what a committed confirm, cancel,
 *       check-in or sweep did, told to the gate and the listener;</li>
 *   <li>{@link org.slotbook.core.internal.engine.Reconciler}: converges the gate to the store;</li>
 *   <li>{@link org.slotbook.core.internal.engine.Events} and
 *       {@link org.slotbook.core.internal.engine.Observed}: the host's listener and observer, guarded;</li>
 *   <li>{@link org.slotbook.core.internal.engine.EngineClock}: whose clock judges a deadline.</li>
 * </ul>
 */
@NullMarked
package org.slotbook.core.internal.engine;

import org.jspecify.annotations.NullMarked;
