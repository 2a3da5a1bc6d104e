package dev.tandem.config;

import dev.tandem.controller.Controller;
import dev.tandem.controller.ControllerSettings;
import dev.tandem.multiplex.Multiplexer;
import dev.tandem.pgwire.PgAuthenticator;
import dev.tandem.pgwire.PgWireClient;
import dev.tandem.pgwire.PgWireServer;
import dev.tandem.runtime.FatalErrorHandler;
import dev.tandem.runtime.RuntimeObserver;
import dev.tandem.sharing.ArrangementSharingRegistry;
import dev.tandem.sql.SqlEngine;
import dev.tandem.sql.SqlSession;
import dev.tandem.storage.StorageOptions;
import dev.tandem.storage.TableStorage;
import dev.tandem.storage.TableStorages;
import dev.tandem.stream.ChangeStreamLimits;
import dev.tandem.stream.ChangeStreams;
import java.io.IOException;
import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * Runs the wire protocol's point reads a few thousand times before the server takes its first client,
 * so the JIT has compiled the read path (decoder, session, plan-cache lookup, fast path, peek, answer)
 * by then and a server under load from its first second does not build a backlog of reads while it
 * compiles. The reads go to a scratch server of its own: an in-memory table and index, its own
 * controller, runtimes and wire-protocol listener on a free loopback port, all closed afterwards, so
 * the real catalog, data and metrics never see them — the compiled code is shared, the state is not.
 * Each protocol a client may use is run: simple (literal statements), extended (Parse, Bind, Describe,
 * Execute, Sync) and prepared (Bind, Execute, Sync). {@code tandem.pgwire.warm-up-reads} sets how many
 * reads at least (0: none); it goes on while the JIT compiler is still busy, at most {@link #BOUND}.
 */
final class ReadPathWarmup {

    private static final Logger LOG = LoggerFactory.getLogger(ReadPathWarmup.class);
    /** Concurrent connections of the warm-up, as a small pool of clients would read. */
    static final int CONNECTIONS = 4;
    /** Rows of the scratch table. */
    static final int ROWS = 1000;
    /** The longest the warm-up may take; past it the server starts anyway, partly warm. */
    static final Duration BOUND = Duration.ofSeconds(20);

    private ReadPathWarmup() {
    }

    /**
     * How the scratch server is built. The server's own start-up passes {@link #like the parts it runs
     * with}: the same kinds of storage, runtimes, observer, engine and listener, so that what the JIT
     * compiles against the scratch server is what the first clients run (compiled code is specialized to
     * the classes and branches it saw; a scratch server of other kinds has its compiled read path thrown
     * away, "made not entrant", by the first real reads, which then run interpreted while it compiles again).
     */
    interface Parts {
        /** A table storage in {@code dir}, which the warm-up deletes afterwards. */
        TableStorage storage(Path dir, Scheduler timer);

        Multiplexer multiplexer(TableStorage storage, ArrangementSharingRegistry registry, FatalErrorHandler fatal);

        Controller controller(TableStorage storage, Multiplexer multiplexer, ArrangementSharingRegistry registry, Scheduler timer);

        SqlEngine engine(Controller controller, ChangeStreams streams);

        /** A wire-protocol listener on a free loopback port that trusts its clients. */
        PgWireServer listen(SqlEngine engine);

        /** Scratch parts of the simplest kinds: in memory, no metrics, default settings (for tests). */
        Parts PLAIN = new Parts() {
            @Override
            public TableStorage storage(Path dir, Scheduler timer) {
                return TableStorages.inMemory(StorageOptions.defaults(timer));
            }

            @Override
            public Multiplexer multiplexer(TableStorage storage, ArrangementSharingRegistry registry, FatalErrorHandler fatal) {
                return Multiplexer.start(true, 1, 1, storage, registry, fatal, System::currentTimeMillis, RuntimeObserver.NONE);
            }

            @Override
            public Controller controller(TableStorage storage, Multiplexer multiplexer, ArrangementSharingRegistry registry, Scheduler timer) {
                return new Controller(storage, multiplexer, registry, ControllerSettings.DEFAULTS, System::currentTimeMillis, timer);
            }

            @Override
            public SqlEngine engine(Controller controller, ChangeStreams streams) {
                return new SqlEngine(controller, Schedulers.boundedElastic(), streams);
            }

            @Override
            public PgWireServer listen(SqlEngine engine) {
                return PgWireServer.start(engine, PgAuthenticator.TRUST, "127.0.0.1", 0);
            }
        };
    }

    /** Runs {@code reads} point reads or more (0: nothing) on a scratch server of {@code parts}; returns how many were answered with their row. A failure is logged, never thrown. */
    static long run(long reads, Parts parts) {
        return run(reads, BOUND, parts);
    }

    /** {@link #run(long, Parts)}, for at most {@code bound}. */
    static long run(long reads, Duration bound, Parts parts) {
        if (reads <= 0) {
            return 0;
        }
        long start = System.nanoTime();
        Scheduler timer = TandemConfiguration.newTimer("tandem-warmup-timer", true);
        Path dir;
        try {
            dir = Files.createTempDirectory("tandem-warmup-");
        } catch (IOException e) {
            LOG.warn("the read path's warm-up did not run: {}", e.toString());
            timer.dispose();
            return 0;
        }
        TableStorage storage = null;
        Multiplexer mux = null;
        Controller controller = null;
        ChangeStreams streams = null;
        PgWireServer server = null;
        AtomicReference<Throwable> fatal = new AtomicReference<>();
        long answered = 0;
        try {
            storage = parts.storage(dir, timer);
            ArrangementSharingRegistry registry = new ArrangementSharingRegistry();
            mux = parts.multiplexer(storage, registry, (w, e) -> fatal.compareAndSet(null, e));
            controller = parts.controller(storage, mux, registry, timer);
            streams = new ChangeStreams(registry, Schedulers.fromExecutor(mux.reader()::execute), new ChangeStreamLimits(1, 1, 1000, 0));
            SqlEngine engine = parts.engine(controller, streams);
            SqlSession session = new SqlSession(true);
            StringBuilder insert = new StringBuilder("INSERT INTO points VALUES ");
            for (int i = 0; i < ROWS; i++) {
                insert.append(i == 0 ? "" : ", ").append('(').append(i).append(", ").append(i * 7 % 1000).append(')');
            }
            for (String statement : List.of("CREATE TABLE points (id bigint NOT NULL, v bigint)", insert.toString(),
                    "CREATE INDEX points_by_id ON points (id)")) {
                engine.execute(statement, List.of(), session).block(bound);
            }
            session.close();
            int planned = plan(engine, start + bound.toNanos() / 4);
            server = parts.listen(engine);
            answered = read(server.port(), reads, start + bound.toNanos());
            LOG.info("warmed the read path: {} statements planned, {} point reads over the wire protocol in {} ms (tandem.pgwire.warm-up-reads)",
                    planned, answered, (System.nanoTime() - start) / 1_000_000);
        } catch (RuntimeException | InterruptedException e) {
            LOG.warn("the read path's warm-up stopped after {} reads: {}", answered, e.toString());
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
        } finally {
            for (AutoCloseable part : new AutoCloseable[] {server, streams, controller, mux, storage}) {
                closeQuietly(part);
            }
            timer.dispose();
            deleteTree(dir);
        }
        if (fatal.get() != null) {
            LOG.warn("the read path's warm-up saw an error on a runtime thread", fatal.get());
        }
        return answered;
    }

    /**
     * Plans {@link #PLANS} distinct statements of the shapes clients start with (point lookups, filters,
     * counts, ordered limits), until {@code deadline}; returns how many. A server's first statement is
     * planned at its first Parse: with Calcite's planner still interpreted that took 40 ms or more, and
     * every read scheduled meanwhile queued behind it. Each text differs (by an alias), so each is planned.
     */
    static int plan(SqlEngine engine, long deadline) {
        int n = 0;
        for (; n < PLANS && System.nanoTime() < deadline; n++) {
            String alias = "c" + n;
            engine.prepare(switch (n % 5) {
                case 0 -> "SELECT id, v AS " + alias + " FROM points WHERE id = $1";
                case 1 -> "SELECT v AS " + alias + ", id FROM points WHERE id = $1 AND v > $2";
                case 2 -> "SELECT count(*) AS " + alias + " FROM points WHERE v < $1";
                case 3 -> "SELECT id AS " + alias + " FROM points WHERE v = $1 ORDER BY id LIMIT 10";
                default -> "SELECT p.id AS " + alias + ", q.v FROM points p JOIN points q ON p.id = q.v WHERE p.id = $1";
            });
        }
        return n;
    }

    /** Distinct statements the warm-up plans before it reads. */
    static final int PLANS = 400;

    /**
     * Runs at least {@code reads} reads over {@link #CONNECTIONS} connections, each protocol in turn, and goes on
     * while the JIT compiler is still busy (it compiled for more than {@link #QUIET_MILLIS} ms over the last
     * second of reads), until {@code deadline}.
     */
    private static long read(int port, long reads, long deadline) throws InterruptedException {
        AtomicLong done = new AtomicLong();
        AtomicBoolean stop = new AtomicBoolean();
        List<Thread> threads = new ArrayList<>();
        for (int c = 0; c < CONNECTIONS; c++) {
            threads.add(Thread.ofPlatform().name("tandem-warmup-" + c).start(() -> {
                try (PgWireClient client = PgWireClient.connect("127.0.0.1", port, "warmup", 30_000)) {
                    client.prepare("lookup", "SELECT id, v FROM points WHERE id = $1");
                    ThreadLocalRandom random = ThreadLocalRandom.current();
                    for (long i = 0; !stop.get() && System.nanoTime() < deadline; i++) {
                        int key = random.nextInt(ROWS);
                        client.libpqStyle(i % 6 < 3);
                        int rows = switch ((int) (i % 3)) {
                            case 0 -> client.executePrepared("lookup", Integer.toString(key));
                            case 1 -> client.extendedQuery("SELECT id, v FROM points WHERE id = $1", Integer.toString(key));
                            default -> client.simpleQuery("SELECT id, v FROM points WHERE id = " + key);
                        };
                        if (rows != 1) {
                            throw new java.io.IOException("a point read answered " + rows + " rows");
                        }
                        done.incrementAndGet();
                    }
                } catch (java.io.IOException e) {
                    LOG.warn("a warm-up connection ended: {}", e.toString());
                }
            }));
        }
        CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
        boolean timed = jit != null && jit.isCompilationTimeMonitoringSupported();
        long compiled = timed ? jit.getTotalCompilationTime() : 0;
        while (System.nanoTime() < deadline && threads.stream().anyMatch(Thread::isAlive)) {
            Thread.sleep(1000);
            long now = timed ? jit.getTotalCompilationTime() : 0;
            boolean quiet = !timed || now - compiled <= QUIET_MILLIS;
            compiled = now;
            if (done.get() >= reads && quiet) {
                break;
            }
        }
        stop.set(true);
        for (Thread t : threads) {
            t.join(Math.max(1, (deadline - System.nanoTime()) / 1_000_000 + 1000));
        }
        return done.get();
    }

    private static void closeQuietly(AutoCloseable part) {
        if (part == null) {
            return;
        }
        try {
            part.close();
        } catch (Exception e) {
            LOG.warn("closing the warm-up's {}: {}", part.getClass().getSimpleName(), e.toString());
        }
    }

    private static void deleteTree(Path dir) {
        try (var paths = Files.walk(dir)) {
            paths.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            LOG.warn("the warm-up's scratch directory {} was not deleted: {}", dir, e.toString());
        }
    }

    /** Compilation time in a second of reads below which the JIT counts as done with the read path. */
    static final long QUIET_MILLIS = 50;
}
