package org.slotbook.examples.bench;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import org.slotbook.jdbc.JdbcDialect;

/**
 * Where the worker threads spend their time while a measurement runs: their stacks sampled every
 * 20 ms (waiting for a pooled connection, waiting on a database or Redis socket, running Java), and
 * on PostgreSQL what the server says the pool's sessions are doing (pg_stat_activity state and wait
 * event: running, waiting for a lock, idle in transaction waiting for the client, ...).
 */
final class Profiler {
    private final Map<String, Long> client = new LinkedHashMap<>();
    private final Map<String, Long> server = new LinkedHashMap<>();
    private final Thread thread;
    private volatile boolean running = true;
    /** Whether the samples count now: a line measured in turns pauses its profiler between them. */
    private volatile boolean sampling = true;
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
                pg = DriverManager.getConnection(pgUrl);
                activity = pg.prepareStatement("SELECT state, wait_event_type, wait_event FROM pg_stat_activity"
                        + " WHERE application_name = ? AND pid <> pg_backend_pid()");
                activity.setString(1, Backends.APPLICATION_NAME);
            }
            while (running) {
                if (sampling) {
                    sampleThreads();
                    if (activity != null) {
                        sampleServer(activity);
                    }
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

    /** Stops counting samples until {@link #resume}. */
    void pause() {
        sampling = false;
    }

    void resume() {
        sampling = true;
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
