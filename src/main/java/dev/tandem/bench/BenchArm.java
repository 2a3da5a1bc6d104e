package dev.tandem.bench;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import tools.jackson.databind.node.ObjectNode;

/**
 * One arm of a scenario: a child server in one mode (two runtimes or {@code SOLO}) with an admin client
 * (catalog calls, loading) and a load client (the measured requests), stopped together on close.
 */
final class BenchArm implements AutoCloseable {

    /** Connections of the load client; beyond them open-loop requests wait in its pool (still timed). */
    static final int LOAD_CONNECTIONS = 512;

    final String name;
    final ChildServer server;
    final BenchHttp admin;
    final BenchHttp load;

    private BenchArm(String name, ChildServer server) {
        this.name = name;
        this.server = server;
        this.admin = new BenchHttp(server.port(), name + "-admin", 4);
        this.load = new BenchHttp(server.port(), name + "-load", LOAD_CONNECTIONS);
    }

    /** Starts the child server of arm {@code name} ({@link BenchReport#TWO_RUNTIME} or {@link BenchReport#SOLO}). */
    static BenchArm start(String name, BenchOptions o, long rows) {
        boolean two = name.equals(BenchReport.TWO_RUNTIME);
        System.out.printf("[%s] starting a child server (%s, heap %d MB)%n", name, two ? "two runtimes" : "SOLO", o.heapMbFor(rows));
        ChildServer server = ChildServer.start(two, o.heapMbFor(rows), o.jvmArgs(), o.serverArgs(), Duration.ofMinutes(3));
        System.out.printf("[%s] child server pid %d ready on 127.0.0.1:%d%n", name, server.pid(), server.port());
        return new BenchArm(name, server);
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
        System.out.printf("[%s] loaded %d + %d rows and hydrated %s in %.1f s%n", name, bigRows, pointRows,
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
            admin.close();
        } finally {
            server.close();
            System.out.printf("[%s] child server stopped%n", name);
        }
    }
}
