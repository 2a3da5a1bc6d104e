package dev.tandem.multiplex;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tandem.expr.Mfp;
import dev.tandem.protocol.ComputeCommand;
import dev.tandem.protocol.ComputeResponse;
import dev.tandem.protocol.Finishing;
import dev.tandem.row.Row;
import dev.tandem.time.Frontier;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Thousands of concurrent peeks with random cancels, against indexes that are created (published)
 * while peeks wait, sealed as time passes, and dropped under waiting peeks: every peek gets exactly
 * one response, and no waiting peek is forgotten (no lost wake-up). Four threads issue peeks, but
 * {@link Multiplexer#send} is called by one thread at a time, as its contract requires (the controller
 * serializes its sends the same way): the threads, and the thread creating indexes, share one lock.
 */
class PeekStressTest {

    static final int PEEKS = 3000;

    @ParameterizedTest(name = "two runtimes: {0}")
    @ValueSource(booleans = {false, true})
    void everyPeekIsAnsweredExactlyOnce(boolean twoRuntimes) {
        Random random = new Random(42);
        try (ComputeTesting c = new ComputeTesting(twoRuntimes)) {
            c.storage.createTable("u1", ComputeTesting.KV);
            long t0 = c.write("u1", Row.of(1L, 1L), Row.of(2L, 2L));
            int indexes = 8;
            List<UUID> sent = new ArrayList<>();
            Map<UUID, String> targets = new HashMap<>();
            List<Thread> threads = new ArrayList<>();
            Object sendLock = new Object();
            java.util.function.Consumer<ComputeCommand> send = command -> {
                synchronized (sendLock) {
                    c.mux.send(command);
                }
            };
            List<Throwable> threadFailures = new java.util.concurrent.CopyOnWriteArrayList<>();
            for (int th = 0; th < 4; th++) {
                long seed = random.nextLong();
                Thread thread = new Thread(() -> {
                    Random r = new Random(seed);
                    for (int i = 0; i < PEEKS / 4; i++) {
                        UUID uuid = UUID.randomUUID();
                        String target = "u" + (10 + r.nextInt(indexes));
                        // Most peeks are readable soon; some wait for seals up to ~1 s ahead.
                        long t = t0 + (r.nextInt(4) == 0 ? r.nextInt(1000) : 0);
                        synchronized (sent) {
                            sent.add(uuid);
                            targets.put(uuid, target);
                        }
                        send.accept(new ComputeCommand.Peek(uuid, target, t, r.nextBoolean() ? List.of(Row.of(1L)) : null, Mfp.identity(),
                                Finishing.NONE, null));
                        if (r.nextInt(5) == 0) {
                            send.accept(new ComputeCommand.CancelPeek(uuid));
                        }
                    }
                });
                thread.setUncaughtExceptionHandler((t, e) -> threadFailures.add(e));
                threads.add(thread);
            }
            // Declare all index ids first (so peeks of not-yet-published indexes wait instead of being unknown),
            // then publish them while peeks arrive.
            for (int i = 0; i < indexes; i++) {
                c.mux.declareOwner("u" + (10 + i), dev.tandem.runtime.Role.MAINTENANCE);
            }
            threads.forEach(Thread::start);
            for (int i = 0; i < indexes; i++) {
                String id = "u" + (10 + i);
                send.accept(new ComputeCommand.CreateDataflow(ComputeTesting.index("u1", id, t0)));
                send.accept(new ComputeCommand.Schedule(id));
                if (i == indexes - 1) {
                    // Drop one index while peeks wait on it.
                    send.accept(new ComputeCommand.AllowCompaction(id, Frontier.EMPTY));
                }
            }
            for (Thread thread : threads) {
                try {
                    assertThat(thread.join(Duration.ofSeconds(60))).as("peek thread finished").isTrue();
                } catch (InterruptedException e) {
                    throw new AssertionError(e);
                }
            }
            assertThat(threadFailures).isEmpty();
            c.write("u1", Row.of(3L, 3L));
            await().atMost(Duration.ofSeconds(60)).until(() -> c.count(r -> r instanceof ComputeResponse.PeekResponse) >= PEEKS);
            Map<UUID, Integer> answers = new HashMap<>();
            Map<String, Integer> kinds = new HashMap<>();
            for (ComputeResponse r : c.responses) {
                if (r instanceof ComputeResponse.PeekResponse p) {
                    answers.merge(p.uuid(), 1, Integer::sum);
                    kinds.merge(p.result().getClass().getSimpleName(), 1, Integer::sum);
                    if (p.result() instanceof ComputeResponse.Rows rows && !targets.get(p.uuid()).equals("u17")) {
                        assertThat(rows.rows()).isNotEmpty();
                    }
                    if (p.result() instanceof ComputeResponse.Error e) {
                        assertThat(targets.get(p.uuid())).as(e.message()).isEqualTo("u" + (10 + indexes - 1));
                    }
                }
            }
            assertThat(answers).hasSize(PEEKS);
            assertThat(answers.values()).allMatch(n -> n == 1);
            assertThat(kinds).containsKeys("Rows", "Canceled");
            assertThat(c.mux.reader().pendingPeeks()).isZero();
            assertThat(c.fatal).isEmpty();
        }
    }
}
