package dev.tandem.sql;

import java.nio.file.Path;

/** Test access to a SQL engine over a real stack, for the tests of other packages (pgwire). */
public final class SqlTesting {

    private SqlTesting() {
    }

    /** A running stack and its engine. */
    public interface Stack extends AutoCloseable {
        SqlEngine engine();

        /** Reads the controller has in flight. */
        int pendingReads();

        /** Change streams open now, and the transient dataflows they own. */
        int openStreams();

        /** The holders of read holds now, as the introspection collection {@code tandem_read_holds} lists them. */
        java.util.List<String> readHolds();

        /** The bytes of rows that change streams have waiting for their consumers now. */
        long bufferedStreamBytes();

        @Override
        void close();
    }

    /** How an engine is bounded and where it plans: light and heavy statements, and the timer of planning deadlines. */
    public record Lanes(SqlLimits limits, reactor.core.scheduler.Scheduler light, reactor.core.scheduler.Scheduler heavy,
            reactor.core.scheduler.Scheduler timer) {
    }

    public static Stack stack(Path dir) {
        return stack(dir, null);
    }

    /**
     * An executor that holds the tasks given to it until it is opened, then runs them (and every later one)
     * on {@code delegate}: a planning lane whose statements "plan slowly" for as long as a test wants.
     */
    public static final class Gate implements java.util.concurrent.Executor {
        private final java.util.concurrent.Executor delegate;
        private final java.util.Queue<Runnable> held = new java.util.concurrent.ConcurrentLinkedQueue<>();
        private final java.util.concurrent.atomic.AtomicInteger given = new java.util.concurrent.atomic.AtomicInteger();
        private volatile boolean open;

        public Gate(java.util.concurrent.Executor delegate) {
            this.delegate = delegate;
        }

        @Override
        public synchronized void execute(Runnable task) {
            given.incrementAndGet();
            if (open) {
                delegate.execute(task);
            } else {
                held.add(task);
            }
        }

        /** Tasks given to the gate so far (held or run). */
        public int given() {
            return given.get();
        }

        /** Tasks held now. */
        public int held() {
            return held.size();
        }

        /** Holds every later task until the gate is opened again. */
        public synchronized void close() {
            open = false;
        }

        /** Runs the held tasks and lets every later one through. */
        public synchronized void open() {
            open = true;
            for (Runnable r; (r = held.poll()) != null; ) {
                delegate.execute(r);
            }
        }

        /** The gate as a scheduler. */
        public reactor.core.scheduler.Scheduler scheduler() {
            return reactor.core.scheduler.Schedulers.fromExecutor(this);
        }
    }

    /** A stack whose engine plans on {@code lanes} (null: the defaults). */
    public static Stack stack(Path dir, Lanes lanes) {
        SqlStack s = new SqlStack(dir, lanes);
        return new Stack() {
            @Override
            public SqlEngine engine() {
                return s.sql;
            }

            @Override
            public int pendingReads() {
                return s.controller.pendingReads();
            }

            @Override
            public int openStreams() {
                return s.streams.activeCount() + s.controller.transientStreamCount();
            }

            @Override
            public java.util.List<String> readHolds() {
                return s.controller.readIntrospection("tandem_read_holds", dev.tandem.controller.ReadRequest.of("tandem_read_holds"))
                        .block(java.time.Duration.ofSeconds(30)).rows().stream().map(r -> r.get(0) + " " + r.get(1)).sorted().toList();
            }

            @Override
            public long bufferedStreamBytes() {
                return s.streams.bufferedBytes();
            }

            @Override
            public void close() {
                s.close();
            }
        };
    }
}
