package org.slotbook.examples;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import javax.sql.DataSource;
import org.slotbook.core.BookingEngine;
import org.slotbook.core.BookingId;
import org.slotbook.core.CoachId;
import org.slotbook.core.Confirmed;
import org.slotbook.core.Cancelled;
import org.slotbook.core.Full;
import org.slotbook.core.Held;
import org.slotbook.core.HoldPolicy;
import org.slotbook.core.HoldRequest;
import org.slotbook.core.HoldResult;
import org.slotbook.core.RequestId;
import org.slotbook.core.RoomId;
import org.slotbook.core.ScheduleResult;
import org.slotbook.core.Scheduled;
import org.slotbook.core.SlotId;
import org.slotbook.core.SlotSpec;
import org.slotbook.core.StudentId;
import org.slotbook.core.TenantId;
import org.slotbook.core.TimeRange;
import org.slotbook.jdbc.JdbcDialect;
import org.slotbook.redis.RedisSeatReservation;
import org.slotbook.redis.internal.GateScripts;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.params.SetParams;

/**
 * The load benchmark: in one process, side by side on the same database and Redis, the naive way
 * (count, then insert), Slotbook DB-only (on the given database and on H2 in memory), and Slotbook
 * with the Redis gate, each compared with a raw ceiling measured in the same run.
 *
 * <pre>
 * mvn -q -pl booking-examples -am package -DskipTests exec:java -Dexec.mainClass=org.slotbook.examples.Bench \
 *     -Dexec.args="--jdbc jdbc:postgresql://127.0.0.1:5432/test?user=postgres --redis redis://127.0.0.1:6379"
 * </pre>
 *
 * Workloads: (a) hot slot, every student holding a seat of one slot; (b) spread, students holding
 * seats of slots picked at random; (c) a steady mix of holds, confirms, cancels and rebooks for a
 * number of seconds, with the used heap after GC sampled along the way. Oversold seats and
 * double-booked students are counted by SQL queries of their own on the tables, never from answers.
 * Every run uses fresh tenants, tables rows and Redis keys, so the same servers can be reused.
 */
public final class Bench {
    static final String NAIVE = "naive: count, then insert";
    static final String DB_CEILING = "ceiling: single-statement claim";
    static final String REDIS_CEILING = "ceiling: Jedis EVALSHA hold.lua";
    static final String SLOTBOOK_DB = "Slotbook DB-only";
    static final String SLOTBOOK_GATE = "Slotbook Redis gate +";
    /** Seats of the small slot of the capacity line. */
    static final int CAPACITY_SMALL = 10;

    private Bench() {
    }

    // ------------------------------------------------------------------ options

    /** The workloads of the lines {@code --only} can name per backend. */
    static final List<String> WORKLOADS = List.of("hot", "spread", "mix");
    /** The backends of the lines {@code --only} can name per workload. */
    static final List<String> BACKENDS = List.of("pg", "mariadb", "h2", "gate");
    /** Every line {@code --only} accepts on its own: workload-backend, then naive and capacity. */
    static final List<String> LINES;

    static {
        List<String> lines = new ArrayList<>();
        for (String backend : BACKENDS) {
            for (String workload : WORKLOADS) {
                lines.add(workload + "-" + backend);
            }
        }
        lines.add("naive");
        lines.add("capacity");
        LINES = List.copyOf(lines);
    }

    /** The run's settings, parsed from the command line. {@code only} holds line names from {@link #LINES}. */
    public record Options(String jdbcUrl, String mariadbUrl, String redisUrl, boolean noRedis, Set<String> only,
                          int students, int seats, int slots, int requests, int mixSeconds, int threads,
                          int capacityHolds, int capacitySeats, boolean warmup, boolean profile) {
        static final String USAGE = String.join("\n",
                "usage: Bench [--jdbc URL] [--mariadb URL] [--redis URL | --no-redis] [--only LINE,...]",
                "       Bench waitlist [flags]   a waitlisted hot slot (WaitlistBench; an unknown flag prints its flags)",
                "       Bench shards [flags]     the flash sale over one and two shards (ShardBench)",
                "             [--students N] [--seats N] [--slots N] [--requests N] [--mix-seconds N] [--threads N]",
                "             [--capacity-holds N] [--capacity-seats N] [--no-warmup] [--no-profile]",
                "  --jdbc URL         PostgreSQL (jdbc:postgresql:...): the naive line, its single-statement ceiling,",
                "                     Slotbook DB-only, and the ledger behind the gate. Without it H2 in memory takes",
                "                     that place (the naive line and the gate then run on H2).",
                "  --mariadb URL      MariaDB (jdbc:mariadb:...): Slotbook DB-only and its own single-statement ceiling",
                "  --redis URL        Redis of the gate line (redis://127.0.0.1:6379); default: an embedded Redis",
                "  --no-redis         no gate line",
                "  --only LINE,...    run only these lines (default: every line the given servers allow):",
                "                       hot-pg, spread-pg, mix-pg           Slotbook DB-only on --jdbc",
                "                       hot-mariadb, spread-mariadb, mix-mariadb   Slotbook DB-only on --mariadb",
                "                       hot-h2, spread-h2, mix-h2           Slotbook DB-only on H2 in memory",
                "                       hot-gate, spread-gate, mix-gate     Slotbook Redis gate + the --jdbc database",
                "                       naive                               count, then insert (hot and spread) on --jdbc",
                "                       capacity                            holds on 10 vs --capacity-seats seats,",
                "                                                           per database (H2, --jdbc, --mariadb)",
                "                     pg, mariadb, h2 and gate name all three workloads of that backend.",
                "                     A hot or spread line brings its ceiling along (the gate: Redis and database).",
                "  --students N       hot slot: students holding a seat of one slot (default 10000)",
                "  --seats N          seats per slot (default 10)",
                "  --slots N          spread and mix: number of slots (default 1000)",
                "  --requests N       spread: hold requests on random slots (default 20000)",
                "  --mix-seconds N    steady mix: seconds per line (default 30)",
                "  --threads N        client threads, also the connection pool size (default 32)",
                "  --capacity-holds N capacity: holds on each of the two slots (default 200)",
                "  --capacity-seats N capacity: seats of the large slot (default 100000; the small one has 10)",
                "  --no-warmup        measure without a warm-up pass first",
                "  --no-profile       do not sample threads and pg_stat_activity during the measurements");

        public static Options parse(String... args) {
            String jdbc = null;
            String mariadb = null;
            String redis = null;
            boolean noRedis = false;
            String onlyText = null;
            int students = 10_000;
            int seats = 10;
            int slots = 1_000;
            int requests = 20_000;
            int mixSeconds = 30;
            int threads = 32;
            int capacityHolds = 200;
            int capacitySeats = SlotSpec.MAX_CAPACITY;
            boolean warmup = true;
            boolean profile = true;
            for (int i = 0; i < args.length; i++) {
                String flag = args[i];
                switch (flag) {
                    case "--jdbc" -> jdbc = Flags.value(args, ++i, flag);
                    case "--mariadb" -> mariadb = Flags.value(args, ++i, flag);
                    case "--redis" -> redis = Flags.value(args, ++i, flag);
                    case "--no-redis" -> noRedis = true;
                    case "--only" -> onlyText = Flags.value(args, ++i, flag);
                    case "--students" -> students = Flags.number(args, ++i, flag, 1, 10_000_000);
                    case "--seats" -> seats = Flags.number(args, ++i, flag, 1, SlotSpec.MAX_CAPACITY);
                    case "--slots" -> slots = Flags.number(args, ++i, flag, 1, 100_000);
                    case "--requests" -> requests = Flags.number(args, ++i, flag, 1, 10_000_000);
                    case "--mix-seconds" -> mixSeconds = Flags.number(args, ++i, flag, 1, 3_600);
                    case "--threads" -> threads = Flags.number(args, ++i, flag, 1, 512);
                    case "--capacity-holds" -> capacityHolds = Flags.number(args, ++i, flag, 1, 1_000_000);
                    case "--capacity-seats" -> capacitySeats = Flags.number(args, ++i, flag, CAPACITY_SMALL,
                            SlotSpec.MAX_CAPACITY);
                    case "--no-warmup" -> warmup = false;
                    case "--no-profile" -> profile = false;
                    default -> throw new IllegalArgumentException("unknown flag '" + flag + "'");
                }
            }
            if (noRedis && redis != null) {
                throw new IllegalArgumentException("--redis and --no-redis exclude each other");
            }
            if (jdbc != null && !jdbc.startsWith("jdbc:postgresql:")) {
                throw new IllegalArgumentException("--jdbc must be a JDBC URL of PostgreSQL (jdbc:postgresql:...), got '"
                        + jdbc + "'");
            }
            if (mariadb != null && !mariadb.startsWith("jdbc:mariadb:")) {
                throw new IllegalArgumentException("--mariadb must be a JDBC URL of MariaDB (jdbc:mariadb:...), got '"
                        + mariadb + "'");
            }
            if (redis != null && !redis.startsWith("redis://")) {
                throw new IllegalArgumentException("--redis must be a redis:// URL, got '" + redis + "'");
            }
            Set<String> only = onlyText == null ? null : only(onlyText, jdbc != null, mariadb != null, !noRedis);
            return new Options(jdbc, mariadb, redis, noRedis, only, students, seats, slots, requests, mixSeconds,
                    threads, capacityHolds, capacitySeats, warmup, profile);
        }

        /** The lines named by {@code --only}, groups expanded; names needing a server not given are refused. */
        private static Set<String> only(String text, boolean pg, boolean mariadb, boolean gate) {
            Set<String> lines = new LinkedHashSet<>();
            for (String raw : text.split(",", -1)) {
                String name = raw.trim().toLowerCase(Locale.ROOT);
                if (BACKENDS.contains(name)) {
                    WORKLOADS.forEach(w -> lines.add(w + "-" + name));
                } else if (LINES.contains(name)) {
                    lines.add(name);
                } else {
                    throw new IllegalArgumentException("--only: unknown line '" + raw.trim() + "'; lines: "
                            + String.join(", ", LINES) + " (or pg, mariadb, h2, gate for all three workloads)");
                }
            }
            for (String line : lines) {
                if (line.endsWith("-pg") && !pg) {
                    throw new IllegalArgumentException("--only " + line + " needs --jdbc (PostgreSQL)");
                }
                if (line.endsWith("-mariadb") && !mariadb) {
                    throw new IllegalArgumentException("--only " + line + " needs --mariadb");
                }
                if (line.endsWith("-gate") && !gate) {
                    throw new IllegalArgumentException("--only " + line + " needs Redis (not --no-redis)");
                }
            }
            return Set.copyOf(lines);
        }

        /** Whether the run includes {@code line} (a name from {@link #LINES}). */
        boolean runs(String line) {
            return only == null || only.contains(line);
        }

        /** The same run, scaled down to warm the JIT up. */
        Options warmupSizes() {
            return new Options(jdbcUrl, mariadbUrl, redisUrl, noRedis, only, Math.min(students, 2_000), seats,
                    Math.min(slots, 100), Math.min(requests, 2_000), Math.min(mixSeconds, 3), threads,
                    Math.min(capacityHolds, 100), Math.min(capacitySeats, 1_000), false, false);
        }
    }

