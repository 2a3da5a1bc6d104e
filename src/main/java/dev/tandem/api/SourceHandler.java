package dev.tandem.api;

import dev.tandem.row.Schema;
import dev.tandem.source.Envelope;
import dev.tandem.source.SourceDefinition;
import dev.tandem.source.SourceManager;
import dev.tandem.source.SourceStatus;
import dev.tandem.source.postgres.PgSourceManager;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.springframework.web.reactive.function.server.ServerRequest;
import org.springframework.web.reactive.function.server.ServerResponse;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * Sources: {@code /v1/sources}. Kafka sources are created here; PostgreSQL sources (created with SQL's
 * {@code CREATE SOURCE ... FROM POSTGRES}) are listed, read and dropped here too, as {@code "kind": "postgres"}.
 */
final class SourceHandler {

    private static final Set<String> SOURCE_FIELDS = Set.of("name", "columns", "kafka", "postgres");
    private static final Set<String> POSTGRES_FIELDS = Set.of("connection", "password_secret", "publication", "tables", "text_columns");
    private static final Set<String> POSTGRES_TABLE_FIELDS = Set.of("upstream", "name");
    private static final Set<String> KAFKA_FIELDS = Set.of("bootstrap_servers", "topic", "format", "key", "envelope");

    private final SourceManager sources;
    private final PgSourceManager pgSources;
    private final long maxBodyBytes;
    private final Scheduler blocking;

    SourceHandler(SourceManager sources, PgSourceManager pgSources, long maxBodyBytes, Scheduler blocking) {
        this.sources = sources;
        this.pgSources = pgSources;
        this.maxBodyBytes = maxBodyBytes;
        this.blocking = blocking;
    }

    Mono<ServerResponse> create(ServerRequest request) {
        return JsonBody.read(request, maxBodyBytes, SOURCE_FIELDS).flatMap(b -> {
            if (b.raw("postgres") != null) {
                return createPostgres(request, b);
            }
            String name = b.requiredString("name");
            var columns = CatalogHandler.columns(b.requiredArray("columns"));
            JsonNode kafkaJson = b.raw("kafka");
            if (kafkaJson == null) {
                throw ApiException.badRequest("body: field 'kafka' is required");
            }
            JsonBody kafka = JsonBody.of(kafkaJson, "kafka", KAFKA_FIELDS);
            String servers = kafka.string("bootstrap_servers");
            String topic = kafka.requiredString("topic");
            String format = kafka.string("format");
            Envelope envelope;
            try {
                envelope = Envelope.fromJson(kafka.requiredString("envelope"));
            } catch (IllegalArgumentException e) {
                throw ApiException.badRequest("kafka.envelope: " + e.getMessage());
            }
            List<String> key = new ArrayList<>();
            JsonNode keyJson = kafka.array("key");
            if (keyJson != null) {
                for (int i = 0; i < keyJson.size(); i++) {
                    if (!keyJson.get(i).isString()) {
                        throw ApiException.badRequest("kafka.key[" + i + "]: expected a column name, got " + JsonBody.kind(keyJson.get(i)));
                    }
                    key.add(keyJson.get(i).stringValue());
                }
            }
            SourceDefinition def = new SourceDefinition(name, columns, servers != null ? servers : sources.defaultBootstrapServers(), topic,
                    format != null ? format : SourceDefinition.JSON_FORMAT, key, envelope);
            return Mono.fromCallable(() -> sources.create(def)).subscribeOn(blocking)
                    .flatMap(s -> CatalogHandler.created(request, s.definition().name(), json(s)));
        });
    }

