package dev.tandem.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * A Tandem server started as a child process for one arm of a benchmark: the same jar (or, when the
 * benchmark itself runs from a class path, as in tests, the same class path), a fresh temporary data
 * directory, fsync off, loopback ports the child chooses itself (read back from its log, so two children
 * started at once can never share one), the JVM options of {@link ChildJvm} with a GC log in its
 * directory. {@link #close()} stops it and deletes its directory; a
 * shutdown hook stops any child still running when the benchmark's JVM exits.
 */
final class ChildServer implements AutoCloseable {

    /** The GC log's name in the child's directory. */
    static final String GC_LOG = "gc.log";

    private static final Set<Process> LIVE = ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> LIVE.forEach(Process::destroyForcibly), "tandem-bench-children"));
    }

    /** The line Reactor Netty's web server logs once it listens, with its port. */
    private static final Pattern HTTP_LISTENING = Pattern.compile("Netty started on port (\\d+)");
    /** The line the wire-protocol server logs once it listens, with its port. */
    private static final Pattern PGWIRE_LISTENING = Pattern.compile("PostgreSQL wire protocol listening on \\S+:(\\d+)");

    private final Process process;
    private final Path dir;
    private int port;
    private int pgwirePort;

    private ChildServer(Process process, Path dir) {
        this.process = process;
        this.dir = dir;
    }

    /**
     * Starts a server and waits until it is ready.
     *
     * @param twoRuntimes whether the interactive runtime is enabled (false: {@code SOLO})
     * @param heapMb the child's heap ({@code -Xms} and {@code -Xmx})
     * @param jvmArgs extra JVM options of the child, after {@link ChildJvm#DEFAULT_OPTIONS}
     * @param serverArgs extra {@code --name=value} Spring properties of the child
     */
    static ChildServer start(boolean twoRuntimes, int heapMb, List<String> jvmArgs, List<String> serverArgs, Duration timeout) {
        Path dir;
        try {
            dir = Files.createTempDirectory("tandem-bench-");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(ChildJvm.options(heapMb, jvmArgs, dir.resolve(GC_LOG)));
        cmd.addAll(launchTarget());
        cmd.add("--server.address=127.0.0.1");
        cmd.add("--server.port=0");
        cmd.add("--tandem.storage.data-dir=" + dir.resolve("data"));
        cmd.add("--tandem.storage.fsync=false");
        cmd.add("--tandem.pgwire.port=0");
        cmd.add("--tandem.compute.interactive-runtime.enabled=" + twoRuntimes);
        cmd.add("--tandem.api.max-body-bytes=16MB");
        cmd.add("--spring.main.banner-mode=off");
        serverArgs.forEach(a -> cmd.add(a.startsWith("--") ? a : "--" + a));
        Process p;
        try {
            p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(dir.resolve("server.log").toFile()).start();
        } catch (IOException e) {
            deleteTree(dir);
            throw new UncheckedIOException("cannot start a child server: " + cmd, e);
        }
        LIVE.add(p);
        ChildServer child = new ChildServer(p, dir);
        try {
            child.awaitReady(timeout);
        } catch (RuntimeException e) {
            String log = child.logTail();
            child.close();
            throw new IllegalStateException(e.getMessage() + "\n--- child server log (tail) ---\n" + log, e);
        }
        return child;
    }

    int port() {
        return port;
    }

    /** The port of the child's PostgreSQL wire protocol; fails where the child runs none. */
    int pgwirePort() {
        if (pgwirePort == 0) {
            throw new IllegalStateException("the child server logged no wire-protocol port");
        }
        return pgwirePort;
    }

    long pid() {
        return process.pid();
    }

    /** The child's GC log. */
    GcLog gcLog() {
        return new GcLog(dir.resolve(GC_LOG));
    }

    /** The child's resident set size from {@code /proc/<pid>/status} ({@code VmRSS}), or null where there is no procfs. */
    Long rssBytes() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc", Long.toString(process.pid()), "status"))) {
                if (line.startsWith("VmRSS:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
                }
            }
            return null;
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /**
     * Makes the child run a full collection ({@code jcmd <pid> GC.run}, the JDK's {@code jcmd} next to
     * this JVM's) and waits until it is done; false when there is no {@code jcmd} or it failed.
     */
    boolean fullGc(Duration timeout) {
        return jcmd("GC.run", timeout) != null;
    }

    /**
     * The bytes of all live objects in the child's heap: the total of {@code jcmd <pid> GC.class_histogram},
     * which collects first and then counts only what is reachable (unlike the used heap, which with a
     * concurrent collector may still hold garbage right after a collection); null when unavailable.
     */
    Long liveHeapBytes(Duration timeout) {
        List<String> lines = jcmd("GC.class_histogram", timeout);
        if (lines == null) {
            return null;
        }
        for (String line : lines) {
            String[] f = line.trim().split("\\s+");
            if (f.length == 3 && f[0].equals("Total")) {
                return Long.parseLong(f[2]);
            }
        }
        return null;
    }

    /** The lines of {@code jcmd <pid> Thread.print} (every thread's name and id), or null when unavailable. */
    List<String> threadDump(Duration timeout) {
        return jcmd("Thread.print", timeout);
    }

    /** Runs a {@code jcmd} command against the child; its output lines, or null when it failed or timed out. */
    private List<String> jcmd(String command, Duration timeout) {
        Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
        if (!Files.isExecutable(jcmd)) {
            return null;
        }
        Path out = dir.resolve("jcmd.log");
        try {
            Process p = new ProcessBuilder(jcmd.toString(), Long.toString(process.pid()), command)
                    .redirectErrorStream(true).redirectOutput(out.toFile()).start();
            if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                p.destroyForcibly();
                p.waitFor(10, TimeUnit.SECONDS);
                return null;
            }
            return p.exitValue() == 0 ? Files.readAllLines(out) : null;
        } catch (IOException | RuntimeException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    /**
     * Waits until the child logs the port it listens on and then answers ready on it. The port comes
     * from the child's own log, so a readiness answer can only be this child's. The wire-protocol port
     * is read too where the child runs one (standalone mode); by readiness it has been logged.
     */
    private void awaitReady(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        try {
            while (port == 0) {
                checkAlive();
                port = portInLog(HTTP_LISTENING);
                checkDeadline(deadline, timeout);
                Thread.sleep(100);
            }
            try (BenchHttp http = new BenchHttp(port, "ready", 1)) {
                while (true) {
                    checkAlive();
                    try {
                        Integer status = http.status("/actuator/health/readiness").block(Duration.ofSeconds(5));
                        if (status != null && status == 200) {
                            pgwirePort = portInLog(PGWIRE_LISTENING);
                            return;
                        }
                    } catch (RuntimeException notYet) {
                        // not ready yet
                    }
                    checkDeadline(deadline, timeout);
                    Thread.sleep(100);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for the child server", e);
        }
    }

    private void checkAlive() {
        if (!process.isAlive()) {
            throw new IllegalStateException("the child server exited with " + process.exitValue() + " before it was ready");
        }
    }

    private static void checkDeadline(long deadline, Duration timeout) {
        if (System.nanoTime() > deadline) {
            throw new IllegalStateException("the child server was not ready within " + timeout);
        }
    }

    /** The port in the first log line matching {@code listening}, or 0 when there is none yet. */
    private int portInLog(Pattern listening) {
        try (Stream<String> lines = Files.lines(dir.resolve("server.log"))) {
            return lines.map(listening::matcher).filter(Matcher::find).findFirst()
                    .map(m -> Integer.parseInt(m.group(1))).orElse(0);
        } catch (IOException | UncheckedIOException e) {
            return 0;
        }
    }

    /** The last lines of the child's log, for error messages. */
    String logTail() {
        try {
            List<String> lines = Files.readAllLines(dir.resolve("server.log"));
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
        } catch (IOException | RuntimeException e) {
            return "(no log: " + e + ")";
        }
    }

    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                process.waitFor(30, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        } finally {
            LIVE.remove(process);
            deleteTree(dir);
        }
    }

    /**
     * How to start the server: {@code -jar} of the jar this class was loaded from, or, when it was loaded
     * from a directory (tests, IDE), the main class on this JVM's class path.
     */
    static List<String> launchTarget() {
        Path jar = jarOf(ChildServer.class);
        Path aot = aotDir();
        if (aot != null) {
            // bin/aot-cache's extracted jar and the JDK's ahead-of-time cache made from it (bin/dev bench passes the directory)
            return List.of("-XX:AOTCache=" + aot.resolve("tandem.aot"), "-jar", aot.resolve("app").resolve("tandem.jar").toString());
        }
        if (jar != null) {
            return List.of("-jar", jar.toString());
        }
        return List.of("-cp", System.getProperty("java.class.path"), "dev.tandem.TandemApplication");
    }

    /**
     * The directory of {@code bin/aot-cache}'s output ({@code tandem.bench.aot-dir}) when it holds a cache and
     * its extracted jar, else null: the child servers then start from the cache, as {@code bin/dev server} does.
     */
    static Path aotDir() {
        String dir = System.getProperty("tandem.bench.aot-dir");
        if (dir == null || dir.isBlank()) {
            return null;
        }
        Path d = Path.of(dir).toAbsolutePath();
        return Files.isRegularFile(d.resolve("tandem.aot")) && Files.isRegularFile(d.resolve("app").resolve("tandem.jar")) ? d : null;
    }

    /** The jar file holding {@code type}, also through Spring Boot's nested-jar URLs, or null when not from a jar. */
    static Path jarOf(Class<?> type) {
        URL location = type.getProtectionDomain().getCodeSource().getLocation();
        String s = location.toString();
        try {
            if (s.startsWith("jar:nested:")) {
                String path = s.substring("jar:nested:".length());
                int bang = path.indexOf("/!");
                return Path.of(bang >= 0 ? path.substring(0, bang) : path);
            }
            if (s.startsWith("jar:file:")) {
                int bang = s.indexOf("!/");
                return Path.of(new URI(s.substring(4, bang >= 0 ? bang : s.length())));
            }
            if (s.startsWith("file:") && s.endsWith(".jar")) {
                return Path.of(location.toURI());
            }
        } catch (URISyntaxException | RuntimeException e) {
            return null;
        }
        return null;
    }

    /** Deletes a directory and everything in it, as far as it can (a benchmark's temporary directory). */
    static void deleteTree(Path root) {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(root)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.deleteIfExists(p);
                } catch (IOException ignored) {
                    // best effort: a temporary directory
                }
            });
        } catch (IOException ignored) {
            // best effort
        }
    }
}
