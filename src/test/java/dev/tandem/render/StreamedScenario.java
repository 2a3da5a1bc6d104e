package dev.tandem.render;

import static org.awaitility.Awaitility.await;

import dev.tandem.plan.DataflowDescription;
import dev.tandem.plan.Plan;
import dev.tandem.plan.PlanEvaluator;
import dev.tandem.plan.PlanJson;
import dev.tandem.plan.RandomPlans;
import dev.tandem.row.DatumType;
import dev.tandem.row.Row;
import dev.tandem.row.Schema;
import dev.tandem.sharing.ArrangementSharingRegistry;
import dev.tandem.storage.RowDiff;
import dev.tandem.storage.StorageOptions;
import dev.tandem.storage.TableStorage;
import dev.tandem.storage.TableStorages;
import dev.tandem.time.Frontier;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.function.BooleanSupplier;
import org.awaitility.core.ConditionTimeoutException;
import reactor.core.scheduler.Scheduler;
import tools.jackson.databind.json.JsonMapper;

/**
 * A random scenario played as a stream of table writes into fresh in-memory storage: the scenario's
 * data arrives in a few writes mixed with random changes, the plan is rendered (once per given worker
 * pool) at an {@code as_of} among those writes, so it hydrates from a snapshot, and then more inserts,
 * duplicates and retractions arrive. Table contents never go negative.
 */
final class StreamedScenario implements AutoCloseable {

    final RandomPlans.Scenario scenario;
    final TableStorage storage;
    final long asOf;
    /** The timestamp of every write, in order. */
    final List<Long> times = new ArrayList<>();
    /** One dataflow per pool, in the order of the pools. */
    final List<Dataflow> dataflows = new ArrayList<>();
    /** The dataflows publishing the tables as indexes, when the scenario reads them through index imports. */
    private final List<Dataflow> indexDataflows = new ArrayList<>();
    private final List<Object[]> history = new ArrayList<>();
    private final Map<String, Map<Row, Long>> contents = new LinkedHashMap<>();
    private final RandomPlans gen;
    private final Random rnd;

