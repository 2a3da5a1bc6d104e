package dev.tandem.bench;

import java.time.Duration;
import java.util.Map;
import tools.jackson.databind.node.ObjectNode;

/**
 * What a child server's JVM spends and holds, written into its arm's JSON: {@code gc} over a measured
 * window (pauses and stalls from its {@link GcLog}, allocation and CPU from its
 * {@code /actuator/prometheus}: allocated bytes are Micrometer's count of young-generation growth at
 * each collection plus the young pool's growth since, so they miss objects allocated straight into
 * the old generation, such as G1's humongous arrays) and {@code memory} at rest (heap after a full collection and RSS,
 * against the same taken right after start-up, per row loaded), and the CPU each thread group of the
 * child and of this process spent in the window ({@link ThreadCpu}).
 */
final class ChildResources {

    /** How long a forced full collection may take. */
    static final Duration FULL_GC_TIMEOUT = Duration.ofMinutes(2);

    private ChildResources() {
    }

    /**
     * The child's cumulative counters and heap, from Micrometer's Prometheus text.
     *
     * @param allocatedBytes {@code jvm_gc_memory_allocated_bytes_total}: young-generation growth, counted at each collection
     * @param youngBytes {@code jvm_memory_used_bytes} of the young pool (eden, or ZGC's young generation): what was allocated
     *     since the last collection and is not yet in {@code allocatedBytes}
     * @param cpuSeconds {@code process_cpu_time_ns_total}, in seconds
     * @param heapBytes the sum of {@code jvm_memory_used_bytes{area="heap"}} over every pool but eden, which right after a full
     *     collection holds only what was allocated since
     * @param reserveHeldPeeks {@code tandem_maintenance_reserve_held_peeks_total}: peeks the maintenance reserve made wait,
     *     null when the reserve is off
     */
    record Metrics(Double allocatedBytes, Double youngBytes, Double cpuSeconds, Double heapBytes, Double reserveHeldPeeks) {

        static Metrics scrape(BenchHttp http) {
            return parse(http.getText("/actuator/prometheus"));
        }

        static Metrics parse(String text) {
            Double allocated = null;
            Double cpuNs = null;
            Double heap = null;
            Double young = null;
            Double held = null;
            for (String line : text.split("\n")) {
                if (line.startsWith("#") || line.isBlank()) {
                    continue;
                }
                int space = line.lastIndexOf(' ');
                double value;
                try {
                    value = Double.parseDouble(line.substring(space + 1));
                } catch (NumberFormatException e) {
                    continue;
                }
                if (line.startsWith("jvm_gc_memory_allocated_bytes_total")) {
                    allocated = value;
                } else if (line.startsWith("tandem_maintenance_reserve_held_peeks_total")) {
                    held = value;
                } else if (line.startsWith("process_cpu_time_ns_total")) {
                    cpuNs = value;
                } else if (line.startsWith("jvm_memory_used_bytes{") && line.contains("area=\"heap\"")) {
                    if (line.contains("Eden") || line.contains("Young")) {
                        young = (young == null ? 0 : young) + value;
                    }
                    if (!line.contains("Eden")) {
                        heap = (heap == null ? 0 : heap) + value;
                    }
                }
            }
            return new Metrics(allocated, young, cpuNs == null ? null : cpuNs / 1e9, heap, held);
        }
    }

    /** A measured window under way: where the GC log and the counters stood at its start. */
    static final class Window {
        private final ChildServer server;
        private final BenchHttp http;
        private final GcLog log;
        private final long offset;
        private final Metrics start;
        private final long startNanos;
        private final ThreadCpu serverThreads;
        private final ThreadCpu clientThreads;

        Window(ChildServer server, BenchHttp http) {
            this.server = server;
            this.http = http;
            this.log = server.gcLog();
            this.start = Metrics.scrape(http);
            this.offset = log.offset();
            this.startNanos = System.nanoTime();
            this.serverThreads = ThreadCpu.start(server.pid());
            this.clientThreads = ThreadCpu.start(ProcessHandle.current().pid());
        }

