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
 * @param pg the sweep and the PostgreSQL of {@code pg-compare}
 * @param runs the fresh servers of {@code startup}, per query mode
 * @param shapes the shapes {@code sql-shapes} measures, of {@link SqlShapesScenario#SHAPES}, in that order
 */
record BenchOptions(String scenario, Duration duration, Double rate, Long rows, long pointRows, int connections,
        int churnLoops, Duration probe, Integer heapMb, Path out, List<String> jvmArgs, List<String> serverArgs, String kafka,
        Integer subscribers, Duration churnWarmup, Duration settle, List<String> arms, PgCompare pg, int runs,
        List<String> shapes) {

    static final List<String> SCENARIOS = List.of("read-isolation", "introspection-under-hydration", "maintenance-throughput",
            "peek-throughput", "memory", "replicas", "subscribe-fanout", "sql-point-lookup", "pg-compare", "pg-source", "startup",
            "sql-shapes");

    /** The systems {@code pg-compare} can measure, and the name of each in its report. */
    static final String TANDEM = "tandem";
    static final String POSTGRESQL = "postgresql";

    /** pgbench's query modes ({@code -M}). */
    static final List<String> PGBENCH_MODES = List.of("simple", "extended", "prepared");

    /**
     * The sweep of {@code pg-compare}.
     *
     * @param rates the open-loop rates, transactions/s, in order
     * @param capacity whether a closed-loop capacity run follows the rates
     * @param modes pgbench's query modes, in order
     * @param systems {@link #TANDEM} and/or {@link #POSTGRESQL}, in the order each arm runs them
     * @param pgBin the directory of PostgreSQL's binaries (null: found as {@link PostgresServer#binaries} does)
     * @param pgSettings the PostgreSQL server's settings ({@code name=value}) besides its defaults and the loopback port
     */
    record PgCompare(List<Double> rates, boolean capacity, List<String> modes, List<String> systems, Path pgBin, List<String> pgSettings) {

        static final List<String> DEFAULT_PG_SETTINGS = List.of("shared_buffers=2GB");

        static PgCompare defaults() {
            return new PgCompare(List.of(577.0, 2000.0, 5000.0, 10000.0), true, List.of("simple", "prepared"),
                    List.of(TANDEM, POSTGRESQL), null, DEFAULT_PG_SETTINGS);
        }
    }

    static final String USAGE = """
            usage: java -jar tandem.jar bench <scenario> [options]
              scenarios: read-isolation | introspection-under-hydration | maintenance-throughput | peek-throughput | memory
                         | replicas | subscribe-fanout | sql-point-lookup | pg-compare | pg-source | startup | sql-shapes
              --duration D      measured interval of each phase (60s; peek-throughput 20s per phase;
                                pg-compare: of each pgbench run, in whole seconds)
              --seconds N       the same as --duration Ns
              --rate N          open-loop requests/s (default: 30% of the capacity probed on the first arm)
              --rows N          rows of the large table (2000000; maintenance-throughput and memory 1000000;
                                peek-throughput: rows of the looked-up table, 100000;
                                replicas: rows written before a replica's catch-up is timed, 1000000)
              --point-rows N    rows of the small point-indexed table (10000)
              --connections N   concurrent requests of closed loops (32)
              --churn-loops N   concurrent create-hydrate-drop loops (2; 0: no churn)
              --subscribers N   WebSocket subscribers of subscribe-fanout (1000; its --rate is writes/s, 1000)
              --probe D         closed-loop warm-up, then as long a capacity probe, before the churn (5s)
              --churn-warmup D  read-isolation, subscribe-fanout, pg-compare: the churn (and in pg-compare pgbench)
                                runs this long before the window opens,
                                so it sees a server that has compiled its churn, not its first minute;
                                maintenance-throughput: saturating reads and unmeasured hydrations of every
                                kind run this long before the measured ones (30s; 0s: none)
              --settle D        how long a child server idles before it is measured at rest after loading,
                                so that the batch builders' kept scratch (dropped after 5 s unused) is not
                                counted as data (7s); then until live objects and RSS reach no new low for
                                45 s (3 min at most; the collector uncommits after 30 s); 0s: at once
              --arm A           two_runtime or solo: run that arm alone, without the other or their ratios
                                (scenarios with the two arms; default both)
              --heap-mb N       heap of each child server (sized from --rows)
              --jvm-arg X       a JVM option of the child servers, replacing a default of the same option
                                (e.g. -XX:+UseZGC replaces the default collector; repeatable)
              --server-arg K=V  an extra property of the child servers (repeatable)
              --kafka HOST:PORT a running Kafka broker (replicas only; it is not started for you)
              --out FILE        the JSON results (bench-<scenario>.json)
            pg-compare (Tandem beside a throw-away PostgreSQL, both read by pgbench over the wire protocol):
              --rates LIST      open-loop rates of pgbench -R, and 'capacity' for a closed loop of --connections
                                clients without -R (577,2000,5000,10000,capacity)
              --modes LIST      pgbench query modes -M: simple, extended, prepared (simple,prepared)
              --systems LIST    tandem, postgresql: the systems measured in each arm, one after the other (tandem,postgresql)
              --pg-bin DIR      PostgreSQL's binaries (initdb, pg_ctl, postgres, psql; default: on the PATH,
                                else the newest /usr/lib/postgresql/*/bin); pgbench is taken from there, else the PATH
              --pg-setting K=V  a PostgreSQL setting besides its defaults (repeatable; replaces shared_buffers=2GB
                                when it sets shared_buffers)
            pg-source (Tandem replicating a throw-away PostgreSQL by CREATE SOURCE ... FROM POSTGRES):
              --rows N          rows of the upstream table whose copy is timed (1000000)
              --rates LIST      upstream TPC-B-like write rates (pgbench -R), and 'capacity' for the upstream
                                saturated (1000,capacity); --duration is each arm's window (30s),
                                --churn-warmup the time before it (30s); --pg-bin, --pg-setting as above
            startup (the first seconds of fresh servers, read by pgbench the moment points is loaded and indexed):
              --runs N          fresh servers per query mode (3); --rate (5000), --duration (30s), --modes
                                (simple,prepared), --point-rows, --jvm-arg and --server-arg as above
            sql-shapes (hard SQL shapes as indexed views: hydration, then single-row changes timed from the write's
                        acknowledgement until visible in the view, beside the same query once on PostgreSQL):
              --rows N          rows of each shape's table (1000000; the graph's edges are a tenth of it);
                                --duration bounds each shape's changes (60s; at most 200 changes);
                                --pg-bin, --pg-setting as above
              --shapes LIST     correlated, row_number, closure, temporal: the shapes measured, in order (all)
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
        PgCompare pg = PgCompare.defaults();
        // pg-source's rates are the upstream's write rates: 1,000 tx/s, then the upstream saturated
        List<Double> rates = scenario.equals("pg-source") ? List.of(1000.0) : pg.rates();
        boolean capacity = pg.capacity();
        List<String> modes = pg.modes();
        List<String> systems = pg.systems();
        Path pgBin = null;
        List<String> pgSettings = new ArrayList<>();
        int runs = 3;
        List<String> shapes = SqlShapesScenario.SHAPES;
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
                case "--seconds" -> duration = Duration.ofSeconds((long) positive(name, Long.parseLong(value)));
                case "--rates" -> {
                    List<Double> r = new ArrayList<>();
                    capacity = false;
                    for (String v : list(name, value)) {
                        if (v.equals("capacity")) {
                            capacity = true;
                        } else {
                            try {
                                r.add(positive(name, Double.parseDouble(v)));
                            } catch (NumberFormatException e) {
                                throw new IllegalArgumentException("--rates takes rates and 'capacity', got '" + v + "'");
                            }
                        }
                    }
                    rates = List.copyOf(r);
                }
                case "--modes" -> modes = oneOf(name, list(name, value), PGBENCH_MODES);
                case "--systems" -> systems = oneOf(name, list(name, value), List.of(TANDEM, POSTGRESQL));
                case "--pg-bin" -> pgBin = Path.of(value);
                case "--pg-setting" -> {
                    if (!value.matches("[A-Za-z_.]+=\\S+")) {
                        throw new IllegalArgumentException("--pg-setting takes name=value, got '" + value + "'");
                    }
                    pgSettings.add(value);
                }
                case "--shapes" -> shapes = oneOf(name, list(name, value), SqlShapesScenario.SHAPES);
                case "--runs" -> runs = (int) positive(name, Integer.parseInt(value));
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
        List<String> settings = new ArrayList<>(pgSettings);
        if (pgSettings.stream().noneMatch(s -> s.startsWith("shared_buffers="))) {
            settings.addAll(0, PgCompare.DEFAULT_PG_SETTINGS);
        }
        pg = new PgCompare(rates, capacity, modes, systems, pgBin, List.copyOf(settings));
        return new BenchOptions(scenario, duration, rate, rows, pointRows, connections, churnLoops, probe, heapMb, out,
                List.copyOf(jvmArgs), List.copyOf(serverArgs), kafka, subscribers, churnWarmup, settle, arms, pg, runs, shapes);
    }

    /** The comma-separated items of {@code value}, at least one. */
    private static List<String> list(String name, String value) {
        List<String> items = new ArrayList<>();
        for (String v : value.split(",")) {
            if (!v.isBlank()) {
                items.add(v.trim().toLowerCase(Locale.ROOT));
            }
        }
        if (items.isEmpty()) {
            throw new IllegalArgumentException(name + " needs at least one item");
        }
        return items;
    }

    /** {@code items}, each of {@code allowed}, without repeats. */
    private static List<String> oneOf(String name, List<String> items, List<String> allowed) {
        for (String item : items) {
            if (!allowed.contains(item)) {
                throw new IllegalArgumentException(name + " takes " + String.join(", ", allowed) + ", got '" + item + "'");
            }
        }
        return items.stream().distinct().toList();
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
