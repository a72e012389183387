/**
 * The load benchmark's machinery, shared by the runnable mains of {@code org.slotbook.examples}
 * ({@code Bench}, {@code FlashSale}, {@code GateBench}, {@code WaitlistBench}, {@code ShardBench}):
 * <ul>
 *   <li>{@link org.slotbook.examples.bench.Options}, {@link org.slotbook.examples.bench.Flags} and
 *       {@link org.slotbook.examples.bench.ServerFlags}: the command lines;</li>
 *   <li>{@link org.slotbook.examples.bench.Backends}: the database and the Redis gate a main runs on;
 *       {@code BenchDb} and {@code BenchMemory}: the ledgers of {@code Bench}'s lines (a database, or the
 *       in-memory store), each with its own check for oversold seats and double-booked students;</li>
 *   <li>{@link org.slotbook.examples.bench.LoadDriver}: the one load driver (client threads released
 *       together, every request timed into {@link org.slotbook.examples.bench.Latencies}, counted into
 *       {@link org.slotbook.examples.bench.Measured});</li>
 *   <li>one class per measured line of {@code Bench}: {@link org.slotbook.examples.bench.NaiveLine},
 *       {@link org.slotbook.examples.bench.DbCeilingLine}, {@link org.slotbook.examples.bench.RedisCeilingLine},
 *       {@link org.slotbook.examples.bench.SlotbookLine}, {@code MixLine}, {@code CapacityLine}, run in
 *       order by {@link org.slotbook.examples.bench.Suite};</li>
 *   <li>{@link org.slotbook.examples.bench.Report} (the tables) with its targets, and the
 *       {@code Profiler} and heap sampler that watch a measurement.</li>
 * </ul>
 */
@NullMarked
package org.slotbook.examples.bench;

import org.jspecify.annotations.NullMarked;
