package dev.tandem.protocol;

import dev.tandem.expr.Mfp;
import dev.tandem.plan.DataflowDescription;
import dev.tandem.row.Row;
import dev.tandem.time.Frontier;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;

/** A command from the controller to a compute replica; commands take effect in order, asynchronously. */
public sealed interface ComputeCommand {

    /** First on a connection: resets the replica's view of the controller. */
    record Hello(String nonce) implements ComputeCommand {
        public Hello {
            Objects.requireNonNull(nonce, "nonce");
        }
    }

    /** Installs the workers and the introspection dataflows. */
    record CreateInstance(Map<String, String> logging, ComputeParameters parameters) implements ComputeCommand {
        public CreateInstance {
            logging = Map.copyOf(logging);
            Objects.requireNonNull(parameters, "parameters");
        }
    }

    /** End of the initial command batch. */
    record InitializationComplete() implements ComputeCommand {
    }

    /** Applies parameters globally; unset (null) fields keep their value. */
    record UpdateConfiguration(ComputeParameters parameters) implements ComputeCommand {
        public UpdateConfiguration {
            Objects.requireNonNull(parameters, "parameters");
        }
    }

    /** Creates a dataflow; its imports must exist with {@code since <= as_of}, its export ids must be new. */
    record CreateDataflow(DataflowDescription dataflow) implements ComputeCommand {
        public CreateDataflow {
            Objects.requireNonNull(dataflow, "dataflow");
        }
    }

    /** Computation of a dataflow starts once all its exports are scheduled. */
    record Schedule(String id) implements ComputeCommand {
        public Schedule {
            Objects.requireNonNull(id, "id");
        }
    }

    /** The controller no longer reads {@code id} before {@code frontier}; the empty frontier drops it. */
    record AllowCompaction(String id, Frontier frontier) implements ComputeCommand {
        public AllowCompaction {
            Objects.requireNonNull(id, "id");
            Objects.requireNonNull(frontier, "frontier");
        }
    }

    /**
     * A one-shot read of index {@code target} at {@code timestamp}: optionally only the given literal
     * keys, then {@code mfp}, then {@code finishing}; at most {@code maxResultRows} rows (null: the
     * replica's configured limit).
     */
    record Peek(UUID uuid, String target, long timestamp, List<Row> literalKeys, Mfp mfp, Finishing finishing, Long maxResultRows)
            implements ComputeCommand {
        public Peek {
            Objects.requireNonNull(uuid, "uuid");
            Objects.requireNonNull(target, "target");
            literalKeys = literalKeys == null ? null : List.copyOf(literalKeys);
            mfp = mfp == null ? Mfp.identity() : mfp;
            finishing = finishing == null ? Finishing.NONE : finishing;
        }
    }

    /** Cancels a peek: answered {@code Canceled} unless already answered. */
    record CancelPeek(UUID uuid) implements ComputeCommand {
        public CancelPeek {
            Objects.requireNonNull(uuid, "uuid");
        }
    }
}
