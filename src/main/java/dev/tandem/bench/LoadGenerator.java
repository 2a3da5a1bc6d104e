package dev.tandem.bench;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/** Open-loop and closed-loop request streams, recorded into a {@link LatencyRecorder}. */
final class LoadGenerator {

    private LoadGenerator() {
    }

    /**
     * Open loop: request {@code i} is due at {@code start + i / rate} whatever happened to the earlier
     * ones, and its latency runs from that intended time (no coordinated omission: a stalled server or a
     * late sender shows as latency). Requests still unanswered {@code drain} after the last one was due
     * are recorded at their age then and counted as incomplete.
     *
     * @param request issues one request and yields its HTTP status
     */
    static LatencySummary openLoop(Supplier<Mono<Integer>> request, double rate, Duration duration, Duration drain) {
        long period = Math.max(1, Math.round(1e9 / rate));
        long total = Math.max(1, (long) Math.floor(duration.toNanos() / (double) period));
        if (total > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("too many requests for one open-loop run: " + total);
        }
        int n = (int) total;
        LatencyRecorder recorder = new LatencyRecorder();
        AtomicIntegerArray done = new AtomicIntegerArray(n);
        CountDownLatch outstanding = new CountDownLatch(n);
        long start = System.nanoTime() + 1_000_000;
        for (int i = 0; i < n; i++) {
            long intended = start + i * period;
            long wait = intended - System.nanoTime();
            if (wait > 0) {
                LockSupport.parkNanos(wait);
                while (System.nanoTime() < intended) {
                    Thread.onSpinWait();
                }
            }
            int index = i;
            request.get().subscribe(status -> {
                if (done.compareAndSet(index, 0, 1)) {
                    if (status / 100 == 2) {
                        recorder.record((intended - start) / 1e9, System.nanoTime() - intended);
                    } else {
                        recorder.error();
                    }
                    outstanding.countDown();
                }
            }, error -> {
                if (done.compareAndSet(index, 0, 1)) {
                    recorder.error(error);
                    outstanding.countDown();
                }
            });
        }
        try {
            outstanding.await(drain.toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        long cutoff = System.nanoTime();
        for (int i = 0; i < n; i++) {
            if (done.compareAndSet(i, 0, 1)) {
                long intended = start + i * period;
                recorder.recordIncomplete((intended - start) / 1e9, cutoff - intended);
            }
        }
        return recorder.summary(n * period / 1e9);
    }

    /**
     * Closed loop: {@code concurrency} requests in flight at all times for {@code duration}; each latency
     * runs from its own send. The rate is the maximum the server sustains at that concurrency.
     */
    static LatencySummary closedLoop(Supplier<Mono<Integer>> request, int concurrency, Duration duration) {
        LatencyRecorder recorder = new LatencyRecorder();
        Background loop = background(request, concurrency, recorder);
        try {
            Thread.sleep(duration);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return recorder.summary(loop.stop());
    }

    /** Runs a closed loop in the background until {@link Background#stop()}, recording into {@code recorder}. */
    static Background background(Supplier<Mono<Integer>> request, int concurrency, LatencyRecorder recorder) {
        return new Background(request, concurrency, recorder);
    }

    /** A closed loop running in the background, recording as it goes. */
    static final class Background {
        private final LatencyRecorder recorder;
        private final long start = System.nanoTime();
        private volatile boolean stopped;
        private final CountDownLatch finished = new CountDownLatch(1);

        private Background(Supplier<Mono<Integer>> request, int concurrency, LatencyRecorder recorder) {
            this.recorder = recorder;
            Flux.range(0, concurrency)
                    .flatMap(w -> Mono.defer(() -> {
                                long sent = System.nanoTime();
                                return request.get()
                                        .doOnNext(status -> {
                                            if (status / 100 == 2) {
                                                recorder.record((sent - start) / 1e9, System.nanoTime() - sent);
                                            } else {
                                                recorder.error();
                                            }
                                        })
                                        .onErrorResume(e -> {
                                            recorder.error(e);
                                            return Mono.empty();
                                        });
                            })
                            .repeat(() -> !stopped)
                            .then(), concurrency)
                    .doFinally(s -> finished.countDown())
                    .subscribe();
        }

        /** Stops sending, waits for the requests in flight and returns the seconds it ran until told to stop. */
        double stop() {
            stopped = true;
            double seconds = (System.nanoTime() - start) / 1e9;
            try {
                finished.await(5, TimeUnit.MINUTES);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return seconds;
        }
    }
}
