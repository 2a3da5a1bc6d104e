package dev.tandem.render;

import dev.tandem.time.Frontier;

/** What a running dataflow tells its runtime. */
public interface DataflowListener {

    /** The write frontier of export {@code id} advanced (never regresses). */
    void frontier(String id, Frontier upper);

    /** The dataflow hydrated: its frontier passed {@code as_of} after {@code millis}. */
    void hydrated(Dataflow dataflow, long millis);

    /** The dataflow cannot go on (an import was dropped under it); its exports stay as they are. */
    void failed(Dataflow dataflow, String message);

    /** The dataflow stopped: it went over its memory budget; its exports stay as they are. A failure unless told otherwise. */
    default void overBudget(Dataflow dataflow, String message) {
        failed(dataflow, message);
    }

    DataflowListener NONE = new DataflowListener() {
        @Override
        public void frontier(String id, Frontier upper) {
        }

        @Override
        public void hydrated(Dataflow dataflow, long millis) {
        }

        @Override
        public void failed(Dataflow dataflow, String message) {
        }
    };
}
