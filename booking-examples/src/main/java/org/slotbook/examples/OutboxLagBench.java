package org.slotbook.examples;

import com.zaxxer.hikari.HikariDataSource;
import java.io.PrintStream;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.LongAdder;
import org.slotbook.core.Booking;
import org.slotbook.core.BookingEngine;
import org.slotbook.core.BookingListener;
import org.slotbook.core.CoachId;
import org.slotbook.core.Held;
import org.slotbook.core.HoldPolicy;
import org.slotbook.core.HoldRequest;
import org.slotbook.core.HoldResult;
import org.slotbook.core.RequestId;
import org.slotbook.core.RoomId;
import org.slotbook.core.SlotId;
import org.slotbook.core.SlotSpec;
import org.slotbook.core.StudentId;
import org.slotbook.core.TenantId;
import org.slotbook.core.TimeRange;
import org.slotbook.core.outbox.OutboxEvent;
import org.slotbook.core.outbox.OutboxSettings;
import org.slotbook.examples.bench.Flags;
import org.slotbook.examples.bench.Latencies;
import org.slotbook.jdbc.JdbcSchema;
import org.slotbook.jdbc.JdbcStore;

/**
 * The lag from a decision's commit to the delivery of its events, under a steady mix (holds, confirms,
 * cancels on many slots of one tenant, DB-only): (1) right after the commit on the deciding node, (2) the
 * relay's delivery of every event when the deciding node delivers none (as after a crash), with a pass every
 * {@code --interval-ms}. The lag is the listener's clock minus the event's {@code written_at} (the database's
 * clock at the decision; run the database on the same host). Its own table prefix, dropped at the end.
 *
 * <pre>
 * OutboxLagBench --jdbc URL [--seconds N] [--threads N] [--interval-ms N]
 * </pre>
 */
public final class OutboxLagBench {
    private OutboxLagBench() {
    }

    public static void main(String[] args) throws Exception {
        String jdbc = null;
        int seconds = 20;
        int threads = 16;
        int intervalMs = 100;
        for (int i = 0; i < args.length; i++) {
            String flag = args[i];
            switch (flag) {
                case "--jdbc" -> jdbc = Flags.value(args, ++i, flag);
                case "--seconds" -> seconds = Flags.number(args, ++i, flag, 1, 3_600);
                case "--threads" -> threads = Flags.number(args, ++i, flag, 1, 512);
                case "--interval-ms" -> intervalMs = Flags.number(args, ++i, flag, 1, 60_000);
                default -> throw new IllegalArgumentException("unknown flag " + flag);
            }
        }
        if (jdbc == null) {
            throw new IllegalArgumentException("--jdbc URL is required");
        }
        run(jdbc, seconds, threads, intervalMs, System.out);
    }

    static void run(String jdbc, int seconds, int threads, int intervalMs, PrintStream out) throws Exception {
        HikariDataSource dataSource = new HikariDataSource();
        dataSource.setJdbcUrl(jdbc);
        dataSource.setMaximumPoolSize(threads + 4);
        dataSource.setTransactionIsolation("TRANSACTION_READ_COMMITTED");
        String prefix = "lag" + UUID.randomUUID().toString().replace("-", "").substring(0, 8) + "_";
        JdbcSchema.create(dataSource, prefix);
        try {
            JdbcStore store = JdbcStore.builder(dataSource).tablePrefix(prefix).build();
            out.printf(Locale.ROOT, "OutboxLagBench: %s, %d threads, %d s per phase, relay pass every %d ms%n",
                    store.dialect(), threads, seconds, intervalMs);
            Latencies fast = new Latencies();
            phase("in process, right after the commit", store, seconds, threads, intervalMs, fast, false, out);
            Latencies relayed = new Latencies();
            phase("by the relay (the deciding node delivers nothing)", store, seconds, threads, intervalMs, relayed,
                    true, out);
        } finally {
            JdbcSchema.drop(dataSource, prefix);
            dataSource.close();
        }
    }

