package dev.tandem.runtime;

/** Receives what a runtime measures (for metrics and introspection); every method is optional. */
public interface RuntimeObserver {

    /** A peek was answered: {@code path} is {@code FAST} or {@code SLOW}, {@code outcome} {@code rows}, {@code error} or {@code canceled}. */
    default void peekCompleted(Role role, ReadPath path, String outcome, long nanos) {
    }

    /** One operator shard ran one step. */
    default void stepCompleted(Role role, String dataflow, String operator, int worker, long nanos) {
    }

    /** A maintained or transient dataflow hydrated {@code millis} after it was scheduled. */
    default void dataflowHydrated(Role role, String dataflow, long millis) {
    }

    RuntimeObserver NONE = new RuntimeObserver() {
    };
}
