package dev.tandem.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import reactor.core.publisher.Mono;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@code replicas}: Tandem on the Kafka storage backend, with 1, 2 and 3 replicas (child servers over a
 * fresh log topic on the broker given by {@code --kafka}; none is started here), against one server on
 * the local log. In each arm: closed-loop point reads spread round-robin over the replicas; closed-loop
 * 1-row writes spread the same way; write-to-visible (a 1-row write on one replica, then a read of it
 * at the write's timestamp on the next replica). After the 3-replica arm: {@code --rows} rows are
 * written through one replica and a fourth replica is started; its time to ready, less that of a replica
 * over an empty log, is the catch-up. All replicas share this machine's cores, so more replicas add no
 * CPU: the figures show the cost of replication here, not the scale-out of separate machines.
 */
final class ReplicasScenario {

    private ReplicasScenario() {
    }

    static BenchReport run(BenchOptions o) {
        if (o.kafka() == null) {
            throw new IllegalArgumentException("replicas needs --kafka HOST:PORT, a running Kafka broker (none is started here)");
        }
        long catchUpRows = o.rowsOr(1_000_000);
        Duration duration = o.durationOr(Duration.ofSeconds(20));
        String run = Long.toString(System.currentTimeMillis());
        BenchReport report = new BenchReport(o.scenario());
        ObjectNode settings = report.settings();
        settings.put("point_rows", o.pointRows());
        settings.put("rows", catchUpRows);
        settings.put("duration_s", duration.toMillis() / 1000.0);
        settings.put("kafka", o.kafka());
        settings.put("reads", "GET /v1/indexes/" + BenchWorkload.POINT_INDEX + "/rows?key=K, round-robin over the replicas");
        settings.put("writes", "POST /v1/tables/points/rows with one new row, round-robin over the replicas");
        settings.put("write_to_visible", "a 1-row write on replica i, then GET of its key with as_of = its timestamp on replica i+1");

        try (Replicas local = Replicas.start("local", 1, null, o)) {
            measure(report, "local", local, o, duration);
        }
        double emptyStart = -1;
        for (int n = 1; n <= 3; n++) {
            String arm = "kafka_" + n;
            try (Replicas r = Replicas.start(arm, n, "tandem-bench-" + run + "-" + n, o)) {
                if (n == 1) {
                    emptyStart = r.firstStartSeconds;
                }
                measure(report, arm, r, o, duration);
                if (n == 3) {
                    catchUp(report, r, catchUpRows, emptyStart, o);
                }
            }
        }
        report.ratio("kafka_1_over_local_write_rate", IsolationScenario.value(report.arm("kafka_1"), "write_rate"),
                IsolationScenario.value(report.arm("local"), "write_rate"));
        report.ratio("kafka_3_over_kafka_1_read_rate", IsolationScenario.value(report.arm("kafka_3"), "read_rate"),
                IsolationScenario.value(report.arm("kafka_1"), "read_rate"));
        return report;
    }

    private static void measure(BenchReport report, String arm, Replicas r, BenchOptions o, Duration duration) {
        ObjectNode json = report.arm(arm);
        json.put("replicas", r.servers.size());
        AtomicInteger next = new AtomicInteger();
        AtomicLong ids = new AtomicLong(o.pointRows() + 1_000_000_000L * (1 + ThreadLocalRandom.current().nextInt(1000)));
        Supplier<Mono<Integer>> read = () -> r.closed(next.getAndIncrement()).status("/v1/indexes/" + BenchWorkload.POINT_INDEX
                + "/rows?isolation=serializable&key=" + ThreadLocalRandom.current().nextLong(o.pointRows()));
        Supplier<Mono<Integer>> write = () -> r.closed(next.getAndIncrement())
                .postStatus("/v1/tables/points/rows", "{\"insert\":[[" + ids.getAndIncrement() + ",1]]}");
        Supplier<Mono<Integer>> writeToVisible = () -> {
            int i = next.getAndIncrement();
            long id = ids.getAndIncrement();
            return r.closed(i).postBody("/v1/tables/points/rows", "{\"insert\":[[" + id + ",1]]}")
                    .map(body -> BenchHttp.JSON.readTree(body).path("timestamp").asLong())
                    .flatMap(t -> r.closed(i + 1).status("/v1/indexes/" + BenchWorkload.POINT_INDEX + "/rows?key=" + id + "&as_of=" + t));
        };
        LoadGenerator.closedLoop(read, o.connections(), o.probe());
        LatencySummary reads = LoadGenerator.closedLoop(read, o.connections(), duration);
        LatencySummary writes = LoadGenerator.closedLoop(write, o.connections(), duration);
        LatencySummary visible = LoadGenerator.closedLoop(writeToVisible, Math.max(1, o.connections() / 4), duration);
        reads.writeTo(json.putObject("reads"));
        writes.writeTo(json.putObject("writes"));
        visible.writeTo(json.putObject("write_to_visible"));
        json.put("read_rate", LatencySummary.round(reads.rate()));
        json.put("write_rate", LatencySummary.round(writes.rate()));
        report.row(arm + " reads", reads);
        report.row(arm + " 1-row writes", writes);
        report.row(arm + " write-to-visible", visible);
        BenchMain.log("[%s] reads %.0f/s, writes %.0f/s, write-to-visible p50 %s ms", arm, reads.rate(), writes.rate(),
                BenchReport.ms(visible.p50Ms()));
    }

    private static void catchUp(BenchReport report, Replicas r, long rows, double emptyStart, BenchOptions o) {
        ObjectNode json = report.arm("catch_up");
        BenchWorkload.createBigTable(r.admin.getFirst());
        long start = System.nanoTime();
        BenchWorkload.loadBig(r.admin.getFirst(), rows);
        double load = (System.nanoTime() - start) / 1e9;
        double ready = r.add(o);
        double catchUp = ready - emptyStart;
        json.put("rows", rows);
        json.put("load_seconds", LatencySummary.round(load));
        json.put("ready_seconds", LatencySummary.round(ready));
        json.put("empty_log_ready_seconds", LatencySummary.round(emptyStart));
        json.put("catch_up_seconds", LatencySummary.round(catchUp));
        json.put("catch_up_seconds_per_million_rows", LatencySummary.round(catchUp * 1e6 / rows));
        report.extra(String.format("catch-up: %d rows written through one replica in %.1f s; a new replica was ready in %.1f s"
                + " (%.1f s over an empty log): %.1f s per million rows", rows, load, ready, emptyStart, catchUp * 1e6 / rows));
        BenchMain.log("[catch-up] %.1f s for %d rows (%.1f s per million)", catchUp, rows, catchUp * 1e6 / rows);
    }

    /** N child servers over one log topic (or one on the local log when the topic is null). */
    private static final class Replicas implements AutoCloseable {
        final String name;
        final String topic;
        final List<ChildServer> servers = new ArrayList<>();
        final List<BenchHttp> admin = new ArrayList<>();
        final List<BenchHttp> closed = new ArrayList<>();
        double firstStartSeconds;

        private Replicas(String name, String topic) {
            this.name = name;
            this.topic = topic;
        }

        /** Starts the first replica, loads the point table and its index through it, then starts the others. */
        static Replicas start(String name, int n, String topic, BenchOptions o) {
            Replicas r = new Replicas(name, topic);
            try {
                r.firstStartSeconds = r.add(o);
                BenchWorkload.createPointsTable(r.admin.getFirst());
                BenchWorkload.loadPoints(r.admin.getFirst(), o.pointRows());
                BenchWorkload.createPointIndex(r.admin.getFirst());
                for (int i = 1; i < n; i++) {
                    r.add(o);
                }
                return r;
            } catch (RuntimeException e) {
                r.close();
                throw e;
            }
        }

        /** Starts one more replica and returns the seconds until it was ready. */
        double add(BenchOptions o) {
            List<String> args = new ArrayList<>(o.serverArgs());
            if (topic != null) {
                args.add("tandem.storage.backend=kafka");
                args.add("tandem.storage.kafka.bootstrap-servers=" + o.kafka());
                args.add("tandem.storage.kafka.topic=" + topic);
            }
            long start = System.nanoTime();
            ChildServer s = ChildServer.start(true, o.heapMbFor(o.rowsOr(1_000_000)), o.jvmArgs(), args, Duration.ofMinutes(10));
            double seconds = (System.nanoTime() - start) / 1e9;
            servers.add(s);
            admin.add(new BenchHttp(s.port(), name + "-admin-" + servers.size(), 4));
            closed.add(new BenchHttp(s.port(), name + "-closed-" + servers.size(), BenchArm.LOAD_CONNECTIONS, BenchArm.CLOSED_LOOP_TIMEOUT));
            BenchMain.log("[%s] replica %d ready on 127.0.0.1:%d in %.1f s", name, servers.size(), s.port(), seconds);
            return seconds;
        }

        BenchHttp closed(int i) {
            return closed.get(Math.floorMod(i, closed.size()));
        }

        @Override
        public void close() {
            closed.forEach(BenchHttp::close);
            admin.forEach(BenchHttp::close);
            servers.forEach(ChildServer::close);
        }
    }
}