        /**
         * Ends the window and writes into {@code arm} its {@code gc} object and where the CPU went:
         * {@code cpu_by_thread} in the child, {@code client_cpu_by_thread} in this process (the load
         * generator shares the machine), seconds per thread group.
         */
        void finish(ObjectNode arm) {
            ObjectNode serverCpu = arm.putObject("cpu_by_thread");
            ObjectNode clientCpu = arm.putObject("client_cpu_by_thread");
            serverThreads.finish(server.pid(), ThreadCpu.names(server.threadDump(FULL_GC_TIMEOUT)), serverCpu);
            clientThreads.finish(ProcessHandle.current().pid(), Map.of(), clientCpu);
            BenchMain.log("[pid %d] CPU seconds by thread: %s; client: %s", server.pid(), ThreadCpu.top(serverCpu, 6), ThreadCpu.top(clientCpu, 4));
            double seconds = (System.nanoTime() - startNanos) / 1e9;
            GcLog.Pauses pauses = log.since(offset);
            Metrics end = Metrics.scrape(http);
            ObjectNode gc = arm.putObject("gc");
            gc.put("collector", log.collector());
            gc.put("window_s", LatencySummary.round(seconds));
            pauses.writeTo(gc);
            Double counted = delta(start.allocatedBytes(), end.allocatedBytes());
            Double youngGrowth = delta(start.youngBytes(), end.youngBytes());
            Double allocated = counted == null || youngGrowth == null ? counted : Math.max(0, counted + youngGrowth);
            bytes(gc, "allocated_bytes", allocated);
            bytes(gc, "allocation_rate_bytes_per_s", allocated == null ? null : allocated / seconds);
            LatencySummary.put(gc, "cpu_seconds", delta(start.cpuSeconds(), end.cpuSeconds()));
            // Peeks the maintenance reserve held back in the window (null: the reserve is off, or a SOLO arm).
            LatencySummary.put(arm, "reserve_held_peeks", delta(start.reserveHeldPeeks(), end.reserveHeldPeeks()));
            BenchMain.log("[pid %d] GC over %.1f s: %d pauses, total %.1f ms, max %.1f ms; %d allocation stalls; %s MB/s allocated",
                    server.pid(), seconds, pauses.all().count, pauses.all().totalMs, pauses.all().maxMs, pauses.stalls().count,
                    allocated == null ? "?" : BenchReport.fmt(allocated / seconds / 1e6, 1));
        }

        private static Double delta(Double a, Double b) {
            return a == null || b == null ? null : b - a;
        }
    }

    /**
     * The heap after a full collection, the live objects' bytes and the RSS (nulls for what could not be
     * read), and the seconds waited for them to settle.
     */
    record AtRest(boolean fullGc, Double heapBytes, Long liveBytes, Long rssBytes, double settleSeconds) {
    }

    /** Longest wait for memory to settle at rest. */
    static final Duration SETTLE_MAX = Duration.ofSeconds(180);
    /**
     * At rest once neither live bytes nor the RSS has reached a new low (by more than 1 %) for this long:
     * longer than the collector's uncommit delay ({@code -XX:ZUncommitDelay=30} in {@code jvm.options}), after
     * which the RSS starts to fall.
     */
    static final Duration SETTLE_QUIET = Duration.ofSeconds(45);
    private static final Duration SETTLE_POLL = Duration.ofSeconds(5);
    /** Live bytes are read at every this many polls (every 30 s), the RSS at every poll. */
    private static final int LIVE_EVERY = 6;

