package dev.tandem.trace;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tandem.row.Row;
import dev.tandem.time.Frontier;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.statistics.Statistics;

/**
 * Batches whose keys are, all or some or none, the leading datums of their values read back, seek and look
 * up what a naive model of their updates gives, whichever key layout they get (keys shared with the values
 * or stored apart), and so do merges of batches of either layout with each other in both orders; and each
 * batch gets the shared layout exactly when every key of it is the leading datums of its first value, all
 * keys with the same number of datums.
 *
 * <p>The model knows nothing of encodings: keys and values are lists of datums (all int64s or all strings
 * in one case), ordered column by column, a shorter list before the longer lists it begins.
 */
class BatchKeyLayoutProperties {

    /** Which columns of an update's source row {@code (a, b, c)} make its key. */
    enum KeyForm {
        LEAD(0), LEAD_TWO(0, 1), WHOLE(0, 1, 2), NONE(), THIRD(2), SWAPPED(1, 0);

        final int[] columns;

        KeyForm(int... columns) {
            this.columns = columns;
        }

        List<Object> key(List<Object> source) {
            return Arrays.stream(columns).mapToObj(source::get).toList();
        }
    }

    /** An update keyed by {@code form} of {@code source}, whose value is mostly the source row itself. */
    record Upd(List<Object> source, KeyForm form, List<Object> val, long time, long diff) {
        List<Object> key() {
            return form.key(source);
        }
    }

    /** The updates of two batches, their datums all strings or all int64s. */
    record Case(List<Upd> first, List<Upd> second) {
    }

    @SuppressWarnings("unchecked")
    private static final Comparator<List<Object>> ORDER = (x, y) -> {
        for (int i = 0; i < Math.min(x.size(), y.size()); i++) {
            int c = ((Comparable<Object>) x.get(i)).compareTo(y.get(i));
            if (c != 0) {
                return c;
            }
        }
        return Integer.compare(x.size(), y.size());
    };

    @Provide
    Arbitrary<Case> cases() {
        return Arbitraries.of(true, false).flatMap(strings -> {
            Arbitrary<Object> datum = strings
                    ? Arbitraries.strings().withChars("ab\u0000").ofMaxLength(3).map(s -> (Object) s)
                    // small and large magnitudes, so that int64 encodings differ in length
                    : Arbitraries.oneOf(Arbitraries.longs().between(-3, 3),
                            Arbitraries.longs().between(-3, 3).map(x -> x * 1_000_000_007L)).map(x -> (Object) x);
            Arbitrary<List<Object>> row = datum.list().ofSize(3);
            Arbitrary<List<Upd>> batch = Arbitraries.of(KeyForm.class).flatMap(main -> {
                // most keys take the batch's form, a few another, so that one key may spoil a shared layout
                Arbitrary<KeyForm> form = Arbitraries.frequencyOf(Tuple.of(15, Arbitraries.just(main)),
                        Tuple.of(1, Arbitraries.of(KeyForm.class)));
                // mostly the source row; sometimes another row or the empty row, which no key but NONE leads
                Arbitrary<Value> value = Arbitraries.frequencyOf(Tuple.of(15, Arbitraries.just(Value.SOURCE)),
                        Tuple.of(1, Arbitraries.just(Value.OTHER)), Tuple.of(1, Arbitraries.just(Value.EMPTY)));
                return Combinators.combine(row, form, value, row, Arbitraries.longs().between(0, 3),
                        Arbitraries.longs().between(-2, 2).filter(d -> d != 0))
                        .as((source, f, v, other, time, diff) -> new Upd(source, f,
                                v == Value.SOURCE ? source : v == Value.OTHER ? other : List.of(), time, diff))
                        .list().ofMaxSize(40);
            });
            return Combinators.combine(batch, batch).as(Case::new);
        });
    }

    /** Which row an update's value is. */
    private enum Value { SOURCE, OTHER, EMPTY }

