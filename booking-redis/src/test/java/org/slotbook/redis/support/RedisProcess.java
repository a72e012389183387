package org.slotbook.redis.support;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.slotbook.core.tck.faults.ServerProcess;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.embedded.RedisExecProvider;

/**
 * A redis-server process that a test starts on a free loopback port and stops by its own handle.
 * Its files (log, cluster config) stay under {@code target/redis-servers}. The binary is the
 * machine's {@code redis-server} when there is one, else the one shipped by embedded-redis.
 */
public final class RedisProcess implements ServerProcess, AutoCloseable {
    private static final Path ROOT = Paths.get("target", "redis-servers").toAbsolutePath();

    private final int port;
    private final List<String> extraArgs;
    private final Path dir;
    private Process process;
    private File binaryOverride;
    private boolean startedBefore;

    private RedisProcess(int port, List<String> extraArgs) {
        this.port = port;
        this.extraArgs = List.copyOf(extraArgs);
        this.dir = ROOT.resolve(Integer.toString(port));
    }

    /** A standalone server without persistence. */
    public static RedisProcess standalone() {
        RedisProcess server = new RedisProcess(freePort(false), List.of());
        server.start();
        return server;
    }

    /** A standalone server run from the binary that embedded-redis ships, whatever the PATH has. */
    public static RedisProcess embedded() {
        RedisProcess server = new RedisProcess(freePort(false), List.of());
        server.binaryOverride = embeddedBinary();
        server.start();
        return server;
    }

    /** A cluster-enabled node (no slots yet); its bus port (port + 10000) is free too. */
    public static RedisProcess clusterNode() {
        int port = freePort(true);
        RedisProcess server = new RedisProcess(port, List.of("--cluster-enabled", "yes",
                "--cluster-config-file", "nodes-" + port + ".conf", "--cluster-node-timeout", "5000"));
        server.start();
        return server;
    }

    public int port() {
        return port;
    }

    public HostAndPort hostAndPort() {
        return new HostAndPort("127.0.0.1", port);
    }

    public String uri() {
        return "redis://127.0.0.1:" + port;
    }

    @Override
    public boolean isAlive() {
        return process != null && process.isAlive();
    }

    /**
     * Starts the server (again, after {@link #kill()} or {@link #stop()}), empty (no persistence), and
     * waits until it answers. A cluster node keeps its cluster config across restarts.
     */
    @Override
    public synchronized void start() {
        if (isAlive()) {
            throw new IllegalStateException("redis-server on port " + port + " is already running");
        }
        try {
            Files.createDirectories(dir);
            if (!startedBefore) {
                // a fresh node; a restarted cluster node keeps its config and so its id and slots
                Files.deleteIfExists(dir.resolve("nodes-" + port + ".conf"));
                startedBefore = true;
            }
            List<String> command = new ArrayList<>(List.of(
                    (binaryOverride != null ? binaryOverride : binary()).getAbsolutePath(),
                    "--port", Integer.toString(port), "--bind", "127.0.0.1", "--dir", dir.toString(),
                    "--save", "", "--appendonly", "no", "--daemonize", "no", "--protected-mode", "no"));
            command.addAll(extraArgs);
            ProcessBuilder builder = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("redis.log").toFile()));
            process = builder.start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start redis-server on port " + port, e);
        }
        awaitPing(Duration.ofSeconds(10));
    }

    /** Kills the server at once (SIGKILL): clients see the connection drop in the middle of whatever they do. */
    @Override
    public synchronized void kill() {
        if (process != null) {
            process.destroyForcibly();
            waitFor(process);
        }
    }

    /** Stops the server (SIGTERM) and waits for it. */
    @Override
    public synchronized void stop() {
        if (process != null) {
            process.destroy();
            if (!waitFor(process)) {
                process.destroyForcibly();
                waitFor(process);
            }
        }
    }

    @Override
    public void close() {
        stop();
    }

    private static boolean waitFor(Process process) {
        try {
            return process.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private void awaitPing(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        RuntimeException last = null;
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException("redis-server on port " + port + " exited with "
                        + process.exitValue() + "; see " + dir.resolve("redis.log"));
            }
            try (Jedis jedis = new Jedis(hostAndPort(), TestRedis.adminConfig())) {
                if ("PONG".equals(jedis.ping())) {
                    return;
                }
            } catch (RuntimeException e) {
                last = e;
            }
            sleep(20);
        }
        throw new IllegalStateException("redis-server on port " + port + " did not answer in " + timeout, last);
    }

    static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    private static File cachedBinary;

    /** The redis-server binary: on the PATH, else the one embedded-redis ships. */
    public static synchronized File binary() {
        if (cachedBinary == null) {
            String path = System.getenv().getOrDefault("PATH", "/usr/bin:/usr/local/bin");
            for (String entry : path.split(File.pathSeparator)) {
                File candidate = new File(entry, "redis-server");
                if (candidate.isFile() && candidate.canExecute()) {
                    cachedBinary = candidate;
                    return cachedBinary;
                }
            }
            cachedBinary = embeddedBinary();
        }
        return cachedBinary;
    }

    /** Copies the redis-server that embedded-redis ships for this OS to target/ (never to a shared temp dir). */
    private static File embeddedBinary() {
        String os = System.getProperty("os.name", "").toLowerCase(java.util.Locale.ROOT);
        String arch = System.getProperty("os.arch", "").toLowerCase(java.util.Locale.ROOT);
        String osPart = os.contains("linux") ? "linux" : os.contains("mac") ? "darwin" : null;
        String archPart = switch (arch) {
            case "amd64", "x86_64" -> "amd64";
            case "aarch64", "arm64" -> "arm64";
            case "x86", "i386", "i686" -> "386";
            default -> null;
        };
        if (osPart == null || archPart == null) {
            throw new IllegalStateException("no redis-server on the PATH, and embedded-redis ships none for "
                    + os + "/" + arch);
        }
        String name = "redis-server-" + RedisExecProvider.redisVersion + "-" + osPart + "-" + archPart;
        Path target = ROOT.resolve("bin").resolve(name);
        try (java.io.InputStream in = RedisExecProvider.class.getResourceAsStream("/" + name)) {
            if (in == null) {
                throw new IllegalStateException("no redis-server on the PATH, and embedded-redis has no " + name);
            }
            Files.createDirectories(target.getParent());
            if (!Files.exists(target)) {
                Path partial = target.resolveSibling(name + ".part");
                Files.copy(in, partial, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
                Files.move(partial, target, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            }
            if (!target.toFile().setExecutable(true)) {
                throw new IllegalStateException("cannot make " + target + " executable");
            }
            return target.toFile();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot copy " + name + " to " + target, e);
        }
    }

    /** Whether embedded-redis ships a binary for this machine. */
    public static boolean embeddedAvailable() {
        try {
            embeddedBinary();
            return true;
        } catch (RuntimeException e) {
            return false;
        }
    }

    /** Whether a redis-server binary can be found at all. */
    public static boolean binaryAvailable() {
        try {
            binary();
            return true;
        } catch (RuntimeException e) {
            return false;
        }
    }

    private static int freePort(boolean withBusPort) {
        for (int attempt = 0; attempt < 200; attempt++) {
            int port = ThreadLocalRandom.current().nextInt(20_000, 50_000);
            if (bindable(port) && (!withBusPort || bindable(port + 10_000))) {
                return port;
            }
        }
        throw new IllegalStateException("no free loopback port found");
    }

    private static boolean bindable(int port) {
        try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getByName("127.0.0.1"))) {
            socket.setReuseAddress(true);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    @Override
    public String toString() {
        return "redis-server@" + port;
    }
}
