package dev.tandem.bench;

import io.netty.handler.codec.http.HttpHeaderNames;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.netty.ByteBufFlux;
import reactor.netty.http.client.HttpClient;
import reactor.netty.resources.ConnectionProvider;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@code subscribe-fanout}: {@code --subscribers} WebSocket clients (default 1,000, one connection each)
 * each watch three of 100 hot keys of the point index with {@code subscribe_rows}, while writes to
 * those keys arrive at a fixed rate ({@code --rate}, default 1,000/s) and hydration churn keeps
 * maintenance busy; it measures, for every write and every subscriber watching its key, the time from
 * the write's acknowledgement to the change's delivery (zero when the change arrived first), in a
 * two-runtime arm and a {@code SOLO} arm. Each arm first warms up with the same writes and streams
 * and no churn ({@link #warmUp}); those writes are not measured.
 */
final class SubscribeFanoutScenario {

    static final int HOT_KEYS = 100;
    static final int KEYS_PER_SUBSCRIBER = 3;

    private SubscribeFanoutScenario() {
    }

    static BenchReport run(BenchOptions o) {
        long rows = o.rowsOr(1_000_000);
        int subscribers = o.subscribersOr(1_000);
        double rate = o.rate() != null ? o.rate() : 1_000;
        Duration duration = o.durationOr(Duration.ofSeconds(60));
        BenchReport report = new BenchReport(o.scenario());
        ObjectNode settings = report.settings();
        settings.put("rows", rows);
        settings.put("point_rows", o.pointRows());
        settings.put("subscribers", subscribers);
        settings.put("rate", rate);
        settings.put("duration_s", duration.toMillis() / 1000.0);
        settings.put("subscriptions", "each subscriber: one WebSocket, subscribe_rows on " + BenchWorkload.POINT_INDEX + " with "
                + KEYS_PER_SUBSCRIBER + " of " + HOT_KEYS + " hot keys");
        settings.put("writes", "POST /v1/tables/points/rows inserting one row of a hot key per write, open loop");
        settings.put("latency", "write acknowledged -> change delivered, per (write, watching subscriber); 0 when delivered first");
        settings.put("warm_up", "per arm, before the churn starts, the same writes and streams for a sixth of --duration (5-20 s),"
                + " then with the churn for --churn-warmup; neither measured");
        settings.put("churn", o.churnLoops() + " loops creating, hydrating and dropping indexes on big_count and big_self_join");
        for (String arm : o.arms()) {
            ObjectNode json = report.arm(arm);
            try (BenchArm a = BenchArm.start(arm, o, rows)) {
                json.put("load_seconds", LatencySummary.round(a.loadData(rows, Math.max(o.pointRows(), HOT_KEYS))));
                a.recordAtRest(json, rows + o.pointRows());
                runArm(a, json, report, arm, subscribers, rate, duration, o);
            }
        }
        ObjectNode two = report.measured(BenchReport.TWO_RUNTIME);
        ObjectNode solo = report.measured(BenchReport.SOLO);
        report.ratio("solo_over_two_runtime_p50", IsolationScenario.value(solo, "p50_ms"), IsolationScenario.value(two, "p50_ms"));
        report.ratio("solo_over_two_runtime_p99", IsolationScenario.value(solo, "p99_ms"), IsolationScenario.value(two, "p99_ms"));
        return report;
    }

    private static void runArm(BenchArm a, ObjectNode json, BenchReport report, String arm, int subscribers, double rate, Duration duration,
            BenchOptions o) {
        // The measured writes' acknowledgements and deliveries, from when the window opens.
        AtomicReference<DeliveryLog> log = new AtomicReference<>();
        // Subscriptions that ended or whose connection closed or failed, each counted once or more: any is a defect to explain.
        AtomicLong ended = new AtomicLong();
        AtomicLong subscribed = new AtomicLong();
        ConnectionProvider sockets = ConnectionProvider.builder("tandem-bench-subscribers").maxConnections(subscribers + 16)
                .pendingAcquireMaxCount(-1).build();
        HttpClient ws = HttpClient.create(sockets).baseUrl("ws://127.0.0.1:" + a.server.port());
        List<Disposable> clients = new ArrayList<>();
        try {
            for (int s = 0; s < subscribers; s++) {
                StringBuilder keys = new StringBuilder();
                for (int j = 0; j < KEYS_PER_SUBSCRIBER; j++) {
                    keys.append(j == 0 ? "" : ",").append('[').append((s * KEYS_PER_SUBSCRIBER + j) % HOT_KEYS).append(']');
                }
                String subscribe = "{\"op\":\"subscribe_rows\",\"id\":" + s + ",\"from\":\"" + BenchWorkload.POINT_INDEX + "\",\"key\":[" + keys + "]}";
                clients.add(ws.websocket(reactor.netty.http.client.WebsocketClientSpec.builder().maxFramePayloadLength(16 << 20).build())
                        .uri("/v1/ws")
                        .handle((in, out) -> out.sendString(Mono.just(subscribe)).then()
                                .and(in.receive().asByteArray().doOnNext(frame -> received(frame, log.get(), ended, subscribed)).then()))
                        .subscribe(x -> { }, e -> ended.incrementAndGet(), ended::incrementAndGet));
            }
            long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
            while (subscribed.get() < subscribers && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            json.put("subscribed", subscribed.get());
            BenchMain.log("[%s] %d of %d subscribers are subscribed", arm, subscribed.get(), subscribers);
            HttpClient writes = HttpClient.create(ConnectionProvider.builder("tandem-bench-writes").maxConnections(64)
                    .pendingAcquireMaxCount(-1).build()).baseUrl("http://127.0.0.1:" + a.server.port())
                    .headers(h -> h.set(HttpHeaderNames.CONTENT_TYPE, "application/json"));
            AtomicLong next = new AtomicLong();
            Supplier<Mono<Integer>> write = () -> {
                long seq = next.getAndIncrement();
                String body = "{\"insert\":[[" + (seq % HOT_KEYS) + "," + (-seq - 1) + "]]}";
                return writes.post().uri("/v1/tables/points/rows").send(ByteBufFlux.fromString(Mono.just(body)))
                        .responseSingle((res, b) -> b.asByteArray().map(x -> res.status().code()).defaultIfEmpty(res.status().code()))
                        .doOnNext(code -> {
                            DeliveryLog measuring = log.get();
                            if (code / 100 == 2 && measuring != null) {
                                measuring.acked(seq, System.nanoTime());
                            }
                        });
            };
            // The same writes and streams, without churn, so the measured window does not start cold: without it the
            // JIT compiled for 20 of the child's CPU seconds in a 65 s window (cpu_by_thread).
            Duration warmUp = warmUp(duration);
            json.put("warm_up_s", warmUp.toMillis() / 1000.0);
            BenchMain.log("[%s] warming up: writes at %.0f/s for %s, no churn", arm, rate, warmUp);
            LoadGenerator.openLoop(write, rate, warmUp, Duration.ofSeconds(30).plus(warmUp));
            try (HydrationChurn churn = new HydrationChurn(a.server.port(), o.churnLoops())) {
                churn.awaitStarted();
                BenchMain.log("[%s] churn under way; writes at %.0f/s for %s more, not measured", arm, rate, o.churnWarmup());
                churn.warmUp(write, rate, o.churnWarmup(), json);
                BenchMain.log("[%s] churn under way; writes at %.0f/s for %s", arm, rate, duration);
                int watchers = subscribers * KEYS_PER_SUBSCRIBER / HOT_KEYS;
                // writes before this one warmed the server up and are not measured
                DeliveryLog measured = new DeliveryLog(next.get(), (int) Math.ceil(rate * duration.toMillis() / 1000.0) + 1024, watchers + 1);
                log.set(measured);
                long windowStart = System.nanoTime();
                ChildResources.Window window = a.window();
                LatencySummary acks = LoadGenerator.openLoop(write, rate, duration, Duration.ofSeconds(30).plus(duration));
                // Deliveries still in flight after the last acknowledgement get a few seconds to arrive.
                Thread.sleep(5000);
                window.finish(json);
                acks.writeTo(json.putObject("write_ack"));
                churn.writeTo(json);
                LatencyRecorder delivery = new LatencyRecorder();
                long expected = 0;
                for (int i = 0; i < measured.writes(); i++) {
                    long seq = measured.first() + i;
                    if (measured.ackAt(seq) != 0) {
                        expected += watchers + (seq % HOT_KEYS < (subscribers * KEYS_PER_SUBSCRIBER) % HOT_KEYS ? 1 : 0);
                    }
                }
                long delivered = 0;
                for (int i = 0; i < measured.deliveries(); i++) {
                    long ack = measured.ackAt(measured.deliveredSeq(i));
                    if (ack != 0) {
                        delivery.record((ack - windowStart) / 1e9, Math.max(0, measured.deliveredAt(i) - ack));
                        delivered++;
                    }
                }
                LatencySummary s = delivery.summary(duration.toMillis() / 1000.0);
                s.writeTo(json);
                json.put("deliveries_expected", expected);
                json.put("deliveries", delivered);
                json.put("subscriptions_ended", ended.get());
                json.put("unrecorded", measured.unrecorded());
                report.row(arm + " delivery", s);
                BenchMain.log("[%s] %d of %d deliveries: p50 %s ms, p99 %s ms; write acks p99 %s ms", arm, delivered, expected,
                        BenchReport.ms(s.p50Ms()), BenchReport.ms(s.p99Ms()), BenchReport.ms(acks.p99Ms()));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        } finally {
            clients.forEach(Disposable::dispose);
            sockets.dispose();
        }
    }

    /** A sixth of the measured duration, between 5 and 20 seconds. */
    static Duration warmUp(Duration duration) {
        long ms = Math.max(5_000, Math.min(20_000, duration.toMillis() / 6));
        return Duration.ofMillis(ms);
    }

    /**
     * Notes the delivery time of each bench write in a {@code changes} message. The client shares the
     * server's two cores, so it reads each frame with a streaming parser rather than building a tree: at
     * 30,000 frames a second, trees cost the client a third of the machine.
     */
    private static void received(byte[] frame, DeliveryLog log, AtomicLong ended, AtomicLong subscribed) {
        long now = System.nanoTime();
        String op = null;
        // (value, diff) of each update, in order; a row's value is its second column
        long[] updates = new long[8];
        int n = 0;
        try (JsonParser p = BenchHttp.JSON.createParser(frame)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                throw new IllegalStateException("not a JSON object: " + new String(frame, StandardCharsets.UTF_8));
            }
            while (p.nextToken() == JsonToken.PROPERTY_NAME) {
                String field = p.currentName();
                JsonToken value = p.nextToken();
                if (field.equals("op")) {
                    op = p.getString();
                } else if (field.equals("updates") && value == JsonToken.START_ARRAY) {
                    while (p.nextToken() == JsonToken.START_ARRAY) {
                        long v = rowValue(p);
                        p.nextToken();
                        long diff = p.getLongValue();
                        p.nextToken();
                        if (n + 2 > updates.length) {
                            updates = Arrays.copyOf(updates, updates.length * 2);
                        }
                        updates[n++] = v;
                        updates[n++] = diff;
                    }
                } else {
                    p.skipChildren();
                }
            }
        }
        if ("subscription_ended".equals(op) || "error".equals(op)) {
            ended.incrementAndGet();
        } else if ("rows_subscribed".equals(op)) {
            subscribed.incrementAndGet();
        } else if ("changes".equals(op) && log != null) {
            for (int i = 0; i < n; i += 2) {
                long v = updates[i];
                if (updates[i + 1] > 0 && v < 0) {
                    log.delivered(-v - 1, now);
                }
            }
        }
    }

    /** Reads an update's row (the parser on its first token) up to its end: its second column, or 0 when that is not an integer. */
    private static long rowValue(JsonParser p) {
        if (p.nextToken() != JsonToken.START_ARRAY) {
            p.skipChildren();
            return 0;
        }
        long v = 0;
        int column = 0;
        for (JsonToken t = p.nextToken(); t != JsonToken.END_ARRAY; t = p.nextToken(), column++) {
            if (column == 1 && t == JsonToken.VALUE_NUMBER_INT) {
                v = p.getLongValue();
            }
            p.skipChildren();
        }
        return v;
    }

    /**
     * The acknowledgement time of each measured write and the time of each delivery, in arrays allocated
     * before the window opens. The client shares the server's two cores and times 30,000 deliveries a
     * second: boxed into maps they made its own collector work while it timed them. Written by the
     * client's event loops, read once the window is over.
     */
    static final class DeliveryLog {
        private final long first;
        private final AtomicLongArray ackAt;
        private final AtomicLongArray seqs;
        private final AtomicLongArray times;
        private final AtomicInteger count = new AtomicInteger();
        private final AtomicLong unrecorded = new AtomicLong();

        /** Room for {@code writes} writes from sequence number {@code first} on, each delivered at most {@code perWrite} times. */
        DeliveryLog(long first, int writes, int perWrite) {
            this.first = first;
            ackAt = new AtomicLongArray(writes);
            seqs = new AtomicLongArray(writes * perWrite);
            times = new AtomicLongArray(writes * perWrite);
        }

        long first() {
            return first;
        }

        int writes() {
            return ackAt.length();
        }

        /** Write {@code seq} was acknowledged at {@code nanos} (ignored before the window). */
        void acked(long seq, long nanos) {
            long i = seq - first;
            if (i < 0) {
                return;
            }
            if (i < ackAt.length()) {
                ackAt.set((int) i, nanos);
            } else {
                unrecorded.incrementAndGet();
            }
        }

        /** The acknowledgement time of write {@code seq}; 0 when it was not acknowledged or is not measured. */
        long ackAt(long seq) {
            long i = seq - first;
            return i < 0 || i >= ackAt.length() ? 0 : ackAt.get((int) i);
        }

        /** The change of write {@code seq} reached a subscriber at {@code nanos} (ignored before the window). */
        void delivered(long seq, long nanos) {
            if (seq < first) {
                return;
            }
            int i = count.getAndIncrement();
            if (i < seqs.length()) {
                seqs.set(i, seq);
                times.set(i, nanos);
            } else {
                unrecorded.incrementAndGet();
            }
        }

        int deliveries() {
            return Math.min(count.get(), seqs.length());
        }

        long deliveredSeq(int i) {
            return seqs.get(i);
        }

        long deliveredAt(int i) {
            return times.get(i);
        }

        /** Acknowledgements and deliveries beyond the room made for them (the figures are then incomplete). */
        long unrecorded() {
            return unrecorded.get();
        }
    }
}
