package dev.tandem.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import tools.jackson.databind.node.ObjectNode;

/**
 * PostgreSQL's load generator {@code pgbench} as a client of a benchmark: point reads of {@code points}
 * ({@link #script}) over the wire protocol, open loop ({@code -R}) or closed loop, with a per-transaction
 * log ({@code -l}) from which the latencies are computed here rather than taken from pgbench's summary.
 * A line of that log is {@code client_id transaction_no time script_no time_epoch time_us [schedule_lag]}:
 * {@code time_epoch.time_us} is when the transaction ended and {@code time} its latency in microseconds,
 * which under {@code -R} runs from the transaction's <em>scheduled</em> start (the schedule lag, how late
 * pgbench could start it, included), so a stalled server shows as latency and not as fewer samples. A
 * run's first {@code warmUp} is cut off by scheduled start; what is left is the measured window.
 */
final class Pgbench {

    /** pgbench's worker threads ({@code -j}); never more than its clients. */
    static final int THREADS = 2;

    private static final Pattern TPS = Pattern.compile("tps = ([0-9.]+) \\(without initial connection time\\)");
    private static final Pattern FAILED = Pattern.compile("number of failed transactions: (\\d+)");
    private static final Pattern LAG = Pattern.compile("rate limit schedule lag: avg ([0-9.]+) \\(max ([0-9.]+)\\) ms");

    /** A system under test as pgbench reaches it: loopback, a port, a user and a database. */
    record Target(String system, int port, String user, String database) {
    }

    /**
     * One run's measured window.
     *
     * @param latency the window's transactions, latency from their scheduled start; {@code errors} are failed transactions,
     *     {@code incomplete} the slots of the schedule never started ({@link #readLog})
     * @param exitCode pgbench's exit status (0: every client ran to the end), -1 when it had to be killed
     * @param pgbenchTps the throughput pgbench reported over its whole run, warm-up included
     * @param pgbenchFailed the failed transactions pgbench reported
     * @param lagAvgMs the mean schedule lag pgbench reported ({@code -R} only)
     * @param lagMaxMs the largest schedule lag pgbench reported ({@code -R} only)
     * @param output the end of pgbench's output when it did not exit with 0, else null
     */
    record Result(LatencySummary latency, int exitCode, Double pgbenchTps, Long pgbenchFailed, Double lagAvgMs, Double lagMaxMs,
            String output) {

        /** Transactions completed per second of the window: {@code rate} without the {@code incomplete} ones. */
        double achievedRate() {
            return latency.count() == 0 ? 0 : latency.rate() * (latency.count() - latency.incomplete()) / latency.count();
        }

        void writeTo(ObjectNode run) {
            latency.writeTo(run);
            run.put("achieved_rate", LatencySummary.round(achievedRate()));
            run.put("pgbench_exit", exitCode);
            LatencySummary.put(run, "pgbench_tps", pgbenchTps);
            if (pgbenchFailed != null) {
                run.put("pgbench_failed", pgbenchFailed);
            }
            LatencySummary.put(run, "pgbench_lag_avg_ms", lagAvgMs);
            LatencySummary.put(run, "pgbench_lag_max_ms", lagMaxMs);
            if (output != null) {
                run.put("pgbench_output", output);
            }
        }
    }

    private final Path pgbench;
    private final Path dir;
    private final Path script;
    private int runs;