    /**
     * Plays the scenario of {@code seed} on fresh storage, renders it on each of {@code pools}, and waits
     * until every dataflow is sealed past the last write (or {@code failed} says a worker died). With
     * {@code viaIndexes}, the plan reads each table through an index import published by another
     * dataflow (on the same pool and registry) instead of through a source import.
     */
    StreamedScenario(long seed, boolean sqlCompatible, boolean viaIndexes, List<WorkerPool> pools, Scheduler ticks, BooleanSupplier failed) {
        this.rnd = new Random(seed);
        this.gen = new RandomPlans(rnd, sqlCompatible);
        this.scenario = gen.scenario();
        this.storage = TableStorages.inMemory(StorageOptions.defaults(ticks).withTickInterval(Duration.ofMillis(2)).withFsync(false));
        scenario.types().forEach((id, types) -> {
            storage.createTable(id, Schema.ofTypes(types));
            contents.put(id, new HashMap<>());
        });
        List<Long> before = new ArrayList<>();
        for (Map.Entry<String, Map<Row, Long>> e : scenario.data().entrySet()) {
            List<Row> rows = new ArrayList<>(e.getValue().keySet());
            int parts = 1 + rnd.nextInt(2);
            for (int p = 0; p < parts; p++) {
                Map<Row, Long> diffs = new HashMap<>();
                for (int i = p; i < rows.size(); i += parts) {
                    diffs.put(rows.get(i), e.getValue().get(rows.get(i)));
                }
                write(e.getKey(), diffs).ifPresent(before::add);
            }
        }
        for (int i = rnd.nextInt(3); i > 0; i--) {
            randomChange().ifPresent(before::add);
        }
        if (before.isEmpty() || rnd.nextInt(5) == 0) {
            // Sometimes a little ahead of every write so far: the dataflow waits for its inputs to pass as_of.
            asOf = Math.max(0, storage.lastWriteTime()) + rnd.nextInt(4);
        } else {
            asOf = before.get(rnd.nextInt(before.size()));
        }
        List<DatumType> outTypes = scenario.plan().types(scenario.types()::get, "");
        List<Integer> key = randomKey(outTypes.size());
        for (WorkerPool pool : pools) {
            ArrangementSharingRegistry registry = new ArrangementSharingRegistry();
            Map<String, Schema> sources = new LinkedHashMap<>();
            Map<String, DataflowDescription.IndexImport> indexes = new LinkedHashMap<>();
            Plan plan = scenario.plan();
            for (String dep : scenario.plan().dependencies()) {
                Schema schema = Schema.ofTypes(scenario.types().get(dep));
                if (viaIndexes) {
                    List<Integer> indexKey = rnd.nextBoolean() ? List.of(0) : randomKey(schema.arity());
                    indexes.put("i_" + dep, new DataflowDescription.IndexImport(dep, indexKey, schema));
                    publishIndex(pool, registry, dep, schema, indexKey, before.isEmpty() ? asOf : before.get(0));
                } else {
                    sources.put(dep, schema);
                }
            }
            if (viaIndexes) {
                String json = PlanJson.write(plan).toString().replaceAll("\"op\":\"get\",\"id\":\"(u[0-9]+)\"", "\"op\":\"get\",\"id\":\"i_$1\"");
                plan = PlanJson.parse(JsonMapper.builder().build().readTree(json), "plan");
            }
            DataflowDescription desc = new DataflowDescription(sources, indexes, List.of(new DataflowDescription.BuildDesc("o1", plan)),
                    List.of(new DataflowDescription.IndexExport("x1", "o1", key)), asOf, null);
            desc.validate();
            Dataflow df = Dataflow.render("x1", desc, new Dataflow.Env(pool, storage, registry, DataflowListener.NONE, System::currentTimeMillis, Dataflow.StepObserver.NONE));
            df.schedule();
            dataflows.add(df);
        }
        for (int i = 3 + rnd.nextInt(6); i > 0; i--) {
            randomChange();
        }
        long last = Math.max(storage.lastWriteTime(), asOf);
        for (Dataflow df : dataflows) {
            try {
                await().pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(1)).atMost(Duration.ofSeconds(20)).until(() -> failed.getAsBoolean() || df.upper().isPast(last));
            } catch (ConditionTimeoutException e) {
                throw new AssertionError("dataflow on " + df.exports().get(0).shards() + " shards stuck at " + df.upper() + " (as_of " + asOf
                        + ", last write " + last + ") for plan " + PlanJson.write(scenario.plan()), e);
            }
        }
    }

    /**
     * Publishes table {@code table} as index {@code i_<table>} on {@code key}, from its own dataflow at
     * {@code baseAsOf}; half the time its compaction is then allowed up to this scenario's {@code as_of}.
     */
    private void publishIndex(WorkerPool pool, ArrangementSharingRegistry registry, String table, Schema schema, List<Integer> key, long baseAsOf) {
        DataflowDescription desc = new DataflowDescription(Map.of(table, schema), Map.of(),
                List.of(new DataflowDescription.BuildDesc("b_" + table, Plan.get(table))),
                List.of(new DataflowDescription.IndexExport("i_" + table, "b_" + table, key)), baseAsOf, null);
        desc.validate();
        Dataflow df = Dataflow.render("i_" + table, desc, new Dataflow.Env(pool, storage, registry, DataflowListener.NONE, System::currentTimeMillis, Dataflow.StepObserver.NONE));
        df.schedule();
        if (rnd.nextBoolean()) {
            df.allowCompaction("i_" + table, Frontier.at(asOf));
        }
        indexDataflows.add(df);
    }

    private List<Integer> randomKey(int arity) {
        List<Integer> key = new ArrayList<>();
        for (int c = 0; c < arity; c++) {
            if (rnd.nextInt(3) == 0) {
                key.add(c);
            }
        }
        return key;
    }

    /** One write of random inserts, duplicates and retractions to a random table; empty if it changed nothing. */
    private Optional<Long> randomChange() {
        List<String> ids = new ArrayList<>(scenario.types().keySet());
        String id = ids.get(rnd.nextInt(ids.size()));
        Map<Row, Long> table = contents.get(id);
        Map<Row, Long> diffs = new HashMap<>();
        for (int n = 1 + rnd.nextInt(4); n > 0; n--) {
            List<Row> present = new ArrayList<>(table.keySet());
            int kind = rnd.nextInt(3);
            if (kind == 0 && !present.isEmpty()) {
                Row r = present.get(rnd.nextInt(present.size()));
                long have = table.get(r) + diffs.getOrDefault(r, 0L);
                if (have > 0) {
                    diffs.merge(r, -(1L + rnd.nextInt((int) Math.min(have, 3))), Long::sum);
                }
            } else if (kind == 1 && !present.isEmpty()) {
                diffs.merge(present.get(rnd.nextInt(present.size())), 1L, Long::sum);
            } else {
                diffs.merge(gen.row(scenario.types().get(id)), 1L + rnd.nextInt(2), Long::sum);
            }
        }
        return write(id, diffs);
    }

    private Optional<Long> write(String id, Map<Row, Long> diffs) {
        diffs.values().removeIf(d -> d == 0);
        if (diffs.isEmpty()) {
            return Optional.empty();
        }
        List<RowDiff> ups = new ArrayList<>();
        diffs.forEach((r, d) -> ups.add(new RowDiff(r, d)));
        long ts = storage.write(id, ups).block();
        diffs.forEach((r, d) -> contents.get(id).merge(r, d, (a, b) -> a + b == 0 ? null : a + b));
        history.add(new Object[] {id, Map.copyOf(diffs), ts});
        times.add(ts);
        return Optional.of(ts);
    }

    /** Whether any write retracted rows (a negative diff). */
    boolean retracted() {
        return history.stream().anyMatch(h -> ((Map<?, ?>) h[1]).values().stream().anyMatch(d -> (Long) d < 0));
    }

    /** Whether any written row holds a NULL. */
    boolean wroteNull() {
        return history.stream().anyMatch(h -> ((Map<?, ?>) h[1]).keySet().stream()
                .anyMatch(r -> java.util.Arrays.asList(((Row) r).unpack()).contains(null)));
    }

    /** The write times at which the dataflows are checked: {@code as_of} and every later write. */
    List<Long> checkedTimes() {
        List<Long> out = new ArrayList<>();
        out.add(asOf);
        for (long t : times) {
            if (t > asOf) {
                out.add(t);
            }
        }
        return out;
    }

    /** Every table's contents at {@code t}. */
    Map<String, Map<Row, Long>> contentsAt(long t) {
        Map<String, Map<Row, Long>> out = new HashMap<>();
        scenario.types().keySet().forEach(id -> out.put(id, new HashMap<>()));
        for (Object[] w : history) {
            if ((Long) w[2] <= t) {
                @SuppressWarnings("unchecked")
                Map<Row, Long> diffs = (Map<Row, Long>) w[1];
                diffs.forEach((r, d) -> out.get((String) w[0]).merge(r, d, (a, b) -> a + b == 0 ? null : a + b));
            }
        }
        return out;
    }

    /** The reference answer at {@code t}. */
    PlanEvaluator.Result expected(long t) {
        return PlanEvaluator.evaluate(scenario.plan(), scenario.types()::get, contentsAt(t));
    }

    /** Dataflow {@code i}'s export at {@code t}. */
    PlanEvaluator.Result actual(int i, long t) {
        return RenderHarness.read(dataflows.get(i).exports().get(0), t);
    }

    @Override
    public void close() {
        dataflows.forEach(Dataflow::drop);
        indexDataflows.forEach(Dataflow::drop);
        storage.close();
    }
}
