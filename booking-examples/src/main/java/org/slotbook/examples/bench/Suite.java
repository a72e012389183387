package org.slotbook.examples.bench;

import java.io.OutputStream;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.jspecify.annotations.Nullable;
import org.slotbook.core.BookingEngine;
import org.slotbook.core.BookingStoreException;
import org.slotbook.core.HoldPolicy;
import org.slotbook.core.TenantId;
import org.slotbook.jdbc.JdbcDialect;

/**
 * One run of the load benchmark over every selected line: the databases and the gate it opened, the
 * order the lines run in, and what they measured. Every run uses fresh tenants, rows and Redis keys
 * (all under the run's own id and key prefix), and removes its rows and keys at the end: those of its
 * own tables, and every row of the Slotbook tenants its lines booked under.
 */
public final class Suite {
    private final Backends main;
    private final BenchDb mainDb;
    private final List<BenchDb> dbs = new ArrayList<>();
    private final PrintStream log;
    private final String run = Long.toString(System.currentTimeMillis(), 36)
            + UUID.randomUUID().toString().substring(0, 4);
    /** The engine behind the gate, or null without Redis. */
    private final BookingEngine gated;
    /** The Redis ceiling, under the gate's key prefix, or null without Redis. */
    private final RedisCeilingLine redisCeiling;
    private final List<Result> results = new ArrayList<>();
    private final List<Capacity> capacities = new ArrayList<>();
    private final Map<String, List<Double>> heap = new LinkedHashMap<>();
    private final List<String> profiles = new ArrayList<>();
    /** The Slotbook tenants of this run (warm-up included), deleted from every database at the end. */
    private final Set<TenantId> tenants = new LinkedHashSet<>();
    /** The hold policy of every engine of the run, the in-memory lines' included. */
    private final HoldPolicy policy;
    private PrintStream out;
    private boolean profiling;

    private Suite(Options options, Backends main, Backends citus, Backends mariadb, Backends h2, HoldPolicy policy,
                  PrintStream log) {
        this.main = main;
        this.policy = policy;
        this.log = log;
        this.out = log;
        this.mainDb = new BenchDb(main.store().dialect() == JdbcDialect.H2 ? "h2" : "pg", main.databaseName(), main,
                BenchRelay.startIfAsked(BookingEngine.builder().store(main.store()).holdPolicy(policy).build()));
        dbs.add(mainDb);
        if (citus != null) {
            dbs.add(new BenchDb("citus", citus.databaseName(), citus, citus.engine()));
        }
        if (mariadb != null) {
            dbs.add(new BenchDb("mariadb", mariadb.databaseName(), mariadb, BenchRelay.startIfAsked(mariadb.engine())));
        }
        if (h2 != null) {
            dbs.add(new BenchDb("h2", h2.databaseName(), h2, h2.engine()));
        }
        this.gated = options.noRedis() ? null : main.engine();
        this.redisCeiling = main.redis() == null ? null
                : new RedisCeilingLine(main.redis(), main.gateKeyPrefix() + "ceiling:");
    }

