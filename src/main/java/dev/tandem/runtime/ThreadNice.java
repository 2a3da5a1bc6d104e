package dev.tandem.runtime;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Lowers the OS scheduling priority (raises the nice value) of the calling thread, so that on a
 * CPU-saturated machine the kernel runs the interactive runtime's and the HTTP threads first and gives
 * maintenance whatever is left. Java's own thread priorities are ignored on Linux; the nice value is a
 * per-thread attribute there, set with {@code setpriority(PRIO_PROCESS, 0, nice)} for the calling
 * thread. Raising one's own nice value needs no privilege. Where this is not Linux or the call fails,
 * maintenance runs at normal priority and a warning says so once.
 */
public final class ThreadNice {

    private static final Logger LOG = LoggerFactory.getLogger(ThreadNice.class);
    private static final int PRIO_PROCESS = 0;
    private static final Optional<MethodHandle> SETPRIORITY = lookup();
    private static volatile boolean warned;
    /** The nice value this class gave the current thread (0: none), so a pool's thread is set once, not per task. */
    private static final ThreadLocal<Integer> GIVEN = ThreadLocal.withInitial(() -> 0);

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
            }
            return rc == 0;
        } catch (Throwable t) {
            warnOnce(t.toString());
            return false;
        }
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

    /** Whether this class lowered the calling thread's priority ({@link #ensure}). */
    public static boolean lowered() {
        return GIVEN.get() != 0;
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