    @Property(tries = 400)
    void eitherLayoutReadsBackSeeksAndLooksUpAsTheModel(@ForAll("cases") Case c) {
        List<List<Object>> probes = probes(c);
        Batch a = build(c.first(), 0, 4);
        Batch b = build(c.second(), 4, 8);
        Model ma = Model.of(c.first(), 0, 0);
        Model mb = Model.of(c.second(), 4, 0);
        assertMatches(a, ma, probes, 0, 4);
        assertMatches(b, mb, probes, 4, 8);
        assertMatches(written(ma), ma, probes, 0, 4);

        Batch merged = merge(a, b);
        Model mm = Model.of(c.first(), 0, 2).plus(Model.of(c.second(), 4, 2));
        assertMatches(merged, mm, probes, 2, 8);

        // the same updates with the batches' roles swapped: the other layout is now the older
        Batch a2 = build(c.second(), 0, 4);
        Batch b2 = build(c.first(), 4, 8);
        Batch merged2 = merge(a2, b2);
        assertMatches(merged2, Model.of(c.second(), 0, 2).plus(Model.of(c.first(), 4, 2)), probes, 2, 8);

        Statistics.label("older, newer shared").collect(a.keys.arePrefixes(), b.keys.arePrefixes());
        Statistics.label("older, newer shared").coverage(check -> {
            check.check(true, true).count(n -> n > 0);
            check.check(true, false).count(n -> n > 0);
            check.check(false, true).count(n -> n > 0);
            check.check(false, false).count(n -> n > 0);
        });
        Statistics.label("merged shared").collect(merged.keys.arePrefixes(), merged.keyCount() > 0);
        Statistics.label("merged shared").coverage(check -> {
            check.check(true, true).count(n -> n > 0);
            check.check(false, true).count(n -> n > 0);
        });
    }

    /** The updates of {@code ups} built into the batch {@code [lower, upper)}. */
    private static Batch build(List<Upd> ups, long lower, long upper) {
        BatchBuilder builder = new BatchBuilder();
        for (Upd u : ups) {
            builder.add(row(u.key()), row(u.val()), lower + u.time(), u.diff());
        }
        return builder.build(Frontier.at(lower), Frontier.at(upper), Frontier.at(0));
    }

    /** The model's updates pushed as rows, in order, into a writer of default size. */
    private static Batch written(Model m) {
        BatchWriter w = new BatchWriter();
        m.forEach((key, val, time, diff) -> w.push(row(key), row(val), time, diff));
        return w.finish(Frontier.at(0), Frontier.at(4), Frontier.at(0));
    }

    /** {@code older} and {@code newer} merged with times advanced to 2, a few updates of work at a time. */
    private static Batch merge(Batch older, Batch newer) {
        BatchMerger m = new BatchMerger(older, newer, Frontier.at(2));
        while (!m.done()) {
            m.work(3);
        }
        return m.finish();
    }

    /** Every key any form makes of any row of the case, held or not. */
    private static List<List<Object>> probes(Case c) {
        List<List<Object>> probes = new ArrayList<>();
        for (List<Upd> ups : List.of(c.first(), c.second())) {
            for (Upd u : ups) {
                for (KeyForm f : KeyForm.values()) {
                    probes.add(f.key(u.source()));
                    if (u.val().size() == 3) {
                        probes.add(f.key(u.val()));
                    }
                }
            }
        }
        return probes;
    }

