package dev.tandem.runtime;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.scheduler.Scheduler;

/**
 * Lowers the OS scheduling priority (raises the nice value) of the calling thread, so that on a
 * CPU-saturated machine the kernel runs the interactive runtime's and the HTTP threads first and gives
 * maintenance whatever is left. Java's own thread priorities are ignored on Linux; the nice value is a
 * per-thread attribute there, set with {@code setpriority(PRIO_PROCESS, 0, nice)} for the calling
 * thread. Raising one's own nice value needs no privilege. Where this is not Linux or the call fails,
 * maintenance runs at normal priority and a warning says so once.
 *
 * <p>A new thread inherits its creator's nice value, and taking a lower one again needs privilege. So
 * every thread that must keep normal priority is started by a thread of normal priority
 * ({@link #startThreads}, {@link #atNormalPriority}), never lazily by whichever lowered maintenance
 * thread first schedules on its pool: that once left maintenance's response thread, its introspection
 * logging and the logging's storage at nice 19, and reads stalled for seconds behind them.
 */
public final class ThreadNice {

    private static final Logger LOG = LoggerFactory.getLogger(ThreadNice.class);
    private static final int PRIO_PROCESS = 0;
    private static final Optional<MethodHandle> SETPRIORITY = lookup();
    private static volatile boolean warned;
    /** The nice value this class gave the current thread (0: none), so a pool's thread is set once, not per task. */
    private static final ThreadLocal<Integer> GIVEN = ThreadLocal.withInitial(() -> 0);
    /**
     * The process's own nice value: that of the thread that loaded this class, before it could lower any.
     * A thread above it is "lowered", by this class or because a lowered thread created it.
     */
    private static final int NORMAL = current().orElse(0);
    /** Creates threads for lowered callers; started with this class, so at the process's own priority. */
    private static final ThreadPoolExecutor STARTER = starter();
    private static final long STARTER_WAIT_SECONDS = 60;

    private ThreadNice() {
    }

