package dev.tandem.storage;

import dev.tandem.row.Schema;
import java.util.List;

/** One entry of the storage log: a change to tables or the catalog, in commit order. */
sealed interface LogRecord {

    /** A table with its schema and unique keys (none: a multiset without constraints). */
    record CreateTable(String id, Schema schema, List<UniqueKey> keys) implements LogRecord {
        public CreateTable {
            keys = List.copyOf(keys);
        }

        CreateTable(String id, Schema schema) {
            this(id, schema, List.of());
        }
    }

    record DropTable(String id) implements LogRecord {
    }

    /**
     * Unique key {@code key} added to table {@code id}, whose rows admission found free of duplicates; with
     * a {@code swap} (else null), catalog changes made with it.
     */
    record AddKey(String id, UniqueKey key, CatalogSwap swap) implements LogRecord {
    }

    /** The key named {@code name}, added to table {@code id} after its creation, dropped; with a {@code swap} (else null), catalog changes made with it. */
    record DropKey(String id, String name, CatalogSwap swap) implements LogRecord {
    }

    /** Rows written at {@code time}; with a {@code swap} (else null), catalog changes made with them. */
    record Write(String id, long time, List<RowDiff> updates, CatalogSwap swap) implements LogRecord {
        Write(String id, long time, List<RowDiff> updates) {
            this(id, time, updates, null);
        }
    }

    /**
     * Rows written to several tables at one {@code time}, atomically (each part a {@link Write} at that
     * time without a swap of its own); with a {@code swap} (else null), catalog changes made with them.
     */
    record WriteTables(long time, List<Write> parts, CatalogSwap swap) implements LogRecord {
        public WriteTables {
            parts = List.copyOf(parts);
        }
    }

    record CatalogPut(String key, String json) implements LogRecord {
    }

    record CatalogRemove(String key) implements LogRecord {
    }

    /** Catalog changes made together, only if the swap's guard holds where the record is admitted. */
    record CatalogChange(CatalogSwap swap) implements LogRecord {
    }

    /** A table's compaction frontier, recorded when the log is rewritten consolidated at it. */
    record Since(String id, long since) implements LogRecord {
    }

    /** The latest timestamp the oracle handed out, recorded when the log is rewritten. */
    record Clock(long lastTime) implements LogRecord {
    }
}
