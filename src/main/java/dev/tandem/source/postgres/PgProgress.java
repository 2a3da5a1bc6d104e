package dev.tandem.source.postgres;

import java.util.Map;
import java.util.TreeMap;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * A PostgreSQL source's durable position, stored in the catalog ({@code pgsource-progress/<name>}) in
 * the same log record as the rows it produced: whether the initial copy is done, the upstream LSN
 * through which every transaction is applied (the end of the last one applied, or the slot's
 * consistent point), the rows copied so far, and the tables put in an error state (by their Tandem
 * name, with why), whose changes are no longer applied.
 */
record PgProgress(boolean copied, long lsn, long rowsCopied, Map<String, String> tableErrors) {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    PgProgress {
        tableErrors = Map.copyOf(tableErrors);
    }

    PgProgress streamedTo(long lsn) {
        return new PgProgress(true, lsn, rowsCopied, tableErrors);
    }

    PgProgress withTableError(String table, String why) {
        Map<String, String> errors = new TreeMap<>(tableErrors);
        errors.put(table, why);
        return new PgProgress(copied, lsn, rowsCopied, errors);
    }

    String toJson() {
        ObjectNode n = JSON.createObjectNode();
        n.put("copied", copied);
        n.put("lsn", lsn);
        n.put("rows_copied", rowsCopied);
        ObjectNode e = n.putObject("table_errors");
        new TreeMap<>(tableErrors).forEach(e::put);
        return n.toString();
    }

    static PgProgress fromJson(String json) {
        JsonNode n = JSON.readTree(json);
        Map<String, String> errors = new TreeMap<>();
        JsonNode e = n.get("table_errors");
        if (e != null) {
            e.properties().forEach(p -> errors.put(p.getKey(), p.getValue().asString()));
        }
        return new PgProgress(n.get("copied").asBoolean(), n.get("lsn").asLong(), n.get("rows_copied").asLong(), errors);
    }
}
