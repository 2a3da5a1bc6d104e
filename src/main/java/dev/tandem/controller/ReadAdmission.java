package dev.tandem.controller;

import reactor.util.context.ContextView;

/**
 * Whose share of the server a read takes: admits each read in flight, and each slow-path read's
 * transient dataflow, or refuses it with {@link ControllerException.Kind#LIMITED}. A read finds its
 * admission in its subscriber's Reactor context under this type (the API and the wire protocol put the
 * caller's there); without one every read is admitted.
 */
public interface ReadAdmission {

    /** Admits everything. */
    ReadAdmission OPEN = new ReadAdmission() {
        @Override
        public Runnable read() {
            return () -> { };
        }

        @Override
        public Runnable dataflow() {
            return () -> { };
        }
    };

    /** Admits one read in flight, returning what to run when it ends, or throws {@link ControllerException}. */
    Runnable read();

    /** Admits one transient dataflow of a slow-path read, returning what to run when it is dropped, or throws {@link ControllerException}. */
    Runnable dataflow();

    /** The admission a read subscribed with {@code context} answers to. */
    static ReadAdmission of(ContextView context) {
        return context.getOrDefault(ReadAdmission.class, OPEN);
    }
}
