package dev.tandem.runtime;

import dev.tandem.row.Column;
import dev.tandem.row.DatumType;
import dev.tandem.row.Schema;
import java.util.List;

/**
 * The introspection collections the maintenance runtime maintains and publishes as system indexes
 * ({@code s} ids), each keyed by its first column. Frontier times are milliseconds; an empty frontier
 * is NULL.
 */
public final class Introspection {

    /** One introspection collection. */
    public record Collection(String id, String name, String description, Schema schema) {
        public List<Integer> key() {
            return List.of(0);
        }
    }

    private static Column c(String name, DatumType type) {
        return new Column(name, type, true);
    }

    public static final Collection DATAFLOWS = new Collection("s1", "tandem_dataflows",
            "each dataflow per worker: as_of, whether it hydrated and how long hydration took; a maintained dataflow"
                    + " that failed (e.g. over its memory budget) stays listed with its error until it is dropped",
            new Schema(List.of(c("id", DatumType.STRING), c("name", DatumType.STRING), c("worker", DatumType.INT64),
                    c("as_of", DatumType.INT64), c("hydrated", DatumType.BOOL), c("hydration_ms", DatumType.INT64),
                    c("error", DatumType.STRING))));
    public static final Collection FRONTIERS = new Collection("s2", "tandem_frontiers",
            "each exported collection's write frontier and compaction frontier",
            new Schema(List.of(c("collection_id", DatumType.STRING), c("write_frontier", DatumType.INT64), c("since", DatumType.INT64))));
    public static final Collection ARRANGEMENT_SIZES = new Collection("s3", "tandem_arrangement_sizes",
            "records, batches and bytes of each exported arrangement, per worker (shard)",
            new Schema(List.of(c("collection_id", DatumType.STRING), c("worker", DatumType.INT64), c("records", DatumType.INT64),
                    c("batches", DatumType.INT64), c("bytes", DatumType.INT64))));
    public static final Collection OPERATOR_ELAPSED = new Collection("s4", "tandem_operator_elapsed",
            "time spent in each operator of each dataflow, per worker",
            new Schema(List.of(c("dataflow", DatumType.STRING), c("operator", DatumType.STRING), c("worker", DatumType.INT64),
                    c("elapsed_ns", DatumType.INT64), c("invocations", DatumType.INT64))));
    public static final Collection READ_HOLDS = new Collection("s5", "tandem_read_holds",
            "read holds on exported arrangements: compaction policy, pending peeks, importing dataflows, standing holds",
            new Schema(List.of(c("collection_id", DatumType.STRING), c("holder", DatumType.STRING), c("frontier", DatumType.INT64))));
    public static final Collection HYDRATION_PROGRESS = new Collection("s6", "tandem_hydration_progress",
            "records processed and (estimated) total of each dataflow's hydration, sampled while long steps run",
            new Schema(List.of(c("dataflow", DatumType.STRING), c("records_processed", DatumType.INT64), c("records_total", DatumType.INT64))));

    /** Sampled from the change-stream server (see {@link ComputeRuntime#addIntrospectionSource}). */
    public static final Collection SUBSCRIPTIONS = new Collection("s7", "tandem_subscriptions",
            "open change-stream subscriptions: index, subscriber, last timestamp its client saw completely, lag behind the index,"
                    + " updates waiting in its buffer, messages and bytes sent",
            new Schema(List.of(c("id", DatumType.INT64), c("index", DatumType.STRING), c("subscriber", DatumType.STRING),
                    c("delivered", DatumType.INT64), c("lag_ms", DatumType.INT64), c("buffered", DatumType.INT64),
                    c("messages", DatumType.INT64), c("bytes", DatumType.INT64))));

    /** Sampled from the Kafka sources (see {@link ComputeRuntime#addIntrospectionSource}). */
    public static final Collection SOURCES = new Collection("s8", "tandem_sources",
            "each Kafka source: its topic and envelope, the partitions it reads, the next offset of each (JSON), the end offsets"
                    + " (JSON), lag (end offsets less next offsets, summed), records ingested, records refused, state and the last problem,"
                    + " whether this replica is the one ingesting it, and the records this replica decoded since it started",
            new Schema(List.of(c("name", DatumType.STRING), c("topic", DatumType.STRING), c("envelope", DatumType.STRING),
                    c("partitions", DatumType.INT64), c("offsets", DatumType.STRING), c("end_offsets", DatumType.STRING),
                    c("lag", DatumType.INT64), c("records", DatumType.INT64), c("errors", DatumType.INT64), c("state", DatumType.STRING),
                    c("detail", DatumType.STRING), c("ingesting", DatumType.BOOL), c("decoded", DatumType.INT64))));

    /** Sampled from the Kafka sources: each source's error collection. */
    public static final Collection SOURCE_ERRORS = new Collection("s9", "tandem_source_errors",
            "records a Kafka source could not ingest (unparsable or ill-typed), the most recent ones per source: partition, offset,"
                    + " why, and the start of the record's value",
            new Schema(List.of(c("source", DatumType.STRING), c("partition", DatumType.INT64), c("offset", DatumType.INT64),
                    c("error", DatumType.STRING), c("value", DatumType.STRING))));

    /** Sampled from the storage: what start-up found wrong in the stored data (see {@code TableStorage.errors}). */
    public static final Collection STORAGE_ERRORS = new Collection("s10", "tandem_storage_errors",
            "stored rows that reads skip: a row whose count in the log is negative (written before deletes were checked against"
                    + " the table's counts), with its table, the row, its multiplicity, the log offset of the record that made the"
                    + " count negative (-1 where unknown) and why",
            new Schema(List.of(c("table", DatumType.STRING), c("row", DatumType.STRING), c("multiplicity", DatumType.INT64),
                    c("log_offset", DatumType.INT64), c("error", DatumType.STRING))));

    /** Sampled from the PostgreSQL sources (see {@link ComputeRuntime#addIntrospectionSource}). */
    public static final Collection PG_SOURCES = new Collection("s11", "tandem_pg_sources",
            "each PostgreSQL source: its publication and replication slot, the upstream tables it replicates, state and the last"
                    + " problem, the upstream LSN it has applied through, rows copied by its initial snapshot, transactions applied,"
                    + " seconds and bytes behind upstream, and the tables it stopped replicating with why (JSON)",
            new Schema(List.of(c("name", DatumType.STRING), c("publication", DatumType.STRING), c("slot", DatumType.STRING),
                    c("tables", DatumType.STRING), c("state", DatumType.STRING), c("detail", DatumType.STRING), c("lsn", DatumType.STRING),
                    c("rows_copied", DatumType.INT64), c("transactions", DatumType.INT64), c("lag_seconds", DatumType.FLOAT64),
                    c("bytes_behind", DatumType.INT64), c("table_errors", DatumType.STRING))));

    public static final List<Collection> ALL = List.of(DATAFLOWS, FRONTIERS, ARRANGEMENT_SIZES, OPERATOR_ELAPSED, READ_HOLDS, HYDRATION_PROGRESS,
            SUBSCRIPTIONS, SOURCES, SOURCE_ERRORS, STORAGE_ERRORS, PG_SOURCES);

    private Introspection() {
    }

    public static boolean isIntrospection(String id) {
        return ALL.stream().anyMatch(c -> c.id().equals(id));
    }
}
