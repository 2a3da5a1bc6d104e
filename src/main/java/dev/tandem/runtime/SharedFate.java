package dev.tandem.runtime;

import reactor.core.scheduler.Schedulers;

/**
 * Installs shared fate for the whole process: an error that escapes a task on any Reactor scheduler
 * (either runtime's threads included) or any thread at all goes to the fatal error handler, which
 * halts the process. Errors inside operator steps reach it through the worker pools directly.
 *
 * <p>One error is not fatal: Reactor's "scheduler unavailable" rejection, raised when a task is handed to
 * a scheduler already disposed. Schedulers are disposed only when the component owning them closes, so the
 * rejected task belonged to something shutting down (a timer tick racing its component's close); it is
 * logged, not answered by halting whatever else the process still runs.
 *
 * <p>It lasts as long as the application that installed it: closing the last installation restores the
 * process's previous handlers, so a JVM that outlives the application (a test run) is not halted by a
 * later error on a thread the application never owned.
 */
public final class SharedFate {

    private static final String KEY = "tandem-shared-fate";
    private static int installed;
    private static Thread.UncaughtExceptionHandler previous;

    private SharedFate() {
    }

    /** Installs {@code fatal} for the process until the returned installation (and every other) is closed. */
    public static synchronized Installation install(FatalErrorHandler fatal) {
        if (installed++ == 0) {
            previous = Thread.getDefaultUncaughtExceptionHandler();
        }
        Schedulers.onHandleError(KEY, (thread, error) -> {
            if (error == reactor.core.Exceptions.failWithRejected()) {
                org.slf4j.LoggerFactory.getLogger(SharedFate.class).warn("a task on {} was refused by a scheduler already disposed"
                        + " (its component is closing)", thread.getName());
                return;
            }
            fatal.fatal(thread.getName(), error);
        });
        Thread.setDefaultUncaughtExceptionHandler((thread, error) -> fatal.fatal(thread.getName(), error));
        return new Installation();
    }

    private static synchronized void uninstall() {
        if (--installed == 0) {
            Schedulers.resetOnHandleError(KEY);
            Thread.setDefaultUncaughtExceptionHandler(previous);
            previous = null;
        }
    }

    /** One application's installation; closing it (once) ends shared fate when it was the last. */
    public static final class Installation implements AutoCloseable {
        private boolean closed;

        private Installation() {
        }

        @Override
        public void close() {
            synchronized (SharedFate.class) {
                if (closed) {
                    return;
                }
                closed = true;
                uninstall();
            }
        }
    }
}
