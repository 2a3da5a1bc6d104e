package dev.tandem.bench;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import tools.jackson.databind.node.ObjectNode;

/**
 * One arm of a scenario: a child server in one mode (two runtimes or {@code SOLO}) with an admin client
 * (catalog calls, loading) and two load clients (open-loop and closed-loop requests, with their own
 * timeouts), stopped together on close; it takes the child's memory at rest right after start-up, the
 * baseline of the arm's {@code memory}.
 */
final class BenchArm implements AutoCloseable {

    /** Connections of the load client; beyond them open-loop requests wait in its pool (still timed). */
    static final int LOAD_CONNECTIONS = 512;

    /** Timeout of an open-loop request: long enough for SOLO's backlog, short enough to bound a stuck connection. */
    static final Duration OPEN_LOOP_TIMEOUT = Duration.ofSeconds(30);

    /** Timeout of a closed-loop request (probe, saturation, throughput): a stuck connection stalls its loop. */
    static final Duration CLOSED_LOOP_TIMEOUT = Duration.ofSeconds(5);

    final String name;
    final ChildServer server;
    final BenchHttp admin;
    final BenchHttp load;
    final BenchHttp closed;
    private final Duration settle;
    private ChildResources.AtRest baseline;

    private BenchArm(String name, ChildServer server, Duration settle) {
        this.name = name;
        this.server = server;
        this.settle = settle;
        this.admin = new BenchHttp(server.port(), name + "-admin", 4);
        this.load = new BenchHttp(server.port(), name + "-load", LOAD_CONNECTIONS, OPEN_LOOP_TIMEOUT);
        this.closed = new BenchHttp(server.port(), name + "-closed", LOAD_CONNECTIONS, CLOSED_LOOP_TIMEOUT);
    }

    /** Starts the child server of arm {@code name} ({@link BenchReport#TWO_RUNTIME} or {@link BenchReport#SOLO}). */
    static BenchArm start(String name, BenchOptions o, long rows) {
        boolean two = name.equals(BenchReport.TWO_RUNTIME);
        BenchMain.log("[%s] starting a child server (%s, heap %d MB)", name, two ? "two runtimes" : "SOLO", o.heapMbFor(rows));
        ChildServer server = ChildServer.start(two, o.heapMbFor(rows), o.jvmArgs(), o.serverArgs(), Duration.ofMinutes(3));
        BenchMain.log("[%s] child server pid %d ready on 127.0.0.1:%d", name, server.pid(), server.port());
        BenchArm arm = new BenchArm(name, server, o.settle());
        try {
            // settled as the figures at rest are: the start-up's warm-up leaves heap the collector gives back later
            arm.baseline = ChildResources.atRest(server, arm.admin, o.settle());
            BenchMain.log("[%s] at rest after start-up: heap %s MB after a full GC, RSS %s MB", name, mb(arm.baseline.heapBytes()),
                    mb(arm.baseline.rssBytes() == null ? null : arm.baseline.rssBytes().doubleValue()));
            return arm;
        } catch (RuntimeException e) {
            arm.close();
            throw e;
        }
    }

    /**
     * Forces a full collection in the child and writes the arm's {@code memory}: heap and RSS now, at
     * rest after loading {@code rows} rows, against the same right after start-up.
     */
    void recordAtRest(ObjectNode arm, long rows) {
        ChildResources.AtRest now = ChildResources.atRest(server, admin, settle);
        ChildResources.writeMemory(arm, baseline, now, rows);
        ObjectNode m = (ObjectNode) arm.get("memory");
        BenchMain.log("[%s] at rest with %d rows: heap %s MB (%s bytes/row), live objects %s MB (%s bytes/row), RSS %s MB (%s bytes/row)",
                name, rows, mb(now.heapBytes()), m.path("heap_bytes_per_row"), mb(now.liveBytes() == null ? null : now.liveBytes().doubleValue()),
                m.path("live_bytes_per_row"), mb(now.rssBytes() == null ? null : now.rssBytes().doubleValue()), m.path("rss_bytes_per_row"));
    }

    /** Starts a measured window; its {@link ChildResources.Window#finish} writes the arm's {@code gc}. */
    ChildResources.Window window() {
        return new ChildResources.Window(server, admin);
    }

    private static String mb(Double bytes) {
        return bytes == null ? "?" : BenchReport.fmt(bytes / (1024 * 1024), 1);
    }

    /**
     * Loads {@code bigRows} rows into {@code big} (0 skips the table), {@code pointRows} into
     * {@code points}, creates the churn views and the hydrated point index; returns the seconds taken.
     */
    double loadData(long bigRows, long pointRows) {
        long start = System.nanoTime();
        BenchWorkload.createPointsTable(admin);
        BenchWorkload.loadPoints(admin, pointRows);
        if (bigRows > 0) {
            BenchWorkload.createBigTable(admin);
            BenchWorkload.loadBig(admin, bigRows);
            BenchWorkload.createChurnViews(admin);
        }
        BenchWorkload.createPointIndex(admin);
        double seconds = (System.nanoTime() - start) / 1e9;
        BenchMain.log("[%s] loaded %d + %d rows and hydrated %s in %.1f s", name, bigRows, pointRows,
                BenchWorkload.POINT_INDEX, seconds);
        return seconds;
    }

    /** Records the machine's load average into the arm's JSON under {@code field}. */
    static void loadAverage(ObjectNode arm, String field) {
        arm.put(field, LatencySummary.round(ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage()));
    }

    @Override
    public void close() {
        try {
            load.close();
            closed.close();
            admin.close();
        } finally {
            server.close();
            BenchMain.log("[%s] child server stopped", name);
        }
    }
}
