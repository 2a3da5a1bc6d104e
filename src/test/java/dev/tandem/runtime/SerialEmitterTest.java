package dev.tandem.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Sinks;

class SerialEmitterTest {

    /** Threads emitting at once: every item arrives exactly once, each thread's in its order, completion last. */
    @Test
    void concurrentEmittersDeliverEverythingOnceInPerThreadOrderThenComplete() throws Exception {
        int threads = 4;
        int perThread = 20_000;
        Sinks.Many<long[]> sink = Sinks.many().unicast().onBackpressureBuffer();
        SerialEmitter<long[]> emitter = new SerialEmitter<>(sink);
        List<long[]> received = new ArrayList<>();
        CountDownLatch done = new CountDownLatch(1);
        sink.asFlux().subscribe(received::add, e -> done.countDown(), done::countDown);

        CountDownLatch start = new CountDownLatch(1);
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            long id = t;
            Thread w = new Thread(() -> {
                try {
                    start.await();
                } catch (InterruptedException e) {
                    return;
                }
                for (long i = 0; i < perThread; i++) {
                    emitter.emit(new long[] {id, i});
                }
            });
            w.start();
            workers.add(w);
        }
        start.countDown();
        for (Thread w : workers) {
            w.join(Duration.ofSeconds(60).toMillis());
        }
        emitter.complete();
        assertTrue(done.await(60, TimeUnit.SECONDS), "the stream completed");

        assertEquals(threads * perThread, received.size());
        Map<Long, Long> next = new HashMap<>();
        for (long[] item : received) {
            long expected = next.getOrDefault(item[0], 0L);
            assertEquals(expected, item[1], "thread " + item[0] + "'s items in order");
            next.put(item[0], expected + 1);
        }
        assertEquals(0, emitter.failures());
    }

    /** Items emitted after the only subscriber went away are refused by the sink and counted. */
    @Test
    void itemsTheSinkRefusesAreCounted() {
        Sinks.Many<Integer> sink = Sinks.many().unicast().onBackpressureBuffer();
        SerialEmitter<Integer> emitter = new SerialEmitter<>(sink);
        sink.asFlux().take(1).subscribe();
        emitter.emit(1);
        emitter.emit(2);
        emitter.emit(3);
        assertEquals(2, emitter.failures());
    }

    /**
     * With a hand-off that always applies (maintenance's responses), every drain runs on the hand-off
     * thread, whichever thread emits; without one, the emitting thread delivers inline.
     */
    @Test
    void withAnAlwaysHandOffEveryDrainRunsThereAndWithoutOneInline() throws Exception {
        Sinks.Many<String> sink = Sinks.many().unicast().onBackpressureBuffer();
        ExecutorService handOff = Executors.newSingleThreadExecutor(r -> new Thread(r, "hand-off"));
        SerialEmitter<String> emitter = new SerialEmitter<>(sink, handOff, () -> true);
        Map<String, String> deliveredOn = new ConcurrentHashMap<>();
        sink.asFlux().subscribe(item -> deliveredOn.put(item, Thread.currentThread().getName()));
        try {
            Thread other = new Thread(() -> emitter.emit("from another thread"), "other");
            other.start();
            other.join(Duration.ofSeconds(30).toMillis());
            emitter.emit("from the test thread");
            handOff.submit(() -> { }).get(30, TimeUnit.SECONDS);
            assertEquals("hand-off", deliveredOn.get("from another thread"));
            assertEquals("hand-off", deliveredOn.get("from the test thread"));
        } finally {
            handOff.shutdownNow();
        }
        Sinks.Many<String> inlineSink = Sinks.many().unicast().onBackpressureBuffer();
        SerialEmitter<String> inline = new SerialEmitter<>(inlineSink);
        inlineSink.asFlux().subscribe(item -> deliveredOn.put(item, Thread.currentThread().getName()));
        inline.emit("inline");
        assertEquals(Thread.currentThread().getName(), deliveredOn.get("inline"));
    }

    /**
     * With the interactive runtime's rule, a thread whose priority was lowered hands its drain to the
     * hand-off, so answers never wait behind a thread the OS may deschedule; a normal thread delivers inline.
     */
    @Test
    void aLoweredThreadHandsItsDrainOffAndANormalThreadDeliversInline() throws Exception {
        assumeTrue(ThreadNice.current().isPresent(), "per-thread nice values exist only on Linux");
        Sinks.Many<String> sink = Sinks.many().unicast().onBackpressureBuffer();
        ExecutorService handOff = Executors.newSingleThreadExecutor(r -> new Thread(r, "hand-off"));
        SerialEmitter<String> emitter = new SerialEmitter<>(sink, handOff, ThreadNice::lowered);
        Map<String, String> deliveredOn = new ConcurrentHashMap<>();
        sink.asFlux().subscribe(item -> deliveredOn.put(item, Thread.currentThread().getName()));
        try {
            Thread lowered = new Thread(() -> {
                ThreadNice.ensure(ThreadNice.current().orElseThrow() + 3);
                emitter.emit("from a lowered thread");
            }, "lowered");
            lowered.start();
            lowered.join(Duration.ofSeconds(30).toMillis());
            handOff.submit(() -> { }).get(30, TimeUnit.SECONDS);
            emitter.emit("from a normal thread");
            assertEquals("hand-off", deliveredOn.get("from a lowered thread"));
            assertEquals(Thread.currentThread().getName(), deliveredOn.get("from a normal thread"));
        } finally {
            handOff.shutdownNow();
        }
    }
}