    /**
     * A PostgreSQL source: {@code {"name", "postgres": {"connection", "password_secret"?, "publication",
     * "tables"?: [{"upstream", "name"?}], "text_columns"?: ["t.c"]}}}, as {@code CREATE SOURCE ... FROM POSTGRES}.
     */
    private Mono<ServerResponse> createPostgres(ServerRequest request, JsonBody b) {
        if (pgSources == null) {
            throw ApiException.badRequest("postgres: this server runs no PostgreSQL sources");
        }
        if (b.raw("columns") != null || b.raw("kafka") != null) {
            throw ApiException.badRequest("body: a PostgreSQL source takes its columns from the upstream; give 'postgres' without 'columns' or 'kafka'");
        }
        String name = b.requiredString("name");
        JsonBody pg = JsonBody.of(b.raw("postgres"), "postgres", POSTGRES_FIELDS);
        List<String[]> tables = null;
        JsonNode tablesJson = pg.array("tables");
        if (tablesJson != null) {
            tables = new ArrayList<>();
            for (int i = 0; i < tablesJson.size(); i++) {
                JsonBody t = JsonBody.of(tablesJson.get(i), "postgres.tables[" + i + "]", POSTGRES_TABLE_FIELDS);
                String upstream = t.requiredString("upstream");
                String local = t.string("name");
                tables.add(new String[] {upstream, local != null ? local : upstream.substring(upstream.indexOf('.') + 1)});
            }
        }
        List<String> text = new ArrayList<>();
        JsonNode textJson = pg.array("text_columns");
        if (textJson != null) {
            for (int i = 0; i < textJson.size(); i++) {
                if (!textJson.get(i).isString()) {
                    throw ApiException.badRequest("postgres.text_columns[" + i + "]: expected 'table.column', got " + JsonBody.kind(textJson.get(i)));
                }
                text.add(textJson.get(i).stringValue());
            }
        }
        var statement = new dev.tandem.sql.SqlSources.CreatePostgres(name, pg.requiredString("connection"), pg.string("password_secret"),
                pg.requiredString("publication"), tables, text);
        return Mono.fromCallable(() -> {
            pgSources.createPostgres(statement);
            return pgSources.statusOrNull(name);
        }).subscribeOn(blocking).flatMap(s -> CatalogHandler.created(request, name, json(s)));
    }

    Mono<ServerResponse> list(ServerRequest request) {
        ArrayNode a = JsonNodeFactory.instance.arrayNode();
        sources.list().forEach(s -> a.add(json(s)));
        if (pgSources != null) {
            pgSources.list().forEach(s -> a.add(json(s)));
        }
        return CatalogHandler.ok(a);
    }

    Mono<ServerResponse> get(ServerRequest request) {
        String name = request.pathVariable("name");
        PgSourceManager.Status pg = pgSources == null ? null : pgSources.statusOrNull(name);
        if (pg != null) {
            return CatalogHandler.ok(json(pg));
        }
        return CatalogHandler.ok(json(sources.status(name)));
    }

    Mono<ServerResponse> drop(ServerRequest request) {
        String name = request.pathVariable("name");
        return Mono.fromCallable(() -> {
            if (pgSources == null || !pgSources.drop(name)) {
                sources.drop(name);
            }
            return name;
        }).subscribeOn(blocking).flatMap(n -> ServerResponse.noContent().build());
    }

    static ObjectNode json(PgSourceManager.Status s) {
        ObjectNode n = JsonNodeFactory.instance.objectNode();
        n.put("name", s.name());
        n.put("kind", "postgres");
        ObjectNode pg = n.putObject("postgres");
        pg.put("publication", s.publication());
        pg.put("slot", s.slot());
        ArrayNode tables = pg.putArray("tables");
        s.tables().forEach(tables::add);
        n.put("state", s.state());
        if (s.detail() != null) {
            n.put("detail", s.detail());
        }
        if (s.lsn() != null) {
            n.put("lsn", s.lsn());
        }
        n.put("rows_copied", s.rowsCopied());
        n.put("transactions", s.transactions());
        n.put("lag_seconds", s.lagSeconds());
        n.put("bytes_behind", s.bytesBehind());
        ObjectNode errors = n.putObject("table_errors");
        s.tableErrors().forEach(errors::put);
        return n;
    }

    static ObjectNode json(SourceStatus s) {
        SourceDefinition d = s.definition();
        ObjectNode n = JsonNodeFactory.instance.objectNode();
        n.put("name", d.name());
        n.put("kind", "kafka");
        n.set("columns", ApiJson.columns(new Schema(d.columns())));
        ObjectNode kafka = n.putObject("kafka");
        kafka.put("bootstrap_servers", d.bootstrapServers());
        kafka.put("topic", d.topic());
        kafka.put("format", d.format());
        ArrayNode key = kafka.putArray("key");
        d.key().forEach(key::add);
        kafka.put("envelope", d.envelope().jsonName());
        n.put("state", s.state());
        if (s.detail() != null) {
            n.put("detail", s.detail());
        }
        n.put("partitions", s.partitions());
        n.set("offsets", offsets(s.offsets()));
        n.set("end_offsets", offsets(s.endOffsets()));
        if (s.lag() >= 0) {
            n.put("lag", s.lag());
        } else {
            n.putNull("lag");
        }
        n.put("records", s.records());
        n.put("errors", s.errors());
        n.put("ingesting", s.ingesting());
        n.put("decoded", s.decoded());
        return n;
    }

    private static ObjectNode offsets(Map<Integer, Long> offsets) {
        ObjectNode o = JsonNodeFactory.instance.objectNode();
        offsets.forEach((p, off) -> o.put(Integer.toString(p), off));
        return o;
    }
}