    // ------------------------------------------------------------------ results

    /** One measured line of one workload. {@code oversold} and {@code doubleBooked} are null where not counted. */
    public record Result(String workload, String line, String backend, int threads, long decisions, long holds,
                         long errors, double seconds, double p50Millis, double p99Millis, double maxMillis,
                         Long oversold, Long doubleBooked, String note) {
        public double decisionsPerSecond() {
            return decisions / seconds;
        }

        public double holdsPerSecond() {
            return holds / seconds;
        }

        public boolean isSlotbook() {
            return line.startsWith("Slotbook");
        }

        public boolean isCeiling() {
            return line.startsWith("ceiling");
        }

        String label() {
            return line + " (" + backend + ")";
        }
    }

    /**
     * The capacity line of one database: holds on a slot of {@value #CAPACITY_SMALL} seats and on a large
     * slot, interleaved on the same threads. Each hold is followed by a cancel (not timed) that frees its
     * seat, so every hold on the small slot finds one too. The rate of a size is its holds divided by the
     * time the threads spent in them; {@link #ratio()} is the cost of a hold at the large size over its cost
     * at the small one.
     */
    public record Capacity(String backend, int largeSeats, Result small, Result large) {
        public double ratio() {
            return small.decisionsPerSecond() / large.decisionsPerSecond();
        }
    }

    /** Everything a run measured. */
    public record Report(List<Result> results, List<Capacity> capacities, Map<String, List<Double>> heapAfterGcMegabytes,
                         List<String> targets, List<String> profiles) {
        public List<Result> slotbookResults() {
            return results.stream().filter(Result::isSlotbook).toList();
        }
    }

    // ------------------------------------------------------------------ main

    public static void main(String[] args) throws Exception {
        if (args.length > 0 && (args[0].equals("waitlist") || args[0].equals("shards"))) {
            // the lines with a driver of their own: a waitlisted hot slot, and the flash sale over shards
            String[] rest = java.util.Arrays.copyOfRange(args, 1, args.length);
            if (args[0].equals("waitlist")) {
                WaitlistBench.main(rest);
            } else {
                ShardBench.main(rest);
            }
            return;
        }
        Options options;
        try {
            options = Options.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println("Bench: " + e.getMessage());
            System.err.println(Options.USAGE);
            System.exit(2);
            return;
        }
        Report report = run(options, System.out);
        boolean clean = report.slotbookResults().stream()
                .allMatch(r -> Objects.equals(r.oversold(), 0L) && Objects.equals(r.doubleBooked(), 0L));
        System.exit(clean ? 0 : 1);
    }

