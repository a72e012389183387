package org.slotbook.examples.bench;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.slotbook.core.SlotSpec;

/**
 * The run's settings, parsed from the command line. {@code only} holds line names from {@link #LINES};
 * {@code report} is the file the Markdown report goes to (null: none), and {@code arguments} the
 * command line itself, which the report quotes.
 */
public record Options(String jdbcUrl, String mariadbUrl, String citusUrl, String redisUrl, boolean noRedis, Set<String> only,
                      int students, int seats, int slots, int requests, int mixSeconds, int threads,
                      int capacityHolds, int capacitySeats, int turns, boolean warmup, boolean profile,
                      String report, List<String> arguments) {
    /** The workloads of the lines {@code --only} can name per backend. */
    static final List<String> WORKLOADS = List.of("hot", "spread", "mix");
    /** The backends of the lines {@code --only} can name per workload. */
    static final List<String> BACKENDS = List.of("pg", "citus", "mariadb", "h2", "gate", BenchMemory.KEY);
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

    /** The usage text {@code Bench} prints after a bad flag. */
    public static final String USAGE = String.join("\n",
            "usage: Bench [--jdbc URL] [--citus URL] [--mariadb URL] [--redis URL | --no-redis] [--only LINE,...]",
            "       Bench waitlist [flags]   a waitlisted hot slot (WaitlistBench; an unknown flag prints its flags)",
            "       Bench shards [flags]     the flash sale over one and two shards (ShardBench)",
            "             [--students N] [--seats N] [--slots N] [--requests N] [--mix-seconds N] [--threads N]",
            "             [--capacity-holds N] [--capacity-seats N] [--turns N] [--no-warmup] [--no-profile]",
            "             [--report FILE]",
            "  --jdbc URL         PostgreSQL (jdbc:postgresql:...): the naive line, its single-statement ceiling,",
            "                     Slotbook DB-only, and the ledger behind the gate. Without it H2 in memory takes",
            "                     that place (the naive line and the gate then run on H2).",
            "  --citus URL        a Citus coordinator (jdbc:postgresql:...) with its workers: Slotbook DB-only on",
            "                     tables distributed by tenant (JdbcSchema.distribute), beside --jdbc's line",
            "  --mariadb URL      MariaDB (jdbc:mariadb:...): Slotbook DB-only and its own single-statement ceiling",
            "  --redis URL        Redis of the gate line (redis://127.0.0.1:6379); default: an embedded Redis",
            "  --no-redis         no gate line",
            "  --only LINE,...    run only these lines (default: every line the given servers allow):",
            "                       hot-pg, spread-pg, mix-pg           Slotbook DB-only on --jdbc",
            "                       hot-citus, spread-citus, mix-citus  Slotbook DB-only on --citus",
            "                       hot-mariadb, spread-mariadb, mix-mariadb   Slotbook DB-only on --mariadb",
            "                       hot-h2, spread-h2, mix-h2           Slotbook DB-only on H2 in memory",
            "                       hot-gate, spread-gate, mix-gate     Slotbook Redis gate + the --jdbc database",
            "                       hot-memory, spread-memory, mix-memory  Slotbook on the in-memory store (no gate,",
            "                                                           no server, no ceiling; a fresh store per line)",
            "                       naive                               count, then insert (hot and spread) on --jdbc",
            "                       capacity                            holds on 10 vs --capacity-seats seats,",
            "                                                           per database (H2, --jdbc, --mariadb)",
            "                     pg, citus, mariadb, h2, gate and memory name all three workloads of that backend.",
            "                     A hot or spread line brings its ceiling along (the gate: Redis and database).",
            "  --students N       hot slot: students holding a seat of one slot (default 10000)",
            "  --seats N          seats per slot (default 10)",
            "  --slots N          spread and mix: number of slots (default 1000)",
            "  --requests N       spread: hold requests on random slots (default 20000)",
            "  --mix-seconds N    steady mix: seconds per line (default 30)",
            "  --threads N        client threads, also the connection pool size (default 32)",
            "  --capacity-holds N capacity: holds on each of the two slots (default 200)",
            "  --capacity-seats N capacity: seats of the large slot (default 100000; the small one has 10)",
            "  --turns N          hot and spread: each line's requests run in N turns, the lines of a workload",
            "                     taking turns one after the other, so that a busy spell of the machine falls on",
            "                     every line alike (default 5; 1 runs each line whole, one after the other)",
            "  --no-warmup        measure without a warm-up pass first",
            "  --no-profile       do not sample threads and pg_stat_activity during the measurements",
            "  --report FILE      also write the results as Markdown (the command, the machine, the table and",
            "                     a Mermaid chart of each line's ratio to its baseline) to FILE; when FILE holds",
            "                     the lines " + BenchMarkdown.BEGIN + " and " + BenchMarkdown.END + ",",
            "                     only the text between them is replaced");

    public static Options parse(String... args) {
        ServerFlags servers = new ServerFlags();
        String mariadb = null;
        String citus = null;
        String onlyText = null;
        int students = 10_000;
        int seats = 10;
        int slots = 1_000;
        int requests = 20_000;
        int mixSeconds = 30;
        int threads = 32;
        int capacityHolds = 200;
        int capacitySeats = SlotSpec.MAX_CAPACITY;
        int turns = 5;
        boolean warmup = true;
        boolean profile = true;
        String report = null;
        for (int i = 0; i < args.length; i++) {
            String flag = args[i];
            switch (flag) {
                case "--mariadb" -> mariadb = Flags.value(args, ++i, flag);
                case "--citus" -> citus = Flags.value(args, ++i, flag);
                case "--only" -> onlyText = Flags.value(args, ++i, flag);
                case "--students" -> students = Flags.number(args, ++i, flag, 1, 10_000_000);
                case "--seats" -> seats = Flags.number(args, ++i, flag, 1, SlotSpec.MAX_CAPACITY);
                case "--slots" -> slots = Flags.number(args, ++i, flag, 1, 100_000);
                case "--requests" -> requests = Flags.number(args, ++i, flag, 1, 10_000_000);
                case "--mix-seconds" -> mixSeconds = Flags.number(args, ++i, flag, 1, 3_600);
                case "--threads" -> threads = Flags.number(args, ++i, flag, 1, 512);
                case "--capacity-holds" -> capacityHolds = Flags.number(args, ++i, flag, 1, 1_000_000);
                case "--capacity-seats" -> capacitySeats = Flags.number(args, ++i, flag, CapacityLine.SMALL_SEATS,
                        SlotSpec.MAX_CAPACITY);
                case "--turns" -> turns = Flags.number(args, ++i, flag, 1, 1_000);
                case "--no-warmup" -> warmup = false;
                case "--no-profile" -> profile = false;
                case "--report" -> report = Flags.value(args, ++i, flag);
                default -> i = servers.read(args, i);
            }
        }
        String jdbc = servers.jdbc();
        String redis = servers.redis();
        boolean noRedis = servers.noRedis();
        if (jdbc != null && !jdbc.startsWith("jdbc:postgresql:")) {
            throw new IllegalArgumentException("--jdbc must be a JDBC URL of PostgreSQL (jdbc:postgresql:...), got '"
                    + jdbc + "'");
        }
        if (mariadb != null && !mariadb.startsWith("jdbc:mariadb:")) {
            throw new IllegalArgumentException("--mariadb must be a JDBC URL of MariaDB (jdbc:mariadb:...), got '"
                    + mariadb + "'");
        }
        if (citus != null && !citus.startsWith("jdbc:postgresql:")) {
            throw new IllegalArgumentException("--citus must be a JDBC URL of a Citus coordinator (jdbc:postgresql:...),"
                    + " got '" + citus + "'");
        }
        if (redis != null && !redis.startsWith("redis://")) {
            throw new IllegalArgumentException("--redis must be a redis:// URL, got '" + redis + "'");
        }
        Set<String> only = onlyText == null ? null : only(onlyText, jdbc != null, citus != null, mariadb != null,
                !noRedis);
        return new Options(jdbc, mariadb, citus, redis, noRedis, only, students, seats, slots, requests, mixSeconds,
                threads, capacityHolds, capacitySeats, turns, warmup, profile, report, List.of(args));
    }

    /** The lines named by {@code --only}, groups expanded; names needing a server not given are refused. */
    private static Set<String> only(String text, boolean pg, boolean citus, boolean mariadb, boolean gate) {
        Set<String> lines = new LinkedHashSet<>();
        for (String raw : text.split(",", -1)) {
            String name = raw.trim().toLowerCase(Locale.ROOT);
            if (BACKENDS.contains(name)) {
                WORKLOADS.forEach(w -> lines.add(w + "-" + name));
            } else if (LINES.contains(name)) {
                lines.add(name);
            } else {
                throw new IllegalArgumentException("--only: unknown line '" + raw.trim() + "'; lines: "
                        + String.join(", ", LINES) + " (or " + String.join(", ", BACKENDS)
                        + " for all three workloads)");
            }
        }
        for (String line : lines) {
            if (line.endsWith("-pg") && !pg) {
                throw new IllegalArgumentException("--only " + line + " needs --jdbc (PostgreSQL)");
            }
            if (line.endsWith("-citus") && !citus) {
                throw new IllegalArgumentException("--only " + line + " needs --citus");
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
        return new Options(jdbcUrl, mariadbUrl, citusUrl, redisUrl, noRedis, only, Math.min(students, 2_000), seats,
                Math.min(slots, 100), Math.min(requests, 2_000), Math.min(mixSeconds, 3), threads,
                Math.min(capacityHolds, 100), Math.min(capacitySeats, 1_000), Math.min(turns, 2), false, false,
                null, arguments);
    }
}
