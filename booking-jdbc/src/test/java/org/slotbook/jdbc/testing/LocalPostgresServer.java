package org.slotbook.jdbc.testing;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;

/**
 * A PostgreSQL server of the test's own: {@code initdb} into a fresh directory under /tmp, started
 * with {@code pg_ctl} on a free loopback port (trust authentication, listening on 127.0.0.1 only),
 * stopped and started again by this handle, and removed by {@link #close()}. When the JVM runs as
 * root the binaries run as the {@code postgres} user (PostgreSQL refuses root).
 *
 * <p>Needs the PostgreSQL server binaries ({@code /usr/lib/postgresql/<version>/bin}); without them
 * the test is skipped, or fails when {@code SLOTBOOK_TEST_REQUIRE_SERVICES=true}.
 */
public final class LocalPostgresServer implements AutoCloseable {
    private final Path bin;
    private final Path dataDir;
    private final int port;
    private final boolean asPostgres;

    private LocalPostgresServer(Path bin, Path dataDir, int port, boolean asPostgres) {
        this.bin = bin;
        this.dataDir = dataDir;
        this.port = port;
        this.asPostgres = asPostgres;
    }

    /** Creates, starts and returns a new server with a database named {@code test}. */
    public static LocalPostgresServer start() {
        Path bin = findBin();
        if (bin == null) {
            String message = "no PostgreSQL server binaries (initdb, pg_ctl) under /usr/lib/postgresql";
            if (TestDatabases.servicesRequired()) {
                Assertions.fail(message + " and " + TestDatabases.REQUIRE_SERVICES + "=true");
            }
            Assumptions.abort(message);
        }
        boolean root = "root".equals(System.getProperty("user.name"));
        try {
            Path dir = Files.createTempDirectory("slotbook-pg-");
            if (root) {
                run(List.of("chown", "postgres", dir.toString()));
            }
            LocalPostgresServer server = new LocalPostgresServer(bin, dir.resolve("data"), freePort(), root);
            server.pg("initdb", "-D", server.dataDir.toString(), "-A", "trust", "-U", "postgres", "-E", "UTF8",
                    "--no-sync", "--locale=C");
            Files.writeString(server.dataDir.resolve("postgresql.auto.conf"), String.join("\n",
                    "listen_addresses = '127.0.0.1'",
                    "port = " + server.port,
                    "unix_socket_directories = '" + dir + "'",
                    "fsync = off",
                    "synchronous_commit = off",
                    "full_page_writes = off",
                    "max_connections = 100",
                    "shared_buffers = 32MB", ""), StandardCharsets.UTF_8, java.nio.file.StandardOpenOption.APPEND);
            server.startAgain();
            server.pg("createdb", "-h", "127.0.0.1", "-p", String.valueOf(server.port), "-U", "postgres", "test");
            return server;
        } catch (IOException e) {
            throw new IllegalStateException("cannot start a local PostgreSQL: " + e.getMessage(), e);
        }
    }

    /** JDBC URL of the {@code test} database. */
    public String jdbcUrl() {
        return "jdbc:postgresql://127.0.0.1:" + port + "/test?user=postgres";
    }

    public int port() {
        return port;
    }

    /** Stops the server (fast shutdown: open connections are cut); its data stays. */
    public void stop() {
        pg("pg_ctl", "-D", dataDir.toString(), "-m", "fast", "-w", "stop");
    }

    /** Starts the stopped server again on the same port, waiting until it accepts connections. */
    public void startAgain() {
        pg("pg_ctl", "-D", dataDir.toString(), "-l", dataDir.resolveSibling("server.log").toString(), "-w",
                "-t", "60", "start");
    }

    /** Stops the server (if running) and deletes its files. */
    @Override
    public void close() {
        try {
            pg("pg_ctl", "-D", dataDir.toString(), "-m", "immediate", "-w", "stop");
        } catch (RuntimeException e) {
            // already stopped
        }
        try (Stream<Path> files = Files.walk(dataDir.getParent())) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            System.err.println("[slotbook-test] could not remove " + dataDir.getParent() + ": " + e);
        }
    }

    private void pg(String program, String... args) {
        List<String> command = new ArrayList<>();
        if (asPostgres) {
            command.addAll(List.of("runuser", "-u", "postgres", "--"));
        }
        command.add(bin.resolve(program).toString());
        command.addAll(Arrays.asList(args));
        run(command);
    }

    private static void run(List<String> command) {
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            byte[] out = p.getInputStream().readAllBytes();
            if (!p.waitFor(120, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IllegalStateException("timed out: " + command);
            }
            if (p.exitValue() != 0) {
                throw new IllegalStateException(command + " exited " + p.exitValue() + ": "
                        + new String(out, StandardCharsets.UTF_8));
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot run " + command + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted: " + command, e);
        }
    }

    private static Path findBin() {
        Path root = Path.of("/usr/lib/postgresql");
        if (!Files.isDirectory(root)) {
            return null;
        }
        try (Stream<Path> versions = Files.list(root)) {
            return versions.map(v -> v.resolve("bin"))
                    .filter(b -> Files.isExecutable(b.resolve("initdb")) && Files.isExecutable(b.resolve("pg_ctl")))
                    .max(Comparator.comparing(b -> versionOf(b.getParent().getFileName().toString())))
                    .orElse(null);
        } catch (IOException e) {
            return null;
        }
    }

    private static Integer versionOf(String name) {
        try {
            return Integer.parseInt(name);
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    @Override
    public String toString() {
        return "PostgreSQL on 127.0.0.1:" + port;
    }
}