    /** Runs every selected line of every workload, prints progress and the tables to {@code out}. */
    public static Report run(Options options, PrintStream out) throws Exception {
        HoldPolicy policy = HoldPolicy.ofDefaults();
        int pool = options.threads() + 2;
        try (Backends main = Backends.open(options.jdbcUrl(), options.redisUrl(), options.noRedis(), out, pool, policy);
             Backends mariadb = options.mariadbUrl() == null ? null
                     : Backends.open(options.mariadbUrl(), null, true, out, pool, policy);
             Backends h2 = main.store().dialect() == JdbcDialect.H2 ? null
                     : Backends.open(null, null, true, out, pool, policy)) {
            Session session = new Session(options, main, mariadb, h2, policy, out);
            out.printf(Locale.ROOT, "Bench: %d threads; ledger %s; MariaDB %s; H2 line %s; gate %s%n",
                    options.threads(), main.ledgerName(), mariadb == null ? "(none)" : mariadb.ledgerName(),
                    h2 == null ? "(same database)" : h2.ledgerName(), main.gateName());
            out.printf(Locale.ROOT, "lines: %s%n", options.only() == null ? "all" : String.join(",",
                    LINES.stream().filter(options.only()::contains).toList()));
            out.printf(Locale.ROOT, "cores %d, load average %.2f, max heap %d MB%n",
                    Runtime.getRuntime().availableProcessors(),
                    ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage(),
                    Runtime.getRuntime().maxMemory() >> 20);
            try {
                session.prepareCeilingTables();
                if (options.warmup()) {
                    long t0 = System.nanoTime();
                    out.println("warm-up (not measured) ...");
                    session.suite(options.warmupSizes(), "warm", new PrintStream(OutputStream.nullOutputStream()));
                    out.printf(Locale.ROOT, "warm-up done in %.1f s%n", (System.nanoTime() - t0) / 1e9);
                    session.reset();
                }
                session.suite(options, "run", out);
            } finally {
                session.cleanUp();
            }
            Report report = session.report();
            print(report, out);
            out.printf(Locale.ROOT, "load average at the end %.2f%n",
                    ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
            return report;
        }
    }

    // ------------------------------------------------------------------ one run over all lines

    /** One database of the run: its key in line names ({@code pg}, {@code mariadb}, {@code h2}) and engines. */
    private record Db(String key, String name, Backends backends, BookingEngine dbOnly) {
    }

    private static final class Session {
        private final Options options;
        private final Backends main;
        private final Db mainDb;
        private final List<Db> dbs = new ArrayList<>();
        private final PrintStream log;
        private final String run = Long.toString(System.currentTimeMillis(), 36)
                + UUID.randomUUID().toString().substring(0, 4);
        private final BookingEngine gated;
        private final String mainName;
        private final String redisPrefix;
        private final List<Result> results = new ArrayList<>();
        private final List<Capacity> capacities = new ArrayList<>();
        private final Map<String, List<Double>> heap = new LinkedHashMap<>();
        private final List<String> profiles = new ArrayList<>();
        private PrintStream out;
        private boolean profiling;

        Session(Options options, Backends main, Backends mariadb, Backends h2, HoldPolicy policy, PrintStream log) {
            this.options = options;
            this.main = main;
            this.log = log;
            this.out = log;
            this.mainName = dialectName(main.store().dialect());
            this.mainDb = new Db(main.store().dialect() == JdbcDialect.H2 ? "h2" : "pg", mainName, main,
                    BookingEngine.builder().store(main.store()).holdPolicy(policy).build());
            dbs.add(mainDb);
            if (mariadb != null) {
                dbs.add(new Db("mariadb", "MariaDB", mariadb, mariadb.engine()));
            }
            if (h2 != null) {
                dbs.add(new Db("h2", "H2", h2, h2.engine()));
            }
            this.gated = options.noRedis() ? null : main.engine();
            this.redisPrefix = main.gateKeyPrefix() == null ? null : main.gateKeyPrefix() + "ceiling:";
        }

        void reset() {
            results.clear();
            capacities.clear();
            heap.clear();
            profiles.clear();
        }

        Report report() {
            return new Report(List.copyOf(results), List.copyOf(capacities), new LinkedHashMap<>(heap), targets(),
                    List.copyOf(profiles));
        }

        /** Every selected line of every workload, in an interleaved order so a busy spell hurts no line alone. */
        void suite(Options sizes, String phase, PrintStream progress) throws Exception {
            this.out = progress;
            this.profiling = sizes.profile();
            int threads = sizes.threads();
            String tag = run + phase;
            boolean gateRuns = gated != null;

            for (String workload : List.of("hot", "spread")) {
                boolean hot = workload.equals("hot");
                int slots = hot ? 1 : sizes.slots();
                int requests = hot ? sizes.students() : sizes.requests();
                if (hot) {
                    section("(a) hot slot: " + sizes.students() + " students, one slot of " + sizes.seats()
                            + " seats");
                } else {
                    section("(b) spread: " + sizes.requests() + " students on " + sizes.slots() + " slots x "
                            + sizes.seats() + " seats, slots picked at random");
                }
                boolean gateLine = gateRuns && sizes.runs(workload + "-gate");
                for (Db db : dbs) {
                    boolean dbOnly = sizes.runs(workload + "-" + db.key());
                    boolean naive = db == mainDb && sizes.runs("naive");
                    if (dbOnly || naive || (db == mainDb && gateLine)) {
                        add(dbCeiling(db.backends(), db.name(), workload, tag, slots, sizes.seats(), requests,
                                threads));
                    }
                    if (naive) {
                        add(naive(db.backends(), db.name(), workload, tag, slots, sizes.seats(), requests, threads));
                    }
                    if (dbOnly) {
                        add(slotbook(SLOTBOOK_DB, db.name(), db.dbOnly(), db.backends(), workload,
                                tenant(tag, db.key() + "-" + workload), slots, sizes.seats(), requests, threads,
                                db == mainDb && !hot));
                    }
                }
                if (gateLine) {
                    add(redisCeiling(workload, tag, slots, sizes.seats(), requests, threads));
                    add(slotbook(SLOTBOOK_GATE, mainName, gated, main, workload, tenant(tag, "gate-" + workload),
                            slots, sizes.seats(), requests, threads, hot));
                }
            }

            // (c) steady mix
            if (dbs.stream().anyMatch(db -> sizes.runs("mix-" + db.key())) || (gateRuns && sizes.runs("mix-gate"))) {
                section("(c) steady mix: holds, confirms, cancels and rebooks on " + sizes.slots() + " slots x "
                        + sizes.seats() + " seats for " + sizes.mixSeconds() + " s per line");
            }
            for (Db db : dbs) {
                if (sizes.runs("mix-" + db.key())) {
                    add(mix(SLOTBOOK_DB, db.name(), db.dbOnly(), db.backends(), tenant(tag, db.key() + "-mix"), sizes));
                }
            }
            if (gateRuns && sizes.runs("mix-gate")) {
                add(mix(SLOTBOOK_GATE, mainName, gated, main, tenant(tag, "gate-mix"), sizes));
            }

            // (d) capacity
            if (sizes.runs("capacity")) {
                section("(d) capacity: " + sizes.capacityHolds() + " holds on a slot of " + CAPACITY_SMALL
                        + " seats and as many on a slot of " + sizes.capacitySeats() + " seats, interleaved,"
                        + " each hold followed by a cancel (not timed)");
                for (Db db : dbs) {
                    capacity(db, tag, sizes);
                }
            }
            this.out = log;
        }

        private void section(String title) {
            out.println();
            out.println(title);
        }

        private void add(Result r) {
            results.add(r);
            out.printf(Locale.ROOT, "  %-52s %9.0f decisions/s %9.0f holds/s  p50 %7.2f  p99 %7.2f  max %8.2f ms"
                            + "  errors %d  oversold %s  double-booked %s%s%n",
                    r.label(), r.decisionsPerSecond(), r.holdsPerSecond(), r.p50Millis(), r.p99Millis(),
                    r.maxMillis(), r.errors(), text(r.oversold()), text(r.doubleBooked()),
                    r.note().isEmpty() ? "" : "  [" + r.note() + "]");
        }

        private static TenantId tenant(String tag, String what) {
            return TenantId.of("bench-" + tag + "-" + what);
        }

        // ------------------------------------------------------------ Slotbook lines

        private Result slotbook(String line, String backend, BookingEngine engine, Backends db, String workload,
                                TenantId tenant, int slots, int seats, int requests, int threads, boolean profile)
                throws Exception {
            SlotId[] ids = schedule(engine, tenant, slots, seats, threads);
            int[] pick = picks(requests, slots, tenant.value().hashCode());
            Profiler profiler = profile && profiling ? Profiler.start(db) : null;
            long gateFullBefore = engine.metrics().gateFull();
            Measured m = drive(threads, requests, (thread, i) -> {
                // request ids as a host passes them in: unique per tenant, no random source (UUID) contended
                HoldResult r = engine.hold(tenant,
                        HoldRequest.of(RequestId.of("request-" + i), ids[pick[i]], StudentId.of("student-" + i)));
                return r instanceof Held h && !h.replayed();
            });
            keepProfile(profiler, workload + ", " + line + " (" + backend + ")");
            long[] check = checkStorage(db, tenant);
            long gateFull = engine.metrics().gateFull() - gateFullBefore;
            String note = gateFull > 0 ? gateFull + " answered full by the gate alone" : "";
            return m.result(workload, line, backend, threads, check[0], check[1], note);
        }

        private Result mix(String line, String backend, BookingEngine engine, Backends db, TenantId tenant,
                           Options sizes) throws Exception {
            int threads = sizes.threads();
            int slots = sizes.slots();
            SlotId[] ids = schedule(engine, tenant, slots, sizes.seats(), threads);
            // 1.5 students per seat: some holds find their slot full, most seats keep turning over
            int perThread = Math.max(2, (int) Math.ceil(1.5 * slots * sizes.seats() / threads));
            LongAdder confirms = new LongAdder();
            LongAdder cancels = new LongAdder();
            LongAdder rebooks = new LongAdder();
            LongAdder full = new LongAdder();
            HeapSampler sampler = new HeapSampler(Duration.ofSeconds(Math.min(3, Math.max(1, sizes.mixSeconds() / 3))));
            sampler.start();
            Measured m;
            try {
                m = driveFor(threads, Duration.ofSeconds(sizes.mixSeconds()), thread -> {
                    SplittableRandom random = new SplittableRandom(tenant.value().hashCode() * 31L + thread);
                    BookingId[] booking = new BookingId[perThread];
                    byte[] state = new byte[perThread]; // 0 none, 1 held, 2 confirmed
                    boolean[] cancelledBefore = new boolean[perThread];
                    long[] requests = new long[1];
                    return () -> {
                        int s = random.nextInt(perThread);
                        StudentId student = StudentId.of("m" + thread + "-" + s);
                        switch (state[s]) {
                            case 0 -> {
                                HoldResult r = engine.hold(tenant, HoldRequest.of(
                                        RequestId.of("m" + thread + "-" + requests[0]++), ids[random.nextInt(slots)],
                                        student));
                                if (r instanceof Held h) {
                                    booking[s] = h.booking().bookingId();
                                    state[s] = 1;
                                    if (cancelledBefore[s]) {
                                        rebooks.increment();
                                    }
                                    return !h.replayed();
                                }
                                if (r instanceof Full) {
                                    full.increment();
                                }
                                return false;
                            }
                            case 1 -> {
                                if (random.nextInt(10) < 8) {
                                    state[s] = engine.confirm(tenant, booking[s], student) instanceof Confirmed
                                            ? (byte) 2 : 0;
                                    confirms.increment();
                                } else {
                                    cancel(engine, tenant, booking[s], student, cancels);
                                    state[s] = 0;
                                    cancelledBefore[s] = true;
                                }
                                return false;
                            }
                            default -> {
                                cancel(engine, tenant, booking[s], student, cancels);
                                state[s] = 0;
                                cancelledBefore[s] = true;
                                return false;
                            }
                        }
                    };
                });
            } finally {
                sampler.stop();
            }
            String label = line + " (" + backend + ")";
            heap.put(label, sampler.samples());
            out.printf(Locale.ROOT, "  %s: %d confirms, %d cancels, %d rebooks, %d holds refused as full;"
                            + " used heap after GC (MB): %s%n", label, confirms.sum(), cancels.sum(), rebooks.sum(),
                    full.sum(), megabytes(sampler.samples()));
            long[] check = checkStorage(db, tenant);
            return m.result("mix", line, backend, threads, check[0], check[1], String.format(Locale.ROOT,
                    "%d confirms, %d cancels, %d rebooks", confirms.sum(), cancels.sum(), rebooks.sum()));
        }

        private static void cancel(BookingEngine engine, TenantId tenant, BookingId booking, StudentId student,
                                   LongAdder cancels) {
            if (engine.cancel(tenant, booking, student) instanceof Cancelled) {
                cancels.increment();
            }
        }

        /** Schedules {@code slots} slots at the same time, each with its own coach and room. */
        private SlotId[] schedule(BookingEngine engine, TenantId tenant, int slots, int seats, int threads)
                throws Exception {
            Instant start = Instant.now().truncatedTo(ChronoUnit.DAYS).plus(Duration.ofDays(2));
            TimeRange time = TimeRange.of(start, Duration.ofMinutes(60));
            SlotId[] ids = new SlotId[slots];
            Measured m = drive(Math.min(threads, 8), slots, (thread, i) -> {
                ids[i] = SlotId.of("slot-" + i);
                ScheduleResult r = engine.schedule(tenant, new SlotSpec(ids[i], CoachId.of("coach-" + i),
                        RoomId.of("room-" + i), time, seats));
                if (!(r instanceof Scheduled)) {
                    throw new IllegalStateException("could not schedule " + ids[i] + ": " + r);
                }
                return true;
            });
            if (m.errors > 0) {
                throw new IllegalStateException("scheduling failed: " + m.firstError.get(), m.firstError.get());
            }
            return ids;
        }

        /**
         * Over-capacity seats and double-booked students of the tenant, by queries of their own: live
         * bookings (HELD or CONFIRMED) per slot against its capacity, and students with more than one
         * live booking (all slots of a run share one time, so two live bookings overlap).
         */
        private static long[] checkStorage(Backends db, TenantId tenant) throws SQLException {
            String p = db.store().tablePrefix();
            String perSlot = "SELECT s.capacity, (SELECT COUNT(*) FROM " + p + "booking b WHERE b.tenant_id = s.tenant_id"
                    + " AND b.slot_id = s.slot_id AND b.status IN ('HELD', 'CONFIRMED')) FROM " + p + "slot s"
                    + " WHERE s.tenant_id = ?";
            String doubles = "SELECT COUNT(*) FROM (SELECT student_id FROM " + p + "booking WHERE tenant_id = ?"
                    + " AND status IN ('HELD', 'CONFIRMED') GROUP BY student_id HAVING COUNT(*) > 1) d";
            long oversold = 0;
            long doubled;
            try (Connection c = db.dataSource().getConnection()) {
                try (PreparedStatement ps = c.prepareStatement(perSlot)) {
                    ps.setString(1, tenant.value());
                    try (ResultSet rs = ps.executeQuery()) {
                        while (rs.next()) {
                            oversold += Math.max(0, rs.getLong(2) - rs.getLong(1));
                        }
                    }
                }
                try (PreparedStatement ps = c.prepareStatement(doubles)) {
                    ps.setString(1, tenant.value());
                    try (ResultSet rs = ps.executeQuery()) {
                        rs.next();
                        doubled = rs.getLong(1);
                    }
                }
            }
            return new long[] {oversold, doubled};
        }

        // ------------------------------------------------------------ capacity line

        /**
         * Holds on a slot of {@value Bench#CAPACITY_SMALL} seats and on a slot of {@code capacitySeats} seats of
         * the same tenant, interleaved request by request on the same threads (at most
         * {@value Bench#CAPACITY_SMALL}, so the small slot always has a free seat: each thread cancels its hold,
         * untimed, before its next one). A size's rate is its holds over the time the threads spent in them.
         */
        private void capacity(Db db, String tag, Options sizes) throws Exception {
            BookingEngine engine = db.dbOnly();
            TenantId tenant = tenant(tag, db.key() + "-capacity");
            int[] seats = {CAPACITY_SMALL, sizes.capacitySeats()};
            SlotId[] slots = new SlotId[2];
            TimeRange time = TimeRange.of(Instant.now().truncatedTo(ChronoUnit.DAYS).plus(Duration.ofDays(3)),
                    Duration.ofMinutes(60));
            for (int k = 0; k < 2; k++) {
                slots[k] = SlotId.of("capacity-" + seats[k]);
                ScheduleResult r = engine.schedule(tenant, new SlotSpec(slots[k], CoachId.of("coach-c" + k),
                        RoomId.of("room-c" + k), time, seats[k]));
                if (!(r instanceof Scheduled)) {
                    throw new IllegalStateException("could not schedule " + slots[k] + ": " + r);
                }
            }
            int threads = Math.min(sizes.threads(), CAPACITY_SMALL);
            Latencies[] latencies = {new Latencies(), new Latencies()};
            LongAdder[] nanos = {new LongAdder(), new LongAdder()};
            LongAdder[] decisions = {new LongAdder(), new LongAdder()};
            LongAdder[] holds = {new LongAdder(), new LongAdder()};
            LongAdder[] errors = {new LongAdder(), new LongAdder()};
            AtomicReference<Throwable> firstError = new AtomicReference<>();
            drive(threads, 2 * sizes.capacityHolds(), (thread, i) -> {
                int k = i & 1;
                StudentId student = StudentId.of("c-" + i);
                long t0 = System.nanoTime();
                HoldResult r;
                try {
                    r = engine.hold(tenant, HoldRequest.of(RequestId.of("c-" + i), slots[k], student));
                } catch (RuntimeException e) {
                    errors[k].increment();
                    firstError.compareAndSet(null, e);
                    throw e;
                }
                long elapsed = System.nanoTime() - t0;
                latencies[k].record(elapsed);
                nanos[k].add(elapsed);
                decisions[k].increment();
                if (r instanceof Held h) {
                    holds[k].increment();
                    if (!(engine.cancel(tenant, h.booking().bookingId(), student) instanceof Cancelled)) {
                        throw new IllegalStateException("could not cancel " + h.booking().bookingId());
                    }
                    return true;
                }
                return false;
            });
            long[] check = checkStorage(db.backends(), tenant);
            Result[] measured = new Result[2];
            for (int k = 0; k < 2; k++) {
                double seconds = nanos[k].sum() / 1e9 / threads;
                String note = firstError.get() == null ? "" : "first error: " + firstError.get();
                measured[k] = new Result("capacity", String.format(Locale.ROOT, "%s, %,d seats", SLOTBOOK_DB,
                        seats[k]), db.name(), threads, decisions[k].sum(), holds[k].sum(), errors[k].sum(),
                        seconds, latencies[k].percentileMillis(50), latencies[k].percentileMillis(99),
                        latencies[k].maxMillis(), check[0], check[1], note);
                add(measured[k]);
            }
            Capacity c = new Capacity(db.name(), seats[1], measured[0], measured[1]);
            capacities.add(c);
            out.printf(Locale.ROOT, "  capacity (%s): a hold at %,d seats costs %.2fx a hold at %d seats%n",
                    db.name(), seats[1], c.ratio(), CAPACITY_SMALL);
        }

        // ------------------------------------------------------------ naive line

        private Result naive(Backends db, String backend, String workload, String tag, int slots, int seats,
                             int requests, int threads) throws Exception {
            String table = db.store().tablePrefix() + "bench_naive";
            String runId = tag + "-" + workload;
            int[] pick = picks(requests, slots, runId.hashCode());
            DataSource ds = db.dataSource();
            Measured m = drive(threads, requests, (thread, i) -> {
                try (Connection c = ds.getConnection()) {
                    c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
                    c.setAutoCommit(false);
                    try {
                        long taken;
                        try (PreparedStatement ps = c.prepareStatement(
                                "SELECT COUNT(*) FROM " + table + " WHERE run_id = ? AND slot_id = ?")) {
                            ps.setString(1, runId);
                            ps.setInt(2, pick[i]);
                            try (ResultSet rs = ps.executeQuery()) {
                                rs.next();
                                taken = rs.getLong(1);
                            }
                        }
                        boolean booked = false;
                        if (taken < seats) {
                            try (PreparedStatement ps = c.prepareStatement(
                                    "INSERT INTO " + table + " (run_id, slot_id, student_id) VALUES (?, ?, ?)")) {
                                ps.setString(1, runId);
                                ps.setInt(2, pick[i]);
                                ps.setString(3, "student-" + i);
                                ps.executeUpdate();
                            }
                            booked = true;
                        }
                        c.commit();
                        return booked;
                    } catch (SQLException e) {
                        c.rollback();
                        throw e;
                    } finally {
                        c.setAutoCommit(true);
                    }
                }
            });
            long oversold = 0;
            try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement(
                    "SELECT COUNT(*) FROM " + table + " WHERE run_id = ? GROUP BY slot_id")) {
                ps.setString(1, runId);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        oversold += Math.max(0, rs.getLong(1) - seats);
                    }
                }
            }
            return m.result(workload, NAIVE, backend, threads, oversold, null, "");
        }

        // ------------------------------------------------------------ ceilings

        void prepareCeilingTables() throws SQLException {
            for (Db d : dbs) {
                Backends db = d.backends();
                String p = db.store().tablePrefix();
                try (Connection c = db.dataSource().getConnection(); Statement st = c.createStatement()) {
                    st.execute("CREATE TABLE IF NOT EXISTS " + p + "bench_naive (run_id VARCHAR(40) NOT NULL,"
                            + " slot_id INTEGER NOT NULL, student_id VARCHAR(40) NOT NULL)");
                    st.execute("CREATE INDEX IF NOT EXISTS " + p + "bench_naive_ix ON " + p
                            + "bench_naive (run_id, slot_id)");
                    st.execute("CREATE TABLE IF NOT EXISTS " + p + "bench_seat (run_id VARCHAR(40) NOT NULL,"
                            + " slot_id INTEGER NOT NULL, seq INTEGER NOT NULL, owner VARCHAR(40),"
                            + " PRIMARY KEY (run_id, slot_id, seq))");
                }
            }
        }

        /** Removes this run's rows from the benchmark's own tables and the run's Redis keys. */
        void cleanUp() {
            for (Db d : dbs) {
                Backends db = d.backends();
                String p = db.store().tablePrefix();
                try (Connection c = db.dataSource().getConnection();
                     PreparedStatement naive = c.prepareStatement("DELETE FROM " + p + "bench_naive WHERE run_id LIKE ?");
                     PreparedStatement seat = c.prepareStatement("DELETE FROM " + p + "bench_seat WHERE run_id LIKE ?")) {
                    naive.setString(1, run + "%");
                    naive.executeUpdate();
                    seat.setString(1, run + "%");
                    seat.executeUpdate();
                } catch (SQLException e) {
                    log.println("could not delete the run's rows: " + e.getMessage());
                }
            }
            if (main.redis() != null) {
                try {
                    for (String key : main.redis().keys(main.gateKeyPrefix() + "*")) {
                        main.redis().del(key);
                    }
                } catch (RuntimeException e) {
                    log.println("could not delete the run's Redis keys: " + e.getMessage());
                }
            }
        }

        /**
         * The database ceiling: one autocommit statement per request that claims a free seat of the
         * picked slot in a plain seat table, in the dialect's single-statement form.
         */
        private Result dbCeiling(Backends db, String backend, String workload, String tag, int slots, int seats,
                                 int requests, int threads) throws Exception {
            String table = db.store().tablePrefix() + "bench_seat";
            String runId = tag + "-" + workload;
            DataSource ds = db.dataSource();
            try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement(
                    "INSERT INTO " + table + " (run_id, slot_id, seq, owner) VALUES (?, ?, ?, NULL)")) {
                c.setAutoCommit(false);
                for (int slot = 0; slot < slots; slot++) {
                    for (int seq = 1; seq <= seats; seq++) {
                        ps.setString(1, runId);
                        ps.setInt(2, slot);
                        ps.setInt(3, seq);
                        ps.addBatch();
                    }
                    if (slot % 100 == 99) {
                        ps.executeBatch();
                    }
                }
                ps.executeBatch();
                c.commit();
                c.setAutoCommit(true);
            }
            String sql = switch (db.store().dialect()) {
                case POSTGRESQL -> "WITH c AS (SELECT seq FROM " + table
                        + " WHERE run_id = ? AND slot_id = ? AND owner IS NULL ORDER BY seq LIMIT 1"
                        + " FOR UPDATE SKIP LOCKED) UPDATE " + table + " s SET owner = ? FROM c"
                        + " WHERE s.run_id = ? AND s.slot_id = ? AND s.seq = c.seq";
                case MARIADB -> "UPDATE " + table + " SET owner = ? WHERE run_id = ? AND slot_id = ? AND owner IS NULL"
                        + " ORDER BY seq LIMIT 1";
                case H2 -> "UPDATE " + table + " SET owner = ? WHERE run_id = ? AND slot_id = ? AND owner IS NULL"
                        + " FETCH FIRST 1 ROW ONLY";
            };
            boolean postgres = db.store().dialect() == JdbcDialect.POSTGRESQL;
            int[] pick = picks(requests, slots, runId.hashCode());
            Profiler profiler = profiling && postgres && "spread".equals(workload) ? Profiler.start(db) : null;
            Measured m = drive(threads, requests, (thread, i) -> {
                try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
                    String owner = "student-" + i;
                    if (postgres) {
                        ps.setString(1, runId);
                        ps.setInt(2, pick[i]);
                        ps.setString(3, owner);
                        ps.setString(4, runId);
                        ps.setInt(5, pick[i]);
                    } else {
                        ps.setString(1, owner);
                        ps.setString(2, runId);
                        ps.setInt(3, pick[i]);
                    }
                    return ps.executeUpdate() == 1;
                }
            });
            keepProfile(profiler, workload + ", " + DB_CEILING + " (" + backend + ")");
            return m.result(workload, DB_CEILING, backend, threads, null, null, "");
        }

        /** The Redis ceiling: a plain Jedis EVALSHA of the gate's hold.lua per request, from the same threads. */
        private Result redisCeiling(String workload, String tag, int slots, int seats, int requests, int threads)
                throws Exception {
            RedisClient redis = main.redis();
            String base = redisPrefix + tag + "-" + workload + ":";
            Duration keep = Duration.ofMillis(600_000);
            // the gate's own key layout and script arguments, on a gate of its own prefix
            RedisSeatReservation layout = RedisSeatReservation.builder(redis).keyPrefix(base).build();
            TenantId ceilingTenant = TenantId.of("ceiling");
            List<List<String>> keys = new ArrayList<>(slots);
            for (int slot = 0; slot < slots; slot++) {
                SlotId id = SlotId.of("s" + slot);
                layout.initialize(ceilingTenant, id, seats, Instant.now().plus(keep));
                keys.add(layout.keys(ceilingTenant, id));
            }
            int[] pick = picks(requests, slots, base.hashCode());
            // loaded again right before the loop: another client may have flushed the script cache
            String sha = redis.scriptLoad(GateScripts.HOLD.body());
            Measured m = drive(threads, requests, (thread, i) -> {
                Object reply = redis.evalsha(sha, keys.get(pick[i]), layout.holdArgs(StudentId.of("student-" + i),
                        RequestId.of("r" + i), keep));
                return "H".equals(reply);
            });
            return m.result(workload, REDIS_CEILING, "Redis", threads, null, null, "");
        }

        private static int[] picks(int requests, int slots, long seed) {
            SplittableRandom random = new SplittableRandom(seed);
            int[] pick = new int[requests];
            for (int i = 0; i < requests; i++) {
                pick[i] = slots == 1 ? 0 : random.nextInt(slots);
            }
            return pick;
        }

        private void keepProfile(Profiler profiler, String what) {
            if (profiler != null) {
                String text = profiler.stop(what);
                profiles.add(text);
                out.print(text);
            }
        }

        // ------------------------------------------------------------ targets

        private List<String> targets() {
            List<String> targets = new ArrayList<>();
            List<Result> slotbook = results.stream().filter(Result::isSlotbook).toList();
            long bad = slotbook.stream().filter(r -> !Objects.equals(r.oversold(), 0L)
                    || !Objects.equals(r.doubleBooked(), 0L)).count();
            targets.add(String.format(Locale.ROOT, "%s  zero oversell and zero double-booking on every Slotbook line"
                    + " (%d lines checked by SQL, %d with a violation)", bad == 0 ? "MET   " : "MISSED", slotbook.size(),
                    bad));
            results.stream().filter(r -> r.line().equals(NAIVE)).forEach(r -> targets.add(String.format(Locale.ROOT,
                    "info    naive line, %s: %d seats oversold", r.workload(), r.oversold())));
            find("spread", SLOTBOOK_DB, mainName).ifPresent(r -> find("spread", DB_CEILING, mainName).ifPresent(c -> {
                double ratio = r.holdsPerSecond() / c.holdsPerSecond();
                var naive = find("spread", NAIVE, mainName);
                boolean aboveNaive = naive.map(n -> r.holdsPerSecond() > n.holdsPerSecond()).orElse(true);
                targets.add(String.format(Locale.ROOT, "%s  DB-only spread on %s >= 50%% of its single-statement"
                                + " ceiling and above the naive line: %.0f vs %.0f holds/s = %.0f%%%s",
                        ratio >= 0.5 && aboveNaive ? "MET   " : "MISSED", mainName, r.holdsPerSecond(),
                        c.holdsPerSecond(), 100 * ratio, naive.map(n -> String.format(Locale.ROOT,
                                "; naive %.0f holds/s (%.2fx)", n.holdsPerSecond(),
                                r.holdsPerSecond() / n.holdsPerSecond())).orElse("")));
            }));
            ratioTarget(targets, "DB-only hot slot", "hot", SLOTBOOK_DB, mainName, DB_CEILING, mainName, 0.5, false);
            ratioTarget(targets, "gate + database spread", "spread", SLOTBOOK_GATE, mainName, DB_CEILING, mainName,
                    0.45, true);
            ratioTarget(targets, "DB-only spread", "spread", SLOTBOOK_DB, "MariaDB", DB_CEILING, "MariaDB", 0.40, true);
            if (!mainName.equals("H2")) {
                ratioTarget(targets, "DB-only spread", "spread", SLOTBOOK_DB, "H2", DB_CEILING, "H2", 0.25, true);
            }
            ratioTarget(targets, "gated hot slot vs the plain Jedis EVALSHA loop", "hot", SLOTBOOK_GATE, mainName,
                    REDIS_CEILING, "Redis", 0.80, false);
            for (Capacity c : capacities) {
                boolean met = c.ratio() <= 1.5 && c.ratio() >= 1 / 1.5;
                targets.add(String.format(Locale.ROOT, "%s  capacity on %s: a hold costs the same at %,d and %d seats"
                                + " within 1.5x: %.0f vs %.0f holds/s, ratio %.2fx", met ? "MET   " : "MISSED",
                        c.backend(), c.largeSeats(), CAPACITY_SMALL,
                        c.small().decisionsPerSecond(), c.large().decisionsPerSecond(), c.ratio()));
            }
            return targets;
        }

        /** A target "line reaches {@code share} of its ceiling", on holds/s or on decisions/s. */
        private void ratioTarget(List<String> targets, String what, String workload, String line, String backend,
                                 String ceilingLine, String ceilingBackend, double share, boolean holds) {
            find(workload, line, backend).ifPresent(r -> find(workload, ceilingLine, ceilingBackend).ifPresent(c -> {
                double value = holds ? r.holdsPerSecond() : r.decisionsPerSecond();
                double ceiling = holds ? c.holdsPerSecond() : c.decisionsPerSecond();
                double ratio = value / ceiling;
                targets.add(String.format(Locale.ROOT, "%s  %s on %s >= %.0f%% of %s (%s): %.0f vs %.0f %s = %.0f%%",
                        ratio >= share ? "MET   " : "MISSED", what, backend, 100 * share, c.line(), c.backend(),
                        value, ceiling, holds ? "holds/s" : "decisions/s", 100 * ratio));
            }));
        }

        private java.util.Optional<Result> find(String workload, String line, String backend) {
            return results.stream().filter(r -> r.workload().equals(workload) && r.line().equals(line)
                    && r.backend().equals(backend)).findFirst();
        }
    }

    // ------------------------------------------------------------------ driving threads

    /** A request: true when it took a seat. */
    interface Request {
        boolean run(int thread, int index) throws Exception;
    }

    /** One worker thread's next operation in the mix: true when it took a seat. */
    interface Step {
        boolean run() throws Exception;
    }

    interface StepFactory {
        Step forThread(int thread);
    }

    /** Counts and latencies of one measurement. */
    static final class Measured {
        final Latencies latencies = new Latencies();
        final LongAdder decisions = new LongAdder();
        final LongAdder holds = new LongAdder();
        final AtomicReference<Throwable> firstError = new AtomicReference<>();
        long errors;
        double seconds;

        Result result(String workload, String line, String backend, int threads, Long oversold, Long doubleBooked,
                      String note) {
            String text = note;
            if (firstError.get() != null) {
                text = (text.isEmpty() ? "" : text + "; ") + "first error: " + firstError.get();
            }
            return new Result(workload, line, backend, threads, decisions.sum(), holds.sum(), errors, seconds,
                    latencies.percentileMillis(50), latencies.percentileMillis(99), latencies.maxMillis(), oversold,
                    doubleBooked, text);
        }
    }

    /** Runs {@code requests} requests on {@code threads} threads, all released at once. */
    static Measured drive(int threads, int requests, Request request) throws InterruptedException {
        AtomicInteger next = new AtomicInteger();
        return run(threads, thread -> () -> {
            int i = next.getAndIncrement();
            return i < requests ? () -> request.run(thread, i) : null;
        }, () -> { });
    }

    /** Runs each thread's steps for {@code duration}. */
    static Measured driveFor(int threads, Duration duration, StepFactory steps) throws InterruptedException {
        long[] deadline = new long[1];
        return run(threads, thread -> {
            Step step = steps.forThread(thread);
            return () -> System.nanoTime() - deadline[0] < 0 ? step : null;
        }, () -> deadline[0] = System.nanoTime() + duration.toNanos());
    }

    /** A worker's next step, or null when it is done. */
    interface Steps {
        Step next();
    }

    /**
     * Starts {@code threads} workers, releases them together (after {@code atStart}), and times
     * every step each one runs until its {@link Steps} says it is done.
     */
    private static Measured run(int threads, java.util.function.IntFunction<Steps> workers, Runnable atStart)
            throws InterruptedException {
        Measured m = new Measured();
        LongAdder errors = new LongAdder();
        CountDownLatch go = new CountDownLatch(1);
        CountDownLatch done = new CountDownLatch(threads);
        for (int t = 0; t < threads; t++) {
            int thread = t;
            Thread worker = new Thread(() -> {
                try {
                    Steps steps = workers.apply(thread);
                    go.await();
                    for (Step step = steps.next(); step != null; step = steps.next()) {
                        long t0 = System.nanoTime();
                        try {
                            boolean took = step.run();
                            m.latencies.record(System.nanoTime() - t0);
                            m.decisions.increment();
                            if (took) {
                                m.holds.increment();
                            }
                        } catch (Exception | Error e) {
                            errors.increment();
                            m.firstError.compareAndSet(null, e);
                        }
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } finally {
                    done.countDown();
                }
            }, "bench-worker-" + t);
            worker.setDaemon(true);
            worker.start();
        }
        long t0 = System.nanoTime();
        atStart.run();
        go.countDown();
        done.await();
        m.seconds = (System.nanoTime() - t0) / 1e9;
        m.errors = errors.sum();
        return m;
    }

    /**
     * A fixed-size latency histogram: buckets 2% wide in microseconds, so memory stays constant however
     * long a run lasts. Percentiles answer the bucket's upper bound; the maximum is exact.
     */
    static final class Latencies {
        private static final double LOG_BASE = Math.log(1.02);
        private static final int BUCKETS = 1_400; // 1.02^1400 us is far beyond any timeout
        private final java.util.concurrent.atomic.AtomicLongArray counts =
                new java.util.concurrent.atomic.AtomicLongArray(BUCKETS);
        private final java.util.concurrent.atomic.AtomicLong max = new java.util.concurrent.atomic.AtomicLong();

        void record(long nanos) {
            double micros = Math.max(1.0, nanos / 1_000.0);
            int bucket = Math.min(BUCKETS - 1, (int) (Math.log(micros) / LOG_BASE));
            counts.incrementAndGet(bucket);
            max.accumulateAndGet(nanos, Math::max);
        }

        double percentileMillis(double p) {
            long total = 0;
            for (int i = 0; i < BUCKETS; i++) {
                total += counts.get(i);
            }
            if (total == 0) {
                return 0;
            }
            long rank = (long) Math.ceil(p / 100.0 * total);
            long seen = 0;
            for (int i = 0; i < BUCKETS; i++) {
                seen += counts.get(i);
                if (seen >= rank) {
                    return Math.min(Math.pow(1.02, i + 1) / 1_000.0, maxMillis());
                }
            }
            return maxMillis();
        }

        double maxMillis() {
            return max.get() / 1e6;
        }
    }

    // ------------------------------------------------------------------ memory

    /** Used heap right after a full GC, sampled every {@code every} while the mix runs. */
    static final class HeapSampler {
        private final Duration every;
        private final List<Double> samples = new ArrayList<>();
        private Thread thread;
        private volatile boolean running;

        HeapSampler(Duration every) {
            this.every = every;
        }

        void start() {
            running = true;
            sample();
            thread = new Thread(() -> {
                while (running) {
                    try {
                        Thread.sleep(every.toMillis());
                    } catch (InterruptedException e) {
                        return;
                    }
                    if (running) {
                        sample();
                    }
                }
            }, "bench-heap-sampler");
            thread.setDaemon(true);
            thread.start();
        }

        void stop() throws InterruptedException {
            running = false;
            thread.interrupt();
            thread.join();
            sample();
        }

        private void sample() {
            System.gc();
            double used = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed() / (1024.0 * 1024.0);
            synchronized (samples) {
                samples.add(used);
            }
        }

        List<Double> samples() {
            synchronized (samples) {
                return List.copyOf(samples);
            }
        }
    }

    // ------------------------------------------------------------------ profile

    /**
     * Where the worker threads spend their time while a measurement runs: their stacks sampled every
     * 20 ms (waiting for a pooled connection, waiting on a database or Redis socket, running Java), and
     * on PostgreSQL what the server says the pool's sessions are doing (pg_stat_activity state and wait
     * event: running, waiting for a lock, idle in transaction waiting for the client, ...).
     */
    static final class Profiler {
        private final Map<String, Long> client = new LinkedHashMap<>();
        private final Map<String, Long> server = new LinkedHashMap<>();
        private final Thread thread;
        private volatile boolean running = true;
        private long clientSamples;
        private long serverSamples;

        private Profiler(Backends db) {
            String url = db.store().dialect() == JdbcDialect.POSTGRESQL ? db.jdbcUrl() : null;
            this.thread = new Thread(() -> loop(url), "bench-profiler");
            thread.setDaemon(true);
        }

        static Profiler start(Backends db) {
            Profiler p = new Profiler(db);
            p.thread.start();
            return p;
        }

        private void loop(String pgUrl) {
            Connection pg = null;
            PreparedStatement activity = null;
            try {
                if (pgUrl != null) {
                    pg = java.sql.DriverManager.getConnection(pgUrl);
                    activity = pg.prepareStatement("SELECT state, wait_event_type, wait_event FROM pg_stat_activity"
                            + " WHERE application_name = ? AND pid <> pg_backend_pid()");
                    activity.setString(1, Backends.APPLICATION_NAME);
                }
                while (running) {
                    sampleThreads();
                    if (activity != null) {
                        sampleServer(activity);
                    }
                    Thread.sleep(20);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (SQLException e) {
                server.merge("(pg_stat_activity unreadable: " + e.getMessage() + ")", 1L, Long::sum);
            } finally {
                if (pg != null) {
                    try {
                        pg.close();
                    } catch (SQLException e) {
                        // closing anyway
                    }
                }
            }
        }

        private void sampleThreads() {
            for (Map.Entry<Thread, StackTraceElement[]> e : Thread.getAllStackTraces().entrySet()) {
                if (!e.getKey().getName().startsWith("bench-worker-")) {
                    continue;
                }
                client.merge(classify(e.getKey().getState(), e.getValue()), 1L, Long::sum);
                clientSamples++;
            }
        }

        static String classify(Thread.State state, StackTraceElement[] stack) {
            boolean socketRead = false;
            for (int i = 0; i < Math.min(stack.length, 12); i++) {
                String frame = stack[i].getClassName() + "." + stack[i].getMethodName();
                if (frame.contains("SocketDispatcher.read") || frame.contains("NioSocketImpl.read")
                        || frame.contains("SocketInputStream.read") || frame.contains("NioSocketImpl.park")) {
                    socketRead = true;
                    break;
                }
            }
            String owner = "";
            for (StackTraceElement f : stack) {
                String c = f.getClassName();
                if (c.startsWith("com.zaxxer.hikari.pool.HikariPool") && f.getMethodName().equals("getConnection")) {
                    return state == Thread.State.RUNNABLE ? "taking a pooled connection (running)"
                            : "waiting for a pooled connection";
                }
                if (owner.isEmpty()) {
                    if (c.startsWith("org.postgresql")) {
                        owner = "PostgreSQL";
                    } else if (c.startsWith("org.mariadb")) {
                        owner = "MariaDB";
                    } else if (c.startsWith("redis.clients")) {
                        owner = "Redis";
                    } else if (c.startsWith("org.h2")) {
                        owner = "H2";
                    }
                }
            }
            if (socketRead) {
                return "waiting for a " + (owner.isEmpty() ? "socket" : owner) + " reply";
            }
            if (owner.equals("H2")) {
                return state == Thread.State.RUNNABLE ? "running inside H2"
                        : "waiting inside H2 (" + state + " in " + stack[0].getClassName() + "."
                        + stack[0].getMethodName() + ")";
            }
            if (state == Thread.State.RUNNABLE) {
                return "running Java (engine, Jdbi, driver, " + (owner.isEmpty() ? "bench" : owner + " client") + ")";
            }
            return "other wait (" + state + (stack.length == 0 ? "" : " in " + stack[0].getClassName() + "."
                    + stack[0].getMethodName()) + ")";
        }

        private void sampleServer(PreparedStatement activity) throws SQLException {
            try (ResultSet rs = activity.executeQuery()) {
                while (rs.next()) {
                    String state = rs.getString(1);
                    String type = rs.getString(2);
                    String event = rs.getString(3);
                    String key;
                    if ("active".equals(state)) {
                        key = type == null ? "active, running" : "active, waiting " + type + ":" + event;
                    } else if (state != null && state.startsWith("idle in transaction")) {
                        key = "idle in transaction (waiting for the client's next statement)";
                    } else {
                        key = "idle (connection in the pool)";
                    }
                    server.merge(key, 1L, Long::sum);
                    serverSamples++;
                }
            }
        }

        String stop(String what) {
            running = false;
            try {
                thread.join(2_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            StringBuilder b = new StringBuilder();
            b.append("  profile of ").append(what).append(":\n");
            b.append(String.format(Locale.ROOT, "    client threads (%d stack samples):%n", clientSamples));
            append(b, client, clientSamples);
            if (serverSamples > 0 || !server.isEmpty()) {
                b.append(String.format(Locale.ROOT, "    PostgreSQL sessions of the pool (%d samples):%n",
                        serverSamples));
                append(b, server, Math.max(1, serverSamples));
            }
            return b.toString();
        }

        private static void append(StringBuilder b, Map<String, Long> counts, long total) {
            counts.entrySet().stream().sorted(Map.Entry.<String, Long>comparingByValue().reversed())
                    .forEach(e -> b.append(String.format(Locale.ROOT, "      %5.1f%%  %s%n",
                            100.0 * e.getValue() / Math.max(1, total), e.getKey())));
        }
    }

    // ------------------------------------------------------------------ printing

    static void print(Report report, PrintStream out) {
        out.println();
        out.println("| workload | line | threads | decisions | decisions/s | holds/s | p50 ms | p99 ms | max ms"
                + " | errors | oversold | double-booked | decisions ÷ ceiling | holds ÷ ceiling |");
        out.println("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
        for (Result r : report.results()) {
            Result ceiling = ceilingOf(report, r);
            String decisionsRatio = ceiling == null ? "" : percent(r.decisionsPerSecond(), ceiling.decisionsPerSecond());
            String holdsRatio = ceiling == null ? "" : percent(r.holdsPerSecond(), ceiling.holdsPerSecond());
            out.printf(Locale.ROOT, "| %s | %s | %d | %,d | %,.0f | %,.0f | %.2f | %.2f | %.2f | %d | %s | %s | %s | %s |%n",
                    r.workload(), r.label(), r.threads(), r.decisions(), r.decisionsPerSecond(), r.holdsPerSecond(),
                    r.p50Millis(), r.p99Millis(), r.maxMillis(), r.errors(), text(r.oversold()),
                    text(r.doubleBooked()), decisionsRatio, holdsRatio);
        }
        out.println();
        out.println("Ratios: DB lines against the single-statement claim on the same database and workload;"
                + " the gate line against the Jedis EVALSHA loop of hold.lua on the same workload;"
                + " mix lines against the spread ceiling.");
        if (!report.capacities().isEmpty()) {
            out.println();
            out.println("| capacity | threads | holds | holds/s, " + CAPACITY_SMALL + " seats | p50 ms | holds/s,"
                    + " large slot | p50 ms | large slot seats | ratio (cost large ÷ cost small) |");
            out.println("|---|---:|---:|---:|---:|---:|---:|---:|---:|");
            for (Capacity c : report.capacities()) {
                out.printf(Locale.ROOT, "| %s | %d | %,d + %,d | %,.0f | %.2f | %,.0f | %.2f | %,d | %.2fx |%n",
                        c.backend(), c.small().threads(), c.small().holds(), c.large().holds(),
                        c.small().decisionsPerSecond(), c.small().p50Millis(), c.large().decisionsPerSecond(),
                        c.large().p50Millis(), c.largeSeats(),
                        c.ratio());
            }
        }
        out.println();
        out.println("Used heap after GC during the mix (MB):");
        report.heapAfterGcMegabytes().forEach((line, samples) -> out.printf(Locale.ROOT, "  %-45s %s%n", line,
                megabytes(samples)));
        out.println();
        out.println("Targets:");
        report.targets().forEach(t -> out.println("  " + t));
        report.results().stream().filter(r -> r.errors() > 0).forEach(r -> out.printf(Locale.ROOT,
                "  errors in %s, %s: %d (%s)%n", r.workload(), r.label(), r.errors(), r.note()));
    }

    private static Result ceilingOf(Report report, Result r) {
        if (r.isCeiling()) {
            return null;
        }
        String workload = r.workload().equals("mix") ? "spread" : r.workload();
        String line = r.line().equals(SLOTBOOK_GATE) ? REDIS_CEILING : DB_CEILING;
        String backend = line.equals(REDIS_CEILING) ? "Redis" : r.backend();
        return report.results().stream().filter(c -> c.workload().equals(workload) && c.line().equals(line)
                && c.backend().equals(backend)).findFirst().orElse(null);
    }

    private static String percent(double value, double ceiling) {
        return ceiling <= 0 ? "" : String.format(Locale.ROOT, "%.0f%%", 100 * value / ceiling);
    }

    private static String text(Long value) {
        return value == null ? "-" : Long.toString(value);
    }

    static String megabytes(List<Double> samples) {
        StringBuilder b = new StringBuilder();
        for (Double s : samples) {
            b.append(b.length() == 0 ? "" : ", ").append(String.format(Locale.ROOT, "%.1f", s));
        }
        return b.toString();
    }

    private static String dialectName(JdbcDialect dialect) {
        return switch (dialect) {
            case POSTGRESQL -> "PostgreSQL";
            case MARIADB -> "MariaDB";
            case H2 -> "H2";
        };
    }

    private static String resource(String name) {
        try (InputStream in = RedisSeatReservation.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException("missing resource " + name);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalStateException("cannot read " + name + ": " + e, e);
        }
    }
}
