package dev.tandem.bench;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.function.Function;
import java.util.function.LongFunction;

/**
 * One shape of {@code sql-shapes}: its tables and their rows, the view's query and index key, its
 * changes, and which of the view's columns (and rows) are compared with PostgreSQL's answer.
 *
 * @param name the shape's name, of {@link SqlShapesScenario#SHAPES}
 * @param data what its tables hold, for the report
 * @param tables the tables, created and loaded alike in both systems
 * @param postgresIndexes PostgreSQL's indexes for its one-shot run of the query (Tandem needs none)
 * @param query the view's query
 * @param key the column the view is indexed on, and that the probes look up
 * @param change change {@code k}: even an insert of a new row, odd the delete of the row change {@code k - 1} inserted
 * @param checkColumns the columns compared with PostgreSQL (all the view's rows are)
 * @param staleFilter a condition no row of the view may meet at the time it is read (null: none)
 * @param background row {@code n} of the writes made in the background while the changes run, a {@code VALUES}
 *     tuple for the first table (null: none)
 */
record SqlShape(String name, String data, List<Table> tables, List<String> postgresIndexes, String query, String key,
        LongFunction<Change> change, String checkColumns, Function<Instant, String> staleFilter, LongFunction<String> background) {

    /** A table: its DDL and its rows {@code 0..rows-1}, row {@code i} the tab-separated {@code line.apply(i)}. */
    record Table(String name, String ddl, long rows, LongFunction<String> line) {
    }

    /**
     * One write, and the probe of the view ({@code $view}) through its index that answers {@code visibleRows}
     * rows once the view shows the write.
     */
    record Change(String write, String probe, int visibleRows) {
    }

    /** Whether the query reads {@code now()}, so that a comparison must read both systems at one time. */
    boolean readsNow() {
        return query.contains("now()");
    }

    /** The query with {@code now()} replaced by the instant {@code at}: PostgreSQL's answer at that time. */
    String queryAt(Instant at) {
        return query.replace("now()", "TIMESTAMPTZ '" + at + "'");
    }

    /** Nodes of a component of the closure's graph. */
    static final int COMPONENT_NODES = 52;
    /** Edges of a component: a chain through its first 51 nodes, and from each of its first 50 one more, two to four nodes on (at most its last). */
    static final int COMPONENT_EDGES = 100;

    /** The shape {@code name} over {@code rows} rows; the temporal shape's rows are spread over the two hours before {@code now}. */
    static SqlShape of(String name, long rows, Instant now) {
        return switch (name) {
            case "correlated" -> correlated(rows);
            case "row_number" -> rowNumber(rows);
            case "closure" -> closure(rows);
            case "temporal" -> temporal(rows, now);
            default -> throw new IllegalArgumentException("unknown shape '" + name + "'");
        };
    }

    private static SqlShape correlated(long rows) {
        long customers = Math.max(1, rows / 100);
        return new SqlShape("correlated", rows + " orders of " + customers + " customers, amounts 0-999",
                List.of(new Table("orders", "CREATE TABLE orders (id bigint PRIMARY KEY, customer bigint NOT NULL, amount bigint NOT NULL)", rows,
                        i -> i + "\t" + i % customers + "\t" + BenchWorkload.mix(i) % 1000)),
                List.of("CREATE INDEX orders_customer ON orders (customer)"),
                "SELECT o.id, o.customer, o.amount FROM orders o WHERE o.amount > (SELECT avg(i.amount) FROM orders i WHERE i.customer = o.customer)",
                "id", k -> {
                    // an order far above its customer's average: it shows, and the rest of the customer's orders leave the view
                    long id = rows + k / 2;
                    return k % 2 == 0
                            ? new Change("INSERT INTO orders VALUES (" + id + ", " + BenchWorkload.mix(k / 2) % customers + ", 1000000)",
                                    "SELECT id FROM $view WHERE id = " + id, 1)
                            : new Change("DELETE FROM orders WHERE id = " + id, "SELECT id FROM $view WHERE id = " + id, 0);
                }, "id, customer, amount", null, null);
    }

    private static SqlShape rowNumber(long rows) {
        long partitions = Math.max(1, rows / 100);
        return new SqlShape("row_number", rows + " rows in " + partitions + " partitions",
                List.of(new Table("ranked", "CREATE TABLE ranked (id bigint PRIMARY KEY, g bigint NOT NULL, v bigint NOT NULL)", rows,
                        i -> i + "\t" + i % partitions + "\t" + BenchWorkload.value(i))),
                List.of(), "SELECT id, g, v, row_number() OVER (PARTITION BY g ORDER BY v, id) AS rn FROM ranked", "id", k -> {
                    // a row before every other of its partition: it is first, and every other row of the partition moves down one
                    long id = rows + k / 2;
                    String probe = "SELECT id FROM $view WHERE id = " + id + " AND rn = 1";
                    return k % 2 == 0
                            ? new Change("INSERT INTO ranked VALUES (" + id + ", " + BenchWorkload.mix(k / 2) % partitions + ", -1)", probe, 1)
                            : new Change("DELETE FROM ranked WHERE id = " + id, probe, 0);
                }, "id, g, v, rn", null, null);
    }

    /**
     * The transitive closure of a graph of {@code rows / 10} edges in components of {@value #COMPONENT_NODES}
     * nodes: a chain through the component plus one skip edge from each node, so each component's closure is
     * every pair of its nodes in order (1,326 rows; 1.3 M for 100 k edges). A change links the last node of
     * one component to the first of a later one (2,704 more pairs), then unlinks it.
     */
    private static SqlShape closure(long rows) {
        long components = Math.max(2, rows / 10 / COMPONENT_EDGES);
        int n = COMPONENT_NODES;
        return new SqlShape("closure", components * COMPONENT_EDGES + " edges in " + components + " components of " + n + " nodes (a chain plus skips)",
                List.of(new Table("edges", "CREATE TABLE edges (src bigint NOT NULL, dst bigint NOT NULL, PRIMARY KEY (src, dst))",
                        components * COMPONENT_EDGES, i -> {
                            long base = i / COMPONENT_EDGES * n;
                            long e = i % COMPONENT_EDGES;
                            long j = e % 50;
                            long dst = e < 50 ? j + 1 : Math.min(n - 1, j + 2 + BenchWorkload.mix(i) % 3);
                            return (base + j) + "\t" + (base + dst);
                        })),
                List.of(),
                "WITH RECURSIVE reach(src, dst) AS (SELECT src, dst FROM edges UNION SELECT r.src, e.dst FROM reach r JOIN edges e ON e.src = r.dst)"
                        + " SELECT src, dst FROM reach",
                "src", k -> {
                    long a = BenchWorkload.mix(k / 2) % (components - 1);
                    long b = a + 1 + BenchWorkload.mix(k / 2 + components) % (components - 1 - a);
                    long from = a * n + n - 1;
                    long to = b * n;
                    String probe = "SELECT dst FROM $view WHERE src = " + a * n + " AND dst = " + (b * n + n - 1);
                    return k % 2 == 0
                            ? new Change("INSERT INTO edges VALUES (" + from + ", " + to + ")", probe, 1)
                            : new Change("DELETE FROM edges WHERE src = " + from + " AND dst = " + to, probe, 0);
                }, "src, dst", null, null);
    }

    /**
     * Events over the two hours before {@code now}, half of them in the last hour, viewed through a one-hour
     * window; while its changes run, {@link SqlShapesScenario#TEMPORAL_WRITES_PER_S} new events a second come in.
     * The comparison reads the view {@code AS OF} a time and PostgreSQL's query with {@code now()} pinned to it
     * ({@link #queryAt}), so every row is compared, those at the window's edge too.
     */
    private static SqlShape temporal(long rows, Instant now) {
        long spread = Duration.ofHours(2).toMillis();
        return new SqlShape("temporal", rows + " events over the last 2 hours, then " + SqlShapesScenario.TEMPORAL_WRITES_PER_S + " new events/s",
                List.of(new Table("events", "CREATE TABLE events (id bigint PRIMARY KEY, k bigint NOT NULL, created_at timestamptz NOT NULL)", rows,
                        i -> i + "\t" + i % 1000 + "\t" + now.minusMillis(spread * i / rows))),
                List.of("CREATE INDEX events_created_at ON events (created_at)"),
                "SELECT id, k, created_at FROM events WHERE created_at > now() - INTERVAL '1 hour'", "id", k -> {
                    long id = rows + k / 2;
                    return k % 2 == 0
                            ? new Change("INSERT INTO events VALUES (" + id + ", 0, '" + Instant.now() + "')", "SELECT id FROM $view WHERE id = " + id, 1)
                            : new Change("DELETE FROM events WHERE id = " + id, "SELECT id FROM $view WHERE id = " + id, 0);
                }, "id, k",
                at -> "created_at <= '" + at.minus(Duration.ofHours(1)) + "'",
                n -> "(" + (2 * rows + n) + ", " + n % 1000 + ", '" + Instant.now() + "')");
    }
}
