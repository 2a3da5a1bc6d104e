package dev.tandem.bench;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The command line of {@code tandem bench <scenario> [options]}.
 *
 * @param duration the measured interval of each phase (null: the scenario's default)
 * @param rate the open-loop rate in requests/s (null: 30% of the capacity probed on the first arm)
 * @param rows rows of the large table (null: the scenario's default)
 * @param pointRows rows of the small point-indexed table
 * @param connections concurrent requests of closed loops (probe, saturation, throughput)
 * @param churnLoops concurrent create-hydrate-drop loops of the hydration churn
 * @param probe the closed-loop warm-up, and then the capacity probe, before the churn starts
 * @param heapMb the child server's heap (null: sized from the rows)
 * @param jvmArgs extra JVM options of the child servers
 * @param serverArgs extra {@code name=value} properties of the child servers
 * @param kafka the bootstrap servers of a running Kafka broker ({@code replicas} only; null if none)
 * @param subscribers WebSocket subscribers of {@code subscribe-fanout} (null: the scenario's default)
 * @param churnWarmup how long the hydration churn runs before the measured window of {@code read-isolation} and
 *     {@code subscribe-fanout} opens
 * @param settle how long a child server is left idle before it is measured at rest after loading
 * @param arms the arms to run, of {@link BenchReport#TWO_RUNTIME} and {@link BenchReport#SOLO}, in that order
 */
record BenchOptions(String scenario, Duration duration, Double rate, Long rows, long pointRows, int connections,
        int churnLoops, Duration probe, Integer heapMb, Path out, List<String> jvmArgs, List<String> serverArgs, String kafka,
        Integer subscribers, Duration churnWarmup, Duration settle, List<String> arms) {

    static final List<String> SCENARIOS = List.of("read-isolation", "introspection-under-hydration", "maintenance-throughput",
            "peek-throughput", "memory", "replicas", "subscribe-fanout", "sql-point-lookup");

    static final String USAGE = """
            usage: java -jar tandem.jar bench <scenario> [options]
              scenarios: read-isolation | introspection-under-hydration | maintenance-throughput | peek-throughput | memory
                         | replicas | subscribe-fanout | sql-point-lookup
              --duration D      measured interval of each phase (60s; peek-throughput 20s per phase)
              --rate N          open-loop requests/s (default: 30% of the capacity probed on the first arm)
              --rows N          rows of the large table (2000000; maintenance-throughput and memory 1000000;
                                peek-throughput: rows of the looked-up table, 100000;
                                replicas: rows written before a replica's catch-up is timed, 1000000)
              --point-rows N    rows of the small point-indexed table (10000)
              --connections N   concurrent requests of closed loops (32)
              --churn-loops N   concurrent create-hydrate-drop loops (2; 0: no churn)
              --subscribers N   WebSocket subscribers of subscribe-fanout (1000; its --rate is writes/s, 1000)
              --probe D         closed-loop warm-up, then as long a capacity probe, before the churn (5s)
              --churn-warmup D  read-isolation, subscribe-fanout: the churn runs this long before the window opens,
                                so it sees a server that has compiled its churn, not its first minute;
                                maintenance-throughput: saturating reads and unmeasured hydrations of every
                                kind run this long before the measured ones (30s; 0s: none)
              --settle D        how long a child server idles before it is measured at rest after loading,
                                so that the batch builders' kept scratch (dropped after 5 s unused) is not
                                counted as data (7s)
              --arm A           two_runtime or solo: run that arm alone, without the other or their ratios
                                (scenarios with the two arms; default both)
              --heap-mb N       heap of each child server (sized from --rows)
              --jvm-arg X       a JVM option of the child servers, replacing a default of the same option
                                (e.g. -XX:+UseZGC replaces the default collector; repeatable)
              --server-arg K=V  an extra property of the child servers (repeatable)
              --kafka HOST:PORT a running Kafka broker (replicas only; it is not started for you)
              --out FILE        the JSON results (bench-<scenario>.json)
            durations: 500ms, 3s, 2m or plain seconds""";

    static BenchOptions parse(String... args) {
        if (args.length == 0 || !SCENARIOS.contains(args[0])) {
            throw new IllegalArgumentException(args.length == 0 ? "no scenario given" : "unknown scenario '" + args[0] + "'");
        }
        String scenario = args[0];
        Duration duration = null;
        Double rate = null;
        Long rows = null;
        long pointRows = 10_000;
        int connections = 32;
        int churnLoops = 2;
        Duration probe = Duration.ofSeconds(5);
        Integer heapMb = null;
        Path out = Path.of("bench-" + scenario + ".json");
        List<String> jvmArgs = new ArrayList<>();
        List<String> serverArgs = new ArrayList<>();
        String kafka = null;
        Integer subscribers = null;
        Duration churnWarmup = Duration.ofSeconds(30);
        Duration settle = Duration.ofSeconds(7);
        List<String> arms = List.of(BenchReport.TWO_RUNTIME, BenchReport.SOLO);
        for (int i = 1; i < args.length; i++) {
            String name = args[i];
            String value;
            int eq = name.indexOf('=');
            if (name.startsWith("--") && eq > 0 && !name.equals("--server-arg") && !name.equals("--jvm-arg")) {
                value = name.substring(eq + 1);
                name = name.substring(0, eq);
            } else {
                if (i + 1 >= args.length) {
                    throw new IllegalArgumentException(name + " needs a value");
                }
                value = args[++i];
            }
            switch (name) {
                case "--duration" -> duration = duration(value);
                case "--rate" -> rate = positive(name, Double.parseDouble(value));
                case "--rows" -> rows = (long) positive(name, Long.parseLong(value));
                case "--point-rows" -> pointRows = (long) positive(name, Long.parseLong(value));
                case "--connections" -> connections = (int) positive(name, Integer.parseInt(value));
                case "--churn-loops" -> {
                    churnLoops = Integer.parseInt(value);
                    if (churnLoops < 0) {
                        throw new IllegalArgumentException("--churn-loops must not be negative (0: no churn), got " + value);
                    }
                }
                case "--probe" -> probe = duration(value);
                case "--heap-mb" -> heapMb = (int) positive(name, Integer.parseInt(value));
                case "--out" -> out = Path.of(value);
                case "--jvm-arg" -> jvmArgs.add(value);
                case "--server-arg" -> serverArgs.add(value);
                case "--kafka" -> kafka = value;
                case "--subscribers" -> subscribers = (int) positive(name, Integer.parseInt(value));
                case "--churn-warmup" -> {
                    churnWarmup = duration(value);
                    if (churnWarmup.isNegative()) {
                        throw new IllegalArgumentException("--churn-warmup must not be negative, got " + value);
                    }
                }
                case "--settle" -> {
                    settle = duration(value);
                    if (settle.isNegative()) {
                        throw new IllegalArgumentException("--settle must not be negative, got " + value);
                    }
                }
                case "--arm" -> {
                    if (!List.of(BenchReport.TWO_RUNTIME, BenchReport.SOLO).contains(value)) {
                        throw new IllegalArgumentException("--arm must be " + BenchReport.TWO_RUNTIME + " or " + BenchReport.SOLO + ", got " + value);
                    }
                    arms = List.of(value);
                }
                default -> throw new IllegalArgumentException("unknown option '" + name + "'");
            }
        }
        return new BenchOptions(scenario, duration, rate, rows, pointRows, connections, churnLoops, probe, heapMb, out,
                List.copyOf(jvmArgs), List.copyOf(serverArgs), kafka, subscribers, churnWarmup, settle, arms);
    }

    /** The measured interval, or the scenario's default. */
    Duration durationOr(Duration fallback) {
        return duration != null ? duration : fallback;
    }

    /** The subscribers of {@code subscribe-fanout}, or its default. */
    int subscribersOr(int fallback) {
        return subscribers != null ? subscribers : fallback;
    }

    /** The large table's rows, or the scenario's default. */
    long rowsOr(long fallback) {
        return rows != null ? rows : fallback;
    }

    /** The child's heap: as given, or {@link ChildJvm#heapMbFor sized from the rows} of the large table. */
    int heapMbFor(long rows) {
        return heapMb != null ? heapMb : ChildJvm.heapMbFor(rows);
    }

    static Duration duration(String s) {
        String v = s.trim().toLowerCase(Locale.ROOT);
        try {
            if (v.endsWith("ms")) {
                return Duration.ofMillis(Long.parseLong(v.substring(0, v.length() - 2)));
            }
            if (v.endsWith("s")) {
                return Duration.ofMillis(Math.round(Double.parseDouble(v.substring(0, v.length() - 1)) * 1000));
            }
            if (v.endsWith("m")) {
                return Duration.ofMillis(Math.round(Double.parseDouble(v.substring(0, v.length() - 1)) * 60_000));
            }
            return Duration.ofMillis(Math.round(Double.parseDouble(v) * 1000));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("not a duration: '" + s + "' (e.g. 500ms, 3s, 2m)");
        }
    }

    private static double positive(String name, double v) {
        if (!(v > 0)) {
            throw new IllegalArgumentException(name + " must be positive, got " + v);
        }
        return v;
    }
}