    private static void phase(String name, JdbcStore store, int seconds, int threads, int intervalMs, Latencies lag,
                              boolean relayOnly, PrintStream out) throws Exception {
        LongAdder events = new LongAdder();
        BookingListener listener = new BookingListener() {
            private void heard(Booking b) {
                lag.record(Math.max(0, Duration.between(b.updatedAt(), Instant.now()).toNanos()));
                events.increment();
            }

            @Override
            public void event(OutboxEvent event) {
                lag.record(Math.max(0, Duration.between(event.writtenAt(), Instant.now()).toNanos()));
                events.increment();
            }

            @Override
            public void held(Booking booking) {
                heard(booking);
            }

            @Override
            public void confirmed(Booking booking) {
                heard(booking);
            }

            @Override
            public void cancelled(Booking booking) {
                heard(booking);
            }
        };
        OutboxSettings settings = OutboxSettings.defaults()
                .withFastPathGrace(relayOnly ? Duration.ZERO : OutboxSettings.defaults().fastPathGrace())
                .withLease(Duration.ofSeconds(30), 500);
        BookingEngine relaying = BookingEngine.builder().store(store).holdPolicy(HoldPolicy.ofMinutes(10))
                .listener(listener).outbox(settings).build();
        // relay only: the deciding engine hears nothing and never runs a relay, so it records nothing delivered
        BookingEngine engine = relayOnly ? BookingEngine.builder().store(store).holdPolicy(HoldPolicy.ofMinutes(10))
                .outbox(settings).build() : relaying;
        TenantId tenant = TenantId.of("lag-" + UUID.randomUUID().toString().substring(0, 8));
        int slots = 200;
        Instant start = Instant.now().truncatedTo(ChronoUnit.DAYS).plus(Duration.ofDays(2));
        for (int s = 0; s < slots; s++) {
            engine.schedule(tenant, new SlotSpec(SlotId.of("s" + s), CoachId.of("c" + s), RoomId.of("r" + s),
                    TimeRange.of(start.plus(Duration.ofHours(s)), Duration.ofMinutes(50)), 1_000));
        }
        ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
        AutoCloseable relay = relaying.outbox().start(scheduler, Duration.ofMillis(intervalMs));
        LongAdder decisions = new LongAdder();
        long end = System.nanoTime() + Duration.ofSeconds(seconds).toNanos();
        Thread[] workers = new Thread[threads];
        for (int t = 0; t < threads; t++) {
            workers[t] = new Thread(() -> {
                ThreadLocalRandom random = ThreadLocalRandom.current();
                while (System.nanoTime() < end) {
                    StudentId student = StudentId.of("st-" + UUID.randomUUID());
                    HoldResult r = engine.hold(tenant, HoldRequest.of(RequestId.random(),
                            SlotId.of("s" + random.nextInt(slots)), student));
                    decisions.increment();
                    if (r instanceof Held held) {
                        if (random.nextBoolean()) {
                            engine.confirm(tenant, held.booking().bookingId(), student);
                        } else {
                            engine.cancel(tenant, held.booking().bookingId(), student);
                        }
                        decisions.increment();
                    }
                }
            });
            workers[t].start();
        }
        for (Thread w : workers) {
            w.join();
        }
        // let the relay catch up, then stop it
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (relaying.outbox().stats(tenant).pending() > 0 && System.nanoTime() < deadline) {
            Thread.sleep(intervalMs);
        }
        relay.close();
        scheduler.shutdown();
        out.printf(Locale.ROOT, "  delivery %-52s %,9d decisions (%,.0f/s), %,9d events: lag p50 %.2f ms, p99 %.2f ms,"
                        + " max %.2f ms; still pending %d%n", name, decisions.sum(), decisions.sum() / (double) seconds,
                events.sum(), lag.percentileMillis(50), lag.percentileMillis(99), lag.maxMillis(),
                engine.outbox().stats(tenant).pending());
    }
}
