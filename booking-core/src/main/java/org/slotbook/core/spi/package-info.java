/**
 * The service provider interface: where third-party backends plug in, as Slotbook's own do
 * ({@code JdbcStore}, {@code RedisSeatReservation}, the in-memory backends).
 *
 * <h2>What a backend implements</h2>
 * <ul>
 *   <li>A store, required: {@link org.slotbook.core.spi.BookingStore}, the source of truth. Each of
 *       its decisions (hold, confirm, cancel, expiry, ...) is one atomic step where the data lives;
 *       a database backend runs it as one routine call. A backend may instead bring only its
 *       storage, a {@link org.slotbook.core.rules.RuleStorage} (one transaction per decision), and let
 *       {@link org.slotbook.core.rules.RulesStore} decide every rule over it, as the in-memory store
 *       does.</li>
 *   <li>A gate, optional: {@link org.slotbook.core.spi.SeatReservation}, a fast pre-check of free
 *       seats (Redis) that never decides alone that a seat is sold.
 *       {@link org.slotbook.core.spi.SeatReservation#none()} is DB-only mode.</li>
 *   <li>{@link org.slotbook.core.spi.ForwardingStore} is the base of a store that wraps another
 *       (metrics, logging, fault injection).</li>
 * </ul>
 * The other types here are what these interfaces take and answer: commands
 * ({@link org.slotbook.core.spi.HoldCommand}, {@link org.slotbook.core.spi.Terms}), outcomes with
 * their events ({@link org.slotbook.core.spi.StoreOutcome}, {@link org.slotbook.core.spi.BookingEvent}),
 * and the gate's answers ({@link org.slotbook.core.spi.GateDecision},
 * {@link org.slotbook.core.spi.GateSync}, {@link org.slotbook.core.spi.GateView}).
 *
 * <h2>Proving a backend</h2>
 * booking-core's test-jar ({@code <type>test-jar</type>}, package {@code org.slotbook.core.tck})
 * holds the contract suites every backend passes: {@code BookingStoreContract},
 * {@code SeatReservationContract}, {@code BookingEngineContract} (the engine end to end over a store
 * and a gate, with the booking rules and lessons) and {@code LessonsContract}. A backend subclasses each that applies once, returning its own instance; the
 * suites read their verdicts back from storage, including under concurrency.
 *
 * <h2>Nullness and time</h2>
 * Like all of Slotbook this package is {@code @NullMarked}: a parameter or component that may be
 * null says so with {@code @Nullable}. A {@code now} of null asks a store for its own clock.
 *
 * <h2>Stability</h2>
 * Slotbook is before its first release (version 0.x). Until 1.0 this SPI may change in any minor
 * version, for example a decision gaining a parameter; each change a backend has to follow is named
 * in the changelog ({@code CHANGELOG.md}) of the version that makes it, and the test-jar's contract
 * suites change with it.
 */
@NullMarked
package org.slotbook.core.spi;

import org.jspecify.annotations.NullMarked;