    /** Runs every selected line of every workload, prints progress and the tables to {@code out}. */
    public static Report run(Options options, PrintStream out) throws Exception {
        HoldPolicy policy = HoldPolicy.ofDefaults();
        int pool = options.threads() + 2;
        try (Backends main = Backends.open(options.jdbcUrl(), options.redisUrl(), options.noRedis(), out, pool, policy);
             Backends citus = options.citusUrl() == null ? null : Backends.openCitus(options.citusUrl(), out, pool, policy);
             Backends mariadb = options.mariadbUrl() == null ? null
                     : Backends.open(options.mariadbUrl(), null, true, out, pool, policy);
             Backends h2 = main.store().dialect() == JdbcDialect.H2 ? null
                     : Backends.open(null, null, true, out, pool, policy)) {
            Suite suite = new Suite(options, main, citus, mariadb, h2, policy, out);
            boolean memory = Options.WORKLOADS.stream().anyMatch(w -> options.runs(w + "-" + BenchMemory.KEY));
            out.printf(Locale.ROOT, "Bench: %d threads, hot and spread lines in %d turns; ledger %s; Citus %s; MariaDB %s;"
                            + " H2 line %s; gate %s; in-memory line %s%n", options.threads(), options.turns(),
                    main.ledgerName(), citus == null ? "(none)" : citus.ledgerName(),
                    mariadb == null ? "(none)" : mariadb.ledgerName(), h2 == null ? "(same database)" : h2.ledgerName(),
                    main.gateName(), memory ? BenchMemory.NAME + " (a fresh store per line)" : "(none)");
            out.printf(Locale.ROOT, "lines: %s%n", options.only() == null ? "all" : String.join(",",
                    Options.LINES.stream().filter(options.only()::contains).toList()));
            out.printf(Locale.ROOT, "cores %d, load average %.2f, max heap %d MB%n",
                    Runtime.getRuntime().availableProcessors(),
                    ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage(),
                    Runtime.getRuntime().maxMemory() >> 20);
            try {
                suite.prepareTables();
                if (options.warmup()) {
                    long t0 = System.nanoTime();
                    out.println("warm-up (not measured) ...");
                    suite.lines(options.warmupSizes(), "warm", new PrintStream(OutputStream.nullOutputStream()));
                    out.printf(Locale.ROOT, "warm-up done in %.1f s%n", (System.nanoTime() - t0) / 1e9);
                    suite.reset();
                }
                suite.lines(options, "run", out);
            } finally {
                suite.cleanUp();
            }
            Report report = suite.report();
            report.print(out);
            out.printf(Locale.ROOT, "load average at the end %.2f%n",
                    ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
            return report;
        }
    }

    /** Every selected line of every workload, in an interleaved order so a busy spell hurts no line alone. */
    private void lines(Options sizes, String phase, PrintStream progress) throws Exception {
        this.out = progress;
        this.profiling = sizes.profile();
        String tag = run + phase;
        for (String name : List.of("hot", "spread")) {
            Workload w = Workload.of(name, tag, sizes);
            if (w.hot()) {
                section("(a) hot slot: " + sizes.students() + " students, one slot of " + sizes.seats() + " seats");
            } else {
                section("(b) spread: " + sizes.requests() + " students on " + sizes.slots() + " slots x "
                        + sizes.seats() + " seats, slots picked at random");
            }
            boolean gateLine = gated != null && sizes.runs(name + "-gate");
            // every line of the workload prepared, in the order the table lists them
            List<Turns> lines = new ArrayList<>();
            for (BenchDb db : dbs) {
                boolean dbOnly = sizes.runs(name + "-" + db.key());
                boolean naive = db == mainDb && sizes.runs("naive");
                // Citus has none: the plain table of the ceiling would live on the coordinator alone
                if ((dbOnly && !db.key().equals("citus")) || naive || (db == mainDb && gateLine)) {
                    lines.add(DbCeilingLine.prepare(db, w, this));
                }
                if (naive) {
                    lines.add(NaiveLine.prepare(db, w));
                }
                if (dbOnly) {
                    lines.add(SlotbookLine.prepare(SlotbookLine.DB_ONLY, db, db.dbOnly(), w,
                            tenant(tag, db.key() + "-" + name), db == mainDb && !w.hot(), this));
                }
            }
            if (sizes.runs(name + "-" + BenchMemory.KEY)) {
                BenchMemory memory = BenchMemory.create(policy);
                lines.add(SlotbookLine.prepare(SlotbookLine.MEMORY, memory, memory.engine(), w,
                        memoryTenant(tag, name), false, this));
            }
            if (gateLine) {
                lines.add(redisCeiling.prepare(w));
                lines.add(SlotbookLine.prepare(SlotbookLine.GATED, mainDb, gated, w, tenant(tag, "gate-" + name),
                        w.hot(), this));
            }
            // then measured in turns: each line runs the next share of its requests, one line after the other
            List<List<Measured>> counted = new ArrayList<>();
            lines.forEach(line -> counted.add(new ArrayList<>()));
            int turns = Math.min(sizes.turns(), Math.max(1, w.requests()));
            for (int turn = 0; turn < turns; turn++) {
                int from = (int) ((long) w.requests() * turn / turns);
                int to = (int) ((long) w.requests() * (turn + 1) / turns);
                for (int l = 0; l < lines.size(); l++) {
                    counted.get(l).add(lines.get(l).run(from, to));
                }
            }
            for (int l = 0; l < lines.size(); l++) {
                add(lines.get(l).finish(Measured.sum(counted.get(l))));
            }
        }

        // (c) steady mix
        boolean gateMix = gated != null && sizes.runs("mix-gate");
        boolean memoryMix = sizes.runs("mix-" + BenchMemory.KEY);
        if (gateMix || memoryMix || dbs.stream().anyMatch(db -> sizes.runs("mix-" + db.key()))) {
            section("(c) steady mix: holds, confirms, cancels and rebooks on " + sizes.slots() + " slots x "
                    + sizes.seats() + " seats for " + sizes.mixSeconds() + " s per line");
        }
        for (BenchDb db : dbs) {
            if (sizes.runs("mix-" + db.key())) {
                add(MixLine.run(SlotbookLine.DB_ONLY, db, db.dbOnly(), tenant(tag, db.key() + "-mix"), sizes, this));
            }
        }
        if (memoryMix) {
            BenchMemory memory = BenchMemory.create(policy);
            add(MixLine.run(SlotbookLine.MEMORY, memory, memory.engine(), memoryTenant(tag, "mix"), sizes, this));
        }
        if (gateMix) {
            add(MixLine.run(SlotbookLine.GATED, mainDb, gated, tenant(tag, "gate-mix"), sizes, this));
        }

        // (d) capacity
        if (sizes.runs("capacity")) {
            section("(d) capacity: " + sizes.capacityHolds() + " holds on a slot of " + CapacityLine.SMALL_SEATS
                    + " seats and as many on a slot of " + sizes.capacitySeats() + " seats, interleaved,"
                    + " each hold followed by a cancel (not timed)");
            for (BenchDb db : dbs) {
                capacities.add(CapacityLine.run(db, tenant(tag, db.key() + "-capacity"), sizes, this));
            }
        }
        this.out = log;
    }

    private TenantId tenant(String tag, String what) {
        TenantId tenant = TenantId.of("bench-" + tag + "-" + what);
        tenants.add(tenant);
        return tenant;
    }

    /** A fresh tenant of an in-memory line: its store goes with the line, so no database has rows to delete. */
    private static TenantId memoryTenant(String tag, String workload) {
        return TenantId.of("bench-" + tag + "-" + BenchMemory.KEY + "-" + workload);
    }

    private void section(String title) {
        out.println();
        out.println(title);
    }

    /** Keeps a measured line and prints it. */
    void add(Result r) {
        results.add(r);
        Report.printProgress(out, r);
    }

    /** Where the lines print their progress. */
    PrintStream out() {
        return out;
    }

    /**
     * A profiler of the worker threads (and PostgreSQL's sessions), when {@code wanted}, the run
     * profiles and the ledger is a database; it counts samples only during the turns run through {@link #turn}.
     */
    @Nullable Profiler profiler(Ledger ledger, boolean wanted) {
        if (!wanted || !profiling || !(ledger instanceof BenchDb db)) {
            return null;
        }
        Profiler profiler = Profiler.start(db.backends());
        profiler.pause();
        return profiler;
    }

    /** One turn of a line: requests {@code from} to {@code to} on the workload's threads, profiled meanwhile. */
    static Measured turn(@Nullable Profiler profiler, Workload w, int from, int to, LoadDriver.Request request)
            throws InterruptedException {
        if (profiler != null) {
            profiler.resume();
        }
        try {
            return LoadDriver.threads(w.threads()).requests(from, to, request);
        } finally {
            if (profiler != null) {
                profiler.pause();
            }
        }
    }

    /** Stops the profiler, if any, and keeps and prints what it found. */
    void keepProfile(Profiler profiler, String what) {
        if (profiler != null) {
            String text = profiler.stop(what);
            profiles.add(text);
            out.print(text);
        }
    }

    void keepHeap(String label, List<Double> samples) {
        heap.put(label, samples);
    }

    private void reset() {
        results.clear();
        capacities.clear();
        heap.clear();
        profiles.clear();
    }

    private Report report() {
        return new Report(List.copyOf(results), List.copyOf(capacities), new LinkedHashMap<>(heap),
                Targets.of(results, capacities, mainDb.name()), List.copyOf(profiles), List.copyOf(tenants));
    }

    private void prepareTables() throws SQLException {
        for (BenchDb db : dbs) {
            NaiveLine.prepare(db);
            DbCeilingLine.prepare(db);
        }
    }

    /**
     * Removes this run's rows from the benchmark's own tables and the rows of its Slotbook tenants from
     * every database, and the run's Redis keys (by SCAN).
     */
    private void cleanUp() {
        for (BenchDb db : dbs) {
            try {
                db.deleteRun(NaiveLine.TABLE, run);
                db.deleteRun(DbCeilingLine.TABLE, run);
            } catch (SQLException e) {
                log.println("could not delete the run's rows: " + e.getMessage());
            }
            // a tenant of this run that never reached this database deletes nothing
            for (TenantId tenant : tenants) {
                try {
                    db.backends().deleteTenant(tenant);
                } catch (BookingStoreException e) {
                    log.println("could not delete the rows of tenant " + tenant.value() + ": " + e.getMessage());
                }
            }
        }
        if (main.redis() != null) {
            try {
                RedisCleanUp.deleteMatching(main.redis(), main.gateKeyPattern());
            } catch (RuntimeException e) {
                log.println("could not delete the run's Redis keys: " + e.getMessage());
            }
        }
    }
}
