package dev.tandem.testing;

import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A Tandem server in a child JVM (a replica on the Kafka storage backend, or a server on its own data
 * directory), on a free loopback port: started from this JVM's class path, stopped gracefully or
 * killed with SIGKILL. Shared by the tests that need a real process (crashes, start-up refusals).
 */
public final class ReplicaProcess implements AutoCloseable {

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    private final Process process;
    private final Path log;
    public final int port;

    private ReplicaProcess(Process process, Path log, int port) {
        this.process = process;
        this.log = log;
        this.port = port;
    }

    /** Starts a replica over {@code topic} on {@code bootstrapServers}; does not wait for it to be ready. */
    public static ReplicaProcess start(String name, String bootstrapServers, String topic, Path dir) {
        return start(name, dir, List.of(
                "--tandem.storage.backend=kafka",
                "--tandem.storage.kafka.bootstrap-servers=" + bootstrapServers,
                "--tandem.storage.kafka.topic=" + topic));
    }

    /** Starts a server with its data in {@code dir/name} and the extra {@code args}; does not wait for it to be ready. */
    public static ReplicaProcess start(String name, Path dir, List<String> args) {
        int port = freePort();
        List<String> cmd = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx320m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xss512k",
                "-cp", System.getProperty("java.class.path"), "dev.tandem.TandemApplication",
                "--server.address=127.0.0.1",
                "--server.port=" + port,
                "--spring.main.banner-mode=off",
                "--tandem.pgwire.port=0",
                "--tandem.storage.data-dir=" + dir.resolve(name),
                "--tandem.compute.maintenance-workers=1",
                "--tandem.compute.interactive-workers=1"));
        cmd.addAll(args);
        Path log = dir.resolve(name + "-" + System.nanoTime() + ".log");
        try {
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
            return new ReplicaProcess(p, log, port);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Waits until readiness answers 200 (caught up with the log and every index hydrated). */
    public ReplicaProcess awaitReady(Duration timeout) {
        await().atMost(timeout).pollInterval(Duration.ofMillis(200)).failFast("replica exited", () -> !process.isAlive())
                .ignoreExceptions().until(() -> get("/actuator/health/readiness").statusCode() == 200);
        return this;
    }

    public HttpResponse<String> get(String path) throws IOException, InterruptedException {
        return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    public HttpResponse<String> post(String path, String json) throws IOException, InterruptedException {
        return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).timeout(Duration.ofSeconds(20))
                        .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(json)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    public HttpResponse<String> delete(String path) throws IOException, InterruptedException {
        return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).timeout(Duration.ofSeconds(20)).DELETE().build(),
                HttpResponse.BodyHandlers.ofString());
    }

    /** SIGKILL: no shutdown hook, no flush. */
    public void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(30, TimeUnit.SECONDS);
    }

    public String logTail() {
        try {
            List<String> lines = Files.readAllLines(log);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 60), lines.size()));
        } catch (IOException | RuntimeException e) {
            return "(no log: " + e + ")";
        }
    }

    /** Waits at most {@code timeout} for the process to exit by itself; its exit code, or null if it is still running. */
    public Integer awaitExit(Duration timeout) throws InterruptedException {
        return process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS) ? process.exitValue() : null;
    }

    /** Everything the process printed so far. */
    public String output() {
        try {
            return Files.readString(log);
        } catch (IOException e) {
            return "(no log: " + e + ")";
        }
    }

    @Override
    public void close() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(20, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            process.waitFor(20, TimeUnit.SECONDS);
        }
    }

    private static int freePort() {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
