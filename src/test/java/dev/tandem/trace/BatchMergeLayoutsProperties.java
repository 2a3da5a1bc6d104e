package dev.tandem.trace;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tandem.row.Row;
import dev.tandem.time.Frontier;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.statistics.Statistics;

/**
 * Merges of batches whose keys overlap (so values of one key come from both inputs, are consolidated and
 * cancel), with rows on either side of the one-byte lengths layout's longest row: inputs and outputs in the
 * stride, lengths and offsets layouts, keys stored or prefixes of their values. The merged batch reads back
 * what a naive consolidation of both inputs' updates gives, and its key filter and index find every key.
 * ({@link BatchRowsProperties} merges batches of disjoint keys, one update each.)
 */
class BatchMergeLayoutsProperties {

    record Upd(int key, int keyPad, int valPad, long time, long diff) {
    }

    @Provide
    Arbitrary<List<Upd>> updates() {
        Arbitrary<Integer> pad = Arbitraries.oneOf(Arbitraries.integers().between(0, 3), Arbitraries.integers().between(236, 262));
        return Combinators.combine(Arbitraries.integers().between(0, 40), Arbitraries.of(0, 0, 0, 250, 251, 252, 253),
                pad, Arbitraries.longs().between(0, 3), Arbitraries.longs().between(-2, 2).filter(d -> d != 0))
                .as(Upd::new).list().ofMaxSize(120);
    }

    @Property(tries = 600)
    void mergedBatchesOfOverlappingKeysReadBackTheConsolidatedUpdatesInEveryLayout(@ForAll("updates") List<Upd> first, @ForAll("updates") List<Upd> second,
            @ForAll boolean keysLead, @ForAll boolean shortOnly) {
        if (shortOnly) {
            // every row at most 255 bytes: the lengths layout throughout
            first = first.stream().map(BatchMergeLayoutsProperties::shortened).toList();
            second = second.stream().map(BatchMergeLayoutsProperties::shortened).toList();
        }
        Batch a = build(first, 0, 4, keysLead);
        Batch b = build(second, 4, 8, keysLead);
        assertThat(contents(a)).isEqualTo(model(first, 0, keysLead));
        assertThat(contents(b)).isEqualTo(model(second, 4, keysLead));
        BatchMerger m = new BatchMerger(a, b, Frontier.at(2));
        m.work(Long.MAX_VALUE);
        Map<String, Long> merged = new TreeMap<>(model(first, 0, keysLead));
        model(second, 4, keysLead).forEach((k, d) -> merged.merge(k, d, Long::sum));
        Map<String, Long> expected = new TreeMap<>();
        merged.forEach((k, d) -> {
            int bar = k.lastIndexOf('|');
            long t = Math.max(2, Long.parseLong(k.substring(bar + 1)));
            expected.merge(k.substring(0, bar) + "|" + t, d, Long::sum);
        });
        expected.values().removeIf(d -> d == 0);
        Batch out = m.finish();
        assertThat(contents(out)).isEqualTo(expected);
        Statistics.label("merged values").collect(out.vals.layout());
        Statistics.label("merged keys").collect(out.keys.layout());
        Statistics.label("merged values").coverage(check -> {
            check.check("lengths").count(n -> n > 0);
            check.check("offsets").count(n -> n > 0);
        });
        Statistics.label("merged keys").coverage(check -> {
            check.check("prefixes").count(n -> n > 0);
            check.check("lengths").count(n -> n > 0);
            check.check("offsets").count(n -> n > 0);
        });
        Cursor c = out.cursor();
        while (c.keyValid()) {
            assertThat(out.mayHoldKey(c.key().hash64())).isTrue();
            assertThat(out.findKey(c.key())).isGreaterThanOrEqualTo(0);
            c.stepKey();
        }
    }

    private static Upd shortened(Upd u) {
        return new Upd(u.key(), 0, Math.min(u.valPad(), 238), u.time(), u.diff());
    }

    private static Row key(Upd u) {
        return Row.of((long) u.key(), "k".repeat(u.keyPad()));
    }

    private static Row val(Upd u, boolean keysLead) {
        return keysLead ? Row.of((long) u.key(), "k".repeat(u.keyPad()), "v".repeat(u.valPad())) : Row.of("v".repeat(u.valPad()));
    }

    private static Batch build(List<Upd> ups, long lower, long upper, boolean keysLead) {
        BatchBuilder builder = new BatchBuilder();
        for (Upd u : ups) {
            builder.add(key(u), val(u, keysLead), lower + u.time(), u.diff());
        }
        return builder.build(Frontier.at(lower), Frontier.at(upper), Frontier.at(0));
    }

    private static Map<String, Long> model(List<Upd> ups, long lower, boolean keysLead) {
        Map<String, Long> m = new TreeMap<>();
        for (Upd u : ups) {
            m.merge(key(u) + "|" + val(u, keysLead) + "|" + (lower + u.time()), u.diff(), Long::sum);
        }
        m.values().removeIf(d -> d == 0);
        return m;
    }

    private static Map<String, Long> contents(Batch batch) {
        Map<String, Long> m = new TreeMap<>();
        Cursor c = batch.cursor();
        while (c.keyValid()) {
            String key = c.key().toString();
            c.forEachUpdate((val, time, diff) -> {
                Long old = m.put(key + "|" + val + "|" + time, diff);
                assertThat(old).isNull();
            });
            c.stepKey();
        }
        return m;
    }
}