    private static void assertMatches(Batch batch, Model model, List<List<Object>> probes, long lower, long upper) {
        assertThat(batch.keys.arePrefixes()).as("shared layout").isEqualTo(model.keysLeadTheirFirstValues());
        assertThat(batch.keyCount()).isEqualTo(model.updates.size());

        List<String> read = new ArrayList<>();
        Cursor cursor = batch.cursor();
        while (cursor.keyValid()) {
            List<Object> key = List.of(cursor.key().unpack());
            cursor.forEachUpdate((val, time, diff) -> read.add(text(key, List.of(val.unpack()), time, diff)));
            cursor.stepKey();
        }
        List<String> expected = new ArrayList<>();
        model.forEach((key, val, time, diff) -> expected.add(text(key, val, time, diff)));
        assertThat(read).isEqualTo(expected);

        for (List<Object> probe : probes) {
            Row p = row(probe);
            Cursor seek = batch.cursor();
            seek.seekKey(p);
            List<Object> ceiling = model.updates.ceilingKey(probe);
            assertThat(seek.keyValid()).as("seek %s", probe).isEqualTo(ceiling != null);
            if (ceiling != null) {
                assertThat(List.of(seek.key().unpack())).as("seek %s", probe).isEqualTo(ceiling);
            }
            int k = batch.findKey(p);
            assertThat(k >= 0).as("find %s", probe).isEqualTo(model.updates.containsKey(probe));
            if (k >= 0) {
                assertThat(batch.mayHoldKey(p.hash64())).isTrue();
                for (long t = lower; t < upper; t++) {
                    List<String> found = new ArrayList<>();
                    batch.accumulate(k, t, (val, diff) -> found.add(List.of(val.unpack()) + " " + diff));
                    assertThat(found).as("lookup %s at %d", probe, t).isEqualTo(model.accumulated(probe, t));
                }
            }
        }
    }

    private static String text(List<Object> key, List<Object> val, long time, long diff) {
        return key + " " + val + " @" + time + " " + diff;
    }

    private static Row row(List<Object> datums) {
        return Row.of(datums.toArray());
    }

    /** Consolidated updates: key to value to time to a non-zero diff, in the datums' order. */
    record Model(TreeMap<List<Object>, TreeMap<List<Object>, TreeMap<Long, Long>>> updates) {

        interface Update {
            void accept(List<Object> key, List<Object> val, long time, long diff);
        }

        /** {@code ups} at {@code lower} plus their times, advanced to {@code since}. */
        static Model of(List<Upd> ups, long lower, long since) {
            Model m = new Model(new TreeMap<>(ORDER));
            for (Upd u : ups) {
                m.add(u.key(), u.val(), Math.max(since, lower + u.time()), u.diff());
            }
            return m.consolidated();
        }

        Model plus(Model other) {
            other.forEach(this::add);
            return consolidated();
        }

        private void add(List<Object> key, List<Object> val, long time, long diff) {
            updates.computeIfAbsent(key, k -> new TreeMap<>(ORDER)).computeIfAbsent(val, v -> new TreeMap<>())
                    .merge(time, diff, Long::sum);
        }

        private Model consolidated() {
            for (Map<List<Object>, TreeMap<Long, Long>> vals : updates.values()) {
                for (Map<Long, Long> times : vals.values()) {
                    times.values().removeIf(d -> d == 0);
                }
                vals.values().removeIf(Map::isEmpty);
            }
            updates.values().removeIf(Map::isEmpty);
            return this;
        }

        void forEach(Update out) {
            updates.forEach((key, vals) -> vals.forEach((val, times) ->
                    times.forEach((t, d) -> out.accept(key, val, t, d))));
        }

        /** Each value of {@code key} with its diffs summed over times {@code <= t}, zero sums left out. */
        List<String> accumulated(List<Object> key, long t) {
            List<String> out = new ArrayList<>();
            updates.get(key).forEach((val, times) -> {
                long sum = times.headMap(t, true).values().stream().mapToLong(Long::longValue).sum();
                if (sum != 0) {
                    out.add(val + " " + sum);
                }
            });
            return out;
        }

        /** Whether every key is the leading datums of its first value, all keys with as many datums. */
        boolean keysLeadTheirFirstValues() {
            int arity = updates.isEmpty() ? 0 : updates.firstKey().size();
            for (Map.Entry<List<Object>, TreeMap<List<Object>, TreeMap<Long, Long>>> e : updates.entrySet()) {
                List<Object> key = e.getKey();
                List<Object> first = e.getValue().firstKey();
                if (key.size() != arity || first.size() < arity || !first.subList(0, arity).equals(key)) {
                    return false;
                }
            }
            return true;
        }
    }
}
