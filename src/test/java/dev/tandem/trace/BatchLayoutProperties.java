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

/**
 * Batches of variable-width rows (strings of mixed lengths, including the empty row, and keys whose
 * leading bytes tie) built and merged read back exactly what a naive consolidation of their updates
 * gives, whatever mix of fixed and variable widths the packed columns see.
 */
class BatchLayoutProperties {

    record Upd(String key, String val, long time, long diff) {
    }

    @Provide
    Arbitrary<List<Upd>> updates() {
        Arbitrary<String> text = Arbitraries.strings().withChars("ab\u0000\u00e9").ofMaxLength(4);
        Arbitrary<String> val = Arbitraries.oneOf(text, Arbitraries.just(""));
        // keys sharing a long prefix tie on their order prefix and must be sorted in full
        Arbitrary<String> key = Arbitraries.oneOf(text, text.map(t -> "shared-prefix/" + t));
        return Combinators.combine(key, val, Arbitraries.longs().between(0, 3),
                Arbitraries.longs().between(-2, 2).filter(d -> d != 0)).as(Upd::new).list().ofMaxSize(60);
    }

    @Property(tries = 300)
    void builtAndMergedBatchesReadBackTheConsolidatedUpdates(@ForAll("updates") List<Upd> first,
            @ForAll("updates") List<Upd> second) {
        Batch a = build(first, 0, 4);
        Batch b = build(second, 4, 8);
        assertThat(contents(a)).isEqualTo(model(first, 0));
        assertThat(contents(b)).isEqualTo(model(second, 4));

        BatchMerger m = new BatchMerger(a, b, Frontier.at(2));
        m.work(Long.MAX_VALUE);
        Map<String, Long> merged = new TreeMap<>(model(first, 0));
        model(second, 4).forEach((k, d) -> merged.merge(k, d, Long::sum));
        Map<String, Long> expected = new TreeMap<>();
        merged.forEach((k, d) -> {
            String[] parts = k.split("\\|", -1);
            long t = Math.max(2, Long.parseLong(parts[2]));
            expected.merge(parts[0] + "|" + parts[1] + "|" + t, d, Long::sum);
        });
        expected.values().removeIf(d -> d == 0);
        assertThat(contents(m.finish())).isEqualTo(expected);
    }

    private static Batch build(List<Upd> ups, long lower, long upper) {
        BatchBuilder builder = new BatchBuilder();
        for (Upd u : ups) {
            builder.add(row(u.key()), row(u.val()), lower + u.time(), u.diff());
        }
        return builder.build(Frontier.at(lower), Frontier.at(upper), Frontier.at(0));
    }

    private static Row row(String s) {
        return s.isEmpty() ? Row.EMPTY : Row.of(s);
    }

    private static String text(Row r) {
        return r.byteSize() == 0 ? "" : (String) r.get(0);
    }

    private static Map<String, Long> model(List<Upd> ups, long lower) {
        Map<String, Long> m = new TreeMap<>();
        for (Upd u : ups) {
            m.merge(u.key() + "|" + u.val() + "|" + (lower + u.time()), u.diff(), Long::sum);
        }
        m.values().removeIf(d -> d == 0);
        return m;
    }

    private static Map<String, Long> contents(Batch batch) {
        Map<String, Long> m = new TreeMap<>();
        Cursor c = batch.cursor();
        while (c.keyValid()) {
            String key = text(c.key());
            c.forEachUpdate((val, time, diff) -> {
                Long old = m.put(key + "|" + text(val) + "|" + time, diff);
                assertThat(old).as("repeated (key, val, time)").isNull();
            });
            c.stepKey();
        }
        return m;
    }
}
