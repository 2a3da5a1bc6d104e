package dev.tandem.sql;

import dev.tandem.controller.CatalogEntry;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The sequences of {@code serial} and identity columns ({@link CatalogEntry.WriteTimeDefault#SEQUENCE}): per table
 * (by id, so a table created again starts afresh) and column, the last value handed out. A sequence starts, at
 * its first use after the server starts, after the largest value its column holds (read strict serializable, so
 * every acknowledged write counts), and hands out each value once: concurrent writers never get the same one. As
 * in PostgreSQL a value written explicitly does not move it and a value handed to a write that then fails is not
 * handed out again (gaps are normal); unlike PostgreSQL's, whose state is durable, the values of rows deleted
 * from the top of the column may be handed out again after a restart.
 */
final class Sequences {

    private final SqlEngine engine;
    private final ConcurrentHashMap<String, AtomicLong> last = new ConcurrentHashMap<>();

    Sequences(SqlEngine engine) {
        this.engine = engine;
    }

    /** Whether any column of {@code table} takes its sequence's next value by default. */
    static boolean has(CatalogEntry.Table table) {
        return table.defaults().containsValue(CatalogEntry.WriteTimeDefault.SEQUENCE);
    }

    private static String key(CatalogEntry.Table table, String column) {
        return table.id() + '\u0000' + column;
    }

    /** Completes when every sequence of {@code table} has started (at once unless this is its first use since the server started). */
    Mono<Void> ready(CatalogEntry.Table table) {
        if (!has(table)) {
            return Mono.empty();
        }
        List<String> missing = new ArrayList<>();
        table.defaults().forEach((column, d) -> {
            if (d == CatalogEntry.WriteTimeDefault.SEQUENCE && !last.containsKey(key(table, column))) {
                missing.add(column);
            }
        });
        return Flux.fromIterable(missing).concatMap(column -> largest(table, column)
                .doOnNext(max -> last.computeIfAbsent(key(table, column), k -> new AtomicLong()).accumulateAndGet(max, Math::max)))
                .then();
    }

    /** The largest value of {@code column} in {@code table} as of every acknowledged write (0 when it holds none). */
    private Mono<Long> largest(CatalogEntry.Table table, String column) {
        String text = "SELECT max(" + quoted(column) + ") FROM " + quoted(table.name());
        SqlSession strict = new SqlSession();
        strict.strict(true);
        return Mono.defer(() -> {
            SqlEngine.Query q = engine.planQuery(CalcitePlanner.parse(text), SqlParams.of(text), null, null);
            return engine.runQuery(q, List.of(), strict);
        }).map(r -> r.rows().isEmpty() || r.rows().get(0)[0] == null ? 0L : (Long) r.rows().get(0)[0]);
    }

    private static String quoted(String name) {
        return '"' + name.replace("\"", "\"\"") + '"';
    }

    /** The next value of {@code column}'s sequence in {@code table}; {@link #ready} must have completed. */
    long next(CatalogEntry.Table table, String column) {
        AtomicLong l = last.get(key(table, column));
        if (l == null) {
            throw new IllegalStateException("the sequence of " + table.name() + "." + column + " has not started");
        }
        return l.incrementAndGet();
    }
}