    /**
     * Leaves the child idle for {@code settle} (the batch builders' scratch kept for a next build, at most a
     * sixty-fourth of the heap, is dropped after 5 s without one), then waits until memory is at rest: live
     * objects (background merges fold batches together once writes stop, and a merge holds its inputs and
     * output at once; a dropped dataflow that was hydrating lets go of its state when its running step
     * ends) and the RSS (the collector gives unused heap back after its uncommit delay, a little at a time)
     * reach no new low for {@link #SETTLE_QUIET}, {@link #SETTLE_MAX} at most. Then forces a full
     * collection and reads the heap, the live objects' bytes and the RSS. A zero {@code settle} measures at
     * once (right after start-up; the smoke tests).
     */
    static AtRest atRest(ChildServer server, BenchHttp http, Duration settle) {
        long start = System.nanoTime();
        sleep(settle);
        Long lowLive = server.liveHeapBytes(FULL_GC_TIMEOUT);
        Long lowRss = server.rssBytes();
        long lowAt = System.nanoTime();
        for (int poll = 1; !settle.isZero() && System.nanoTime() - start < SETTLE_MAX.toNanos()
                && System.nanoTime() - lowAt < SETTLE_QUIET.toNanos(); poll++) {
            sleep(SETTLE_POLL);
            // live bytes take a full collection, which itself uses free heap and so holds its uncommit back: seldom
            Long live = poll % LIVE_EVERY == 0 ? server.liveHeapBytes(FULL_GC_TIMEOUT) : null;
            Long rss = server.rssBytes();
            BenchMain.log("[pid %d] settling: live objects %s MB, RSS %s MB", server.pid(), mb(live), mb(rss));
            if (lower(live, lowLive) || lower(rss, lowRss)) {
                lowLive = min(live, lowLive);
                lowRss = min(rss, lowRss);
                lowAt = System.nanoTime();
            }
        }
        boolean collected = server.fullGc(FULL_GC_TIMEOUT);
        Double heap = collected ? Metrics.scrape(http).heapBytes() : null;
        return new AtRest(collected, heap, server.liveHeapBytes(FULL_GC_TIMEOUT), server.rssBytes(), (System.nanoTime() - start) / 1e9);
    }

    /** Whether {@code now} is a new low against {@code low}, by more than 1 %. */
    private static boolean lower(Long now, Long low) {
        return now != null && low != null && now < low - low / 100;
    }

    private static Long min(Long a, Long b) {
        return a == null ? b : b == null ? a : Math.min(a, b);
    }

    private static String mb(Long bytes) {
        return bytes == null ? "?" : BenchReport.fmt(bytes / 1048576.0, 1);
    }

    private static void sleep(Duration d) {
        try {
            Thread.sleep(d);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    /** Writes the {@code memory} object of an arm: at rest now against {@code baseline}, per row of {@code rows}. */
    static void writeMemory(ObjectNode arm, AtRest baseline, AtRest now, long rows) {
        ObjectNode m = arm.putObject("memory");
        m.put("rows", rows);
        m.put("full_gc", baseline.fullGc() && now.fullGc() ? "jcmd GC.run" : "unavailable");
        m.put("settle_seconds", LatencySummary.round(now.settleSeconds()));
        Double baselineRss = baseline.rssBytes() == null ? null : baseline.rssBytes().doubleValue();
        Double rss = now.rssBytes() == null ? null : now.rssBytes().doubleValue();
        bytes(m, "baseline_heap_bytes", baseline.heapBytes());
        bytes(m, "heap_bytes", now.heapBytes());
        perRow(m, "heap_bytes_per_row", baseline.heapBytes(), now.heapBytes(), rows);
        Double baselineLive = baseline.liveBytes() == null ? null : baseline.liveBytes().doubleValue();
        Double live = now.liveBytes() == null ? null : now.liveBytes().doubleValue();
        bytes(m, "baseline_live_bytes", baselineLive);
        bytes(m, "live_bytes", live);
        perRow(m, "live_bytes_per_row", baselineLive, live, rows);
        bytes(m, "baseline_rss_bytes", baselineRss);
        bytes(m, "rss_bytes", rss);
        perRow(m, "rss_bytes_per_row", baselineRss, rss, rows);
    }

    private static void bytes(ObjectNode node, String field, Double v) {
        if (v == null) {
            node.putNull(field);
        } else {
            node.put(field, Math.round(v));
        }
    }

    private static void perRow(ObjectNode node, String field, Double baseline, Double now, long rows) {
        Double v = baseline == null || now == null || rows <= 0 ? null : Math.round((now - baseline) / rows * 10) / 10.0;
        LatencySummary.put(node, field, v);
    }
}
