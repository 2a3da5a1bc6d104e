package dev.tandem.runtime;

/**
 * Shared fate: an uncaught error on any runtime thread ends the whole process, so every read hold
 * across runtimes lives no longer than the process and state is recovered from storage on restart.
 */
@FunctionalInterface
public interface FatalErrorHandler {

    void fatal(String where, Throwable error);

    /** Prints the error and halts the JVM with exit status 70 (internal software error). */
    FatalErrorHandler HALT = (where, error) -> {
        System.err.println("FATAL: uncaught error on " + where + "; halting (shared fate)");
        error.printStackTrace(System.err);
        System.err.flush();
        Runtime.getRuntime().halt(70);
    };
}