    /** A pgbench at {@code pgbench} whose script and logs live in {@code dir}, reading keys {@code 0..pointRows-1}. */
    Pgbench(Path pgbench, Path dir, long pointRows) {
        this.pgbench = pgbench;
        this.dir = dir;
        this.script = dir.resolve("point-read.sql");
        try {
            Files.writeString(script, script(pointRows));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The transaction: one point read of a random existing key. */
    static String script(long pointRows) {
        return "\\set k random(0, " + (pointRows - 1) + ")\nSELECT id, v FROM points WHERE id = :k;\n";
    }

    Path executable() {
        return pgbench;
    }

    /** What {@code pgbench --version} prints. */
    String version() {
        Path out = dir.resolve("version.out");
        try {
            Process p = new ProcessBuilder(pgbench.toString(), "--version").redirectErrorStream(true).redirectOutput(out.toFile()).start();
            if (!p.waitFor(30, TimeUnit.SECONDS)) {
                p.destroyForcibly();
            }
            return Files.readString(out).trim();
        } catch (IOException e) {
            return "unknown (" + e.getMessage() + ")";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "unknown";
        }
    }

    /**
     * The command line of a run: {@code -n} (no vacuum: the tables are not pgbench's), {@code clients}
     * clients on {@link #THREADS} threads, query mode {@code mode}, {@code -R rate} when a rate is given,
     * {@code -T seconds}, the script and the per-transaction log under {@code prefix}.
     */
    List<String> command(Target t, String mode, Double rate, int clients, long seconds, Path prefix) {
        List<String> cmd = new ArrayList<>(List.of(pgbench.toString(), "-h", "127.0.0.1", "-p", Integer.toString(t.port()), "-U", t.user(),
                "-n", "-c", Integer.toString(clients), "-j", Integer.toString(Math.min(THREADS, clients)), "-M", mode));
        if (rate != null) {
            cmd.addAll(List.of("-R", BenchReport.fmt(rate, 0)));
        }
        cmd.addAll(List.of("-T", Long.toString(seconds), "-f", script.toString(), "-l", "--log-prefix=" + prefix, t.database()));
        return cmd;
    }

    /** The command line of an open-loop run of {@code clients}, with placeholders for what each run sets. */
    String template(int clients) {
        List<String> cmd = command(new Target("SYSTEM", 0, "USER", "DATABASE"), "MODE", 1.0, clients, 1, dir.resolve("run-N"));
        cmd.set(cmd.indexOf("-p") + 1, "PORT");
        cmd.set(cmd.indexOf("-R") + 1, "RATE");
        cmd.set(cmd.indexOf("-T") + 1, "<warmup_s + duration_s>");
        return String.join(" ", cmd).replace(dir.toString(), "<dir>");
    }

    /**
     * Runs pgbench against {@code t} for {@code warmUp} plus {@code window} (rounded up to whole seconds),
     * calls {@code opened} when the window opens and {@code ended} as soon as pgbench has exited, and
     * returns the window's figures.
     */
    Result run(Target t, String mode, Double rate, int clients, Duration warmUp, Duration window, Runnable opened, Runnable ended) {
        Path prefix = dir.resolve("run-" + ++runs);
        long seconds = Math.max(1, (long) Math.ceil((warmUp.toMillis() + window.toMillis()) / 1000.0));
        List<String> cmd = command(t, mode, rate, clients, seconds, prefix);
        Path out = dir.resolve(prefix.getFileName() + ".out");
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(out.toFile());
        pb.environment().put("PGSSLMODE", "disable");
        pb.environment().put("PGCONNECT_TIMEOUT", "30");
        Process p;
        try {
            p = pb.start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run " + cmd, e);
        }
        long windowStart;
        int exit;
        try {
            p.waitFor(warmUp.toMillis(), TimeUnit.MILLISECONDS);
            windowStart = epochMicros();
            opened.run();
            if (p.waitFor(seconds + 120, TimeUnit.SECONDS)) {
                exit = p.exitValue();
            } else {
                p.destroyForcibly();
                p.waitFor(30, TimeUnit.SECONDS);
                exit = -1;
            }
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while pgbench ran", e);
        } finally {
            ended.run();
        }
        String text = read(out);
        LatencySummary latency = readLog(prefix, windowStart, window.toMillis() / 1000.0, rate, Math.min(THREADS, clients), seconds);
        return new Result(latency, exit, group(TPS, text), failed(text), lag(text, 1), lag(text, 2),
                exit == 0 ? null : lastLines(text, 15));
    }

    /**
     * The transactions of the log files of {@code prefix} ({@code prefix.<pid>} for pgbench's first thread,
     * {@code prefix.<pid>.<n>} for thread {@code n}) scheduled at or after {@code windowStart} (µs since the
     * epoch), as a summary over the window from there to the last one's end ({@code fallbackSeconds} when
     * there is none); deletes the files.
     *
     * <p>Under {@code -R}, each pgbench thread draws one schedule at {@code rate / threads} whose slots its
     * clients take in order, and stops at the end of {@code -T}: slots a backlogged server never let a client
     * start are in no log. So per thread, the slots already due when its last transaction started (after its
     * schedule lag, the log's last column) are counted {@code incomplete}, evenly spaced at the thread's rate,
     * each at its age at the thread's end (its last transaction's end, at most {@code runSeconds} after its
     * first slot), a lower bound of its latency, as {@link LoadGenerator#openLoop} counts requests unanswered
     * at its cut-off. A server that keeps up starts its last transaction on time, and so leaves none.
     */
    static LatencySummary readLog(Path prefix, long windowStart, double fallbackSeconds, Double rate, int threads, long runSeconds) {
        LatencyRecorder recorder = new LatencyRecorder();
        long lastEnd = windowStart;
        String name = prefix.getFileName() + ".";
        try (DirectoryStream<Path> files = Files.newDirectoryStream(prefix.getParent(), p -> p.getFileName().toString().startsWith(name)
                && !p.getFileName().toString().endsWith(".out"))) {
            for (Path file : files) {
                long firstScheduled = Long.MAX_VALUE;
                long lastScheduled = Long.MIN_VALUE;
                long lastStarted = Long.MIN_VALUE;
                long threadLastEnd = Long.MIN_VALUE;
                try (BufferedReader r = Files.newBufferedReader(file)) {
                    for (String line = r.readLine(); line != null; line = r.readLine()) {
                        String[] f = line.split(" ");
                        if (f.length < 6) {
                            continue;
                        }
                        long end = Long.parseLong(f[4]) * 1_000_000 + Long.parseLong(f[5]);
                        if (!Character.isDigit(f[2].charAt(0))) {
                            // "failed" (or "skipped", with a latency limit): no latency, an error of the window it ended in
                            if (end >= windowStart) {
                                recorder.error();
                            }
                            continue;
                        }
                        long micros = Long.parseLong(f[2]);
                        long scheduled = end - micros;
                        firstScheduled = Math.min(firstScheduled, scheduled);
                        threadLastEnd = Math.max(threadLastEnd, end);
                        if (scheduled > lastScheduled) {
                            lastScheduled = scheduled;
                            lastStarted = scheduled + (f.length > 6 ? Long.parseLong(f[6]) : 0);
                        }
                        if (scheduled >= windowStart) {
                            recorder.record((scheduled - windowStart) / 1e6, micros * 1_000);
                            lastEnd = Math.max(lastEnd, end);
                        }
                    }
                }
                Files.delete(file);
                if (rate != null && firstScheduled <= lastScheduled) {
                    long threadEnd = Math.max(lastStarted, Math.min(firstScheduled + runSeconds * 1_000_000, threadLastEnd));
                    double slotMicros = 1e6 * threads / rate;
                    long missed = (long) Math.floor((lastStarted - lastScheduled) / slotMicros);
                    for (long k = 1; k <= missed; k++) {
                        long scheduled = lastScheduled + Math.round(k * slotMicros);
                        if (scheduled >= windowStart) {
                            recorder.recordIncomplete((scheduled - windowStart) / 1e6, (threadEnd - scheduled) * 1_000);
                            lastEnd = Math.max(lastEnd, threadEnd);
                        }
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read pgbench's log " + prefix, e);
        }
        double seconds = lastEnd > windowStart ? (lastEnd - windowStart) / 1e6 : fallbackSeconds;
        return recorder.summary(seconds);
    }

    private static long epochMicros() {
        Instant now = Instant.now();
        return now.getEpochSecond() * 1_000_000 + now.getNano() / 1_000;
    }

    private static String read(Path out) {
        try {
            return Files.readString(out);
        } catch (IOException e) {
            return "";
        }
    }

    private static Double group(Pattern p, String text) {
        Matcher m = p.matcher(text);
        return m.find() ? Double.parseDouble(m.group(1)) : null;
    }

    private static Long failed(String text) {
        Matcher m = FAILED.matcher(text);
        return m.find() ? Long.valueOf(m.group(1)) : null;
    }

    private static Double lag(String text, int group) {
        Matcher m = LAG.matcher(text);
        return m.find() ? Double.parseDouble(m.group(group)) : null;
    }

    private static String lastLines(String text, int n) {
        String[] lines = text.split("\n");
        return String.join("\n", Arrays.asList(lines).subList(Math.max(0, lines.length - n), lines.length));
    }
}
