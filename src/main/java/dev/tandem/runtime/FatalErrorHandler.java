package dev.tandem.runtime;

/**
 * Shared fate: an uncaught error on any runtime thread ends the whole process, so every read hold
 * across runtimes lives no longer than the process and state is recovered from storage on restart.
 */
@FunctionalInterface
public interface FatalErrorHandler {

    void fatal(String where, Throwable error);

    /**
     * Prints the error to the process's standard error and halts the JVM with exit status 70 (internal
     * software error). It writes to the file descriptor itself, not through {@code System.err}, which a
     * host (a test runner, a log framework) may have replaced with a buffer the halt would lose.
     */
    FatalErrorHandler HALT = (where, error) -> {
        java.io.PrintStream err = new java.io.PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.err), true);
        err.println("FATAL: uncaught error on " + where + "; halting (shared fate)");
        error.printStackTrace(err);
        err.flush();
        Runtime.getRuntime().halt(70);
    };
}
