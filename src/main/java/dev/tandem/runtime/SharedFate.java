package dev.tandem.runtime;

import reactor.core.scheduler.Schedulers;

/**
 * Installs shared fate for the whole process: an error that escapes a task on any Reactor scheduler
 * (either runtime's threads included) or any thread at all goes to the fatal error handler, which
 * halts the process. Errors inside operator steps reach it through the worker pools directly.
 */
public final class SharedFate {

    private SharedFate() {
    }

    public static void install(FatalErrorHandler fatal) {
        Schedulers.onHandleError("tandem-shared-fate", (thread, error) -> fatal.fatal(thread.getName(), error));
        Thread.setDefaultUncaughtExceptionHandler((thread, error) -> fatal.fatal(thread.getName(), error));
    }
}