    private static Optional<MethodHandle> lookup() {
        if (!System.getProperty("os.name", "").toLowerCase(java.util.Locale.ROOT).contains("linux")) {
            return Optional.empty();
        }
        try {
            Linker linker = Linker.nativeLinker();
            return linker.defaultLookup().find("setpriority").map(address -> linker.downcallHandle(address,
                    FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT)));
        } catch (RuntimeException | LinkageError e) {
            LOG.warn("thread priorities unavailable ({}); maintenance threads run at normal priority", e.toString());
            return Optional.empty();
        }
    }

    /** Sets the calling thread's nice value ({@code 0} leaves it alone); returns whether it took effect. */
    public static boolean apply(int nice) {
        if (nice == 0) {
            return false;
        }
        if (SETPRIORITY.isEmpty()) {
            warnOnce("this platform has no per-thread nice value");
            return false;
        }
        try {
            int rc = (int) SETPRIORITY.get().invokeExact(PRIO_PROCESS, 0, nice);
            if (rc != 0) {
                warnOnce("setpriority returned " + rc);
            } else {
                KernelCpuTimes.registerCurrentThread();
            }
            return rc == 0;
        } catch (Throwable t) {
            warnOnce(t.toString());
            return false;
        }
    }

    /**
     * Gives the JIT compiler's threads (HotSpot's {@code C1}/{@code C2 CompilerThread}s, found by name in
     * {@code /proc/self/task}) the nice value {@code nice}, so that code compiled after start-up (code a
     * server's first real clients throw away and have compiled again) takes the CPU the reads leave rather
     * than the reads' own; compiler threads started later inherit it from the one that starts them. Returns
     * how many threads took it (0 where this is not Linux, or {@code nice} is 0).
     */
    public static int lowerCompilerThreads(int nice) {
        if (nice == 0 || SETPRIORITY.isEmpty()) {
            return 0;
        }
        int n = 0;
        try (var tasks = java.nio.file.Files.list(java.nio.file.Path.of("/proc/self/task"))) {
            for (java.nio.file.Path task : tasks.toList()) {
                String name;
                try {
                    name = java.nio.file.Files.readString(task.resolve("comm")).strip();
                } catch (java.io.IOException e) {
                    continue; // the thread ended meanwhile
                }
                if (name.startsWith("C1 CompilerThre") || name.startsWith("C2 CompilerThre")) {
                    int rc = (int) SETPRIORITY.get().invokeExact(PRIO_PROCESS, Integer.parseInt(task.getFileName().toString()), nice);
                    n += rc == 0 ? 1 : 0;
                }
            }
        } catch (Throwable t) {
            LOG.warn("could not lower the priority of the JIT compiler's threads: {}", t.toString());
        }
        return n;
    }

    /**
     * Gives the calling thread {@code nice} unless it already has it from here: for pool threads, which
     * may be replaced (a bounded-elastic thread idle for a minute is), so each task ensures it.
     */
    public static void ensure(int nice) {
        if (nice != 0 && GIVEN.get() != nice) {
            GIVEN.set(nice);
            apply(nice);
        }
    }

    /**
     * Whether this class lowered the calling thread's priority ({@link #ensure}). Every lowered thread
     * lowered itself so, since threads that must keep normal priority are started at it (below).
     */
    public static boolean lowered() {
        return GIVEN.get() != 0;
    }

    /**
     * Runs {@code work}, which creates threads, so that they start at the process's own priority: on the
     * calling thread if it has that priority, else on a thread kept for this, waiting for it. A Linux
     * thread inherits its creator's nice value and, without privilege, can never take a lower one again: a
     * pool thread that a lowered maintenance thread happened to create (by scheduling its first task, or
     * by building a component) would stay lowered for life, and so would everything it serves.
     */
    public static <T> T atNormalPriority(Supplier<T> work) {
        if (current().map(n -> n <= NORMAL).orElse(true)) {
            return work.get();
        }
        try {
            return STARTER.submit(work::get).get(STARTER_WAIT_SECONDS, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof RuntimeException r ? r : new IllegalStateException(e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while starting threads", e);
        } catch (TimeoutException e) {
            throw new IllegalStateException("threads were not started within " + STARTER_WAIT_SECONDS + " s", e);
        }
    }

    /**
     * Starts the thread behind each of {@code workers} now, at the process's own priority (see
     * {@link #atNormalPriority}), by giving it a task that does nothing: a scheduler's threads start with
     * their first task, from whichever thread scheduled it.
     */
    public static void startThreads(List<Scheduler.Worker> workers) {
        atNormalPriority(() -> {
            workers.forEach(w -> w.schedule(() -> { }));
            return null;
        });
    }

    /** As {@link #startThreads(List)} for a scheduler of {@code threads} fixed threads that takes them in turn (parallel, single). */
    public static Scheduler startThreads(Scheduler scheduler, int threads) {
        atNormalPriority(() -> {
            for (int i = 0; i < threads; i++) {
                scheduler.schedule(() -> { });
            }
            return null;
        });
        return scheduler;
    }

    private static ThreadPoolExecutor starter() {
        ThreadPoolExecutor e = new ThreadPoolExecutor(1, 1, 0, TimeUnit.MILLISECONDS, new LinkedBlockingQueue<>(), r -> {
            Thread t = new Thread(r, "tandem-thread-starter");
            t.setDaemon(true);
            return t;
        });
        e.prestartCoreThread();
        return e;
    }

    /** The calling thread's nice value as the kernel reports it, or empty where it cannot be read. */
    public static Optional<Integer> current() {
        try {
            String stat = java.nio.file.Files.readString(java.nio.file.Path.of("/proc/thread-self/stat"));
            // Fields after the command name (which is in parentheses and may hold spaces): nice is field 19.
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return Optional.of(Integer.parseInt(f[16]));
        } catch (java.io.IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    private static void warnOnce(String why) {
        if (!warned) {
            warned = true;
            LOG.warn("could not lower the priority of maintenance threads ({}); they run at normal priority", why);
        }
    }
}
