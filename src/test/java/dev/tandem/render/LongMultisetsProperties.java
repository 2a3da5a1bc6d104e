package dev.tandem.render;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.SplittableRandom;
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
 * {@link LongMultisets} against a model of one sorted count map per slot, under random insertions and
 * retractions (negative counts included) of values from the whole long range, retractions of each
 * slot's current least and greatest value, runs of hundreds of values into one slot, and slot-table
 * growth; with small blocks, so that splits, merges and the return to one array happen often, and with
 * the default ones. The bytes held stay between the pairs' own size and a bound proportional to the
 * values held, and emptying every slot gives back every byte.
 */
class LongMultisetsProperties {

    private static final int SLOTS = 6;

    /** One step of a random workload on slot {@code slot}. */
    sealed interface Op {
        int slot();

        record Add(int slot, long value, long diff) implements Op {
        }

        /** Values {@code start + i * step} for {@code i < n}, each with count {@code diff}. */
        record Run(int slot, long start, long step, int n, long diff) implements Op {
        }

        /** Retracts the whole count of the slot's least (or greatest) value, if any. */
        record RetractExtreme(int slot, boolean least) implements Op {
        }

        /** Retracts the whole count of one of the slot's values, picked by {@code pick}, if any. */
        record RetractOne(int slot, int pick) implements Op {
        }
    }

    @Provide
    Arbitrary<Integer> blockPairs() {
        return Arbitraries.of(4, 8, LongMultisets.BLOCK_PAIRS);
    }

    @Provide
    Arbitrary<List<Op>> workloads() {
        Arbitrary<Integer> slot = Arbitraries.integers().between(0, SLOTS - 1);
        Arbitrary<Long> value = Arbitraries.frequencyOf(
                Tuple.of(3, Arbitraries.of(Long.MIN_VALUE, Long.MIN_VALUE + 1, -1L, 0L, 1L, Long.MAX_VALUE - 1, Long.MAX_VALUE)),
                Tuple.of(4, Arbitraries.longs().between(-40, 40)),
                Tuple.of(2, Arbitraries.longs()));
        Arbitrary<Long> diff = Arbitraries.longs().between(-3, 3).filter(d -> d != 0);
        Arbitrary<Op> add = Combinators.combine(slot, value, diff).as(Op.Add::new);
        Arbitrary<Op> run = Combinators.combine(slot, value, Arbitraries.of(1L, -1L, 3L, -7L, 1L << 40),
                Arbitraries.integers().between(1, 700), Arbitraries.of(1L, 1L, 2L, -1L)).as(Op.Run::new);
        Arbitrary<Op> extreme = Combinators.combine(slot, Arbitraries.of(true, false)).as(Op.RetractExtreme::new);
        Arbitrary<Op> one = Combinators.combine(slot, Arbitraries.integers().between(0, 1_000_000)).as(Op.RetractOne::new);
        return Arbitraries.frequencyOf(Tuple.of(10, add), Tuple.of(1, run), Tuple.of(4, extreme), Tuple.of(4, one))
                .list().ofMinSize(1).ofMaxSize(150);
    }

    @Property(tries = 400)
    void leastAndGreatestMatchASortedCountMap(@ForAll("blockPairs") int blockPairs, @ForAll("workloads") List<Op> ops) {
        LongMultisets sets = new LongMultisets(blockPairs);
        List<TreeMap<Long, Long>> model = new ArrayList<>();
        int largest = 0;
        for (Op op : ops) {
            while (op.slot() >= model.size()) {
                model.add(new TreeMap<>());
            }
            sets.grow(model.size());
            TreeMap<Long, Long> counts = model.get(op.slot());
            switch (op) {
                case Op.Add a -> add(sets, counts, a.slot(), a.value(), a.diff());
                case Op.Run r -> {
                    for (int i = 0; i < r.n(); i++) {
                        add(sets, counts, r.slot(), r.start() + i * r.step(), r.diff());
                    }
                }
                case Op.RetractExtreme e -> {
                    if (!counts.isEmpty()) {
                        long v = e.least() ? counts.firstKey() : counts.lastKey();
                        add(sets, counts, e.slot(), v, -counts.get(v));
                    }
                }
                case Op.RetractOne o -> {
                    if (!counts.isEmpty()) {
                        long v = new ArrayList<>(counts.keySet()).get(o.pick() % counts.size());
                        add(sets, counts, o.slot(), v, -counts.get(v));
                    }
                }
            }
            long least = 0;
            long most = 0;
            for (int s = 0; s < model.size(); s++) {
                TreeMap<Long, Long> slotCounts = model.get(s);
                check(sets, slotCounts, s);
                largest = Math.max(largest, slotCounts.size());
                least += slotCounts.size() >= 2 ? 16L * slotCounts.size() : 0;
                most += mostBytes(slotCounts.size(), blockPairs);
            }
            assertThat(sets.residentBytes() - emptyBytes(model.size())).as("bytes held").isBetween(least, most);
        }
        Statistics.label("most values in a slot").collect(largest > blockPairs ? "more than a block" : largest >= 2 ? "an array" : "at most one");
        for (int s = 0; s < model.size(); s++) {
            TreeMap<Long, Long> counts = model.get(s);
            for (Map.Entry<Long, Long> e : new ArrayList<>(counts.entrySet())) {
                add(sets, counts, s, e.getKey(), -e.getValue());
            }
            check(sets, counts, s);
        }
        assertThat(sets.residentBytes()).as("empty slots hold nothing but their per-slot arrays").isEqualTo(emptyBytes(model.size()));
    }

    /**
     * A slot through every size: values arriving in ascending, descending and scattered order, then
     * leaving in random order or from either end, while the bytes held stay within the bound.
     */
    @Property(tries = 20)
    void aSlotGrowsIntoManyBlocksAndShrinksBack(@ForAll("blockPairs") int blockPairs, @ForAll long seed) {
        LongMultisets sets = new LongMultisets(blockPairs);
        sets.grow(1);
        TreeMap<Long, Long> counts = new TreeMap<>();
        SplittableRandom rnd = new SplittableRandom(seed);
        for (int i = 0; i < 3_000; i++) {
            long v = switch (i % 3) {
                case 0 -> i;
                case 1 -> -i;
                default -> rnd.nextLong();
            };
            add(sets, counts, 0, v, 1 + rnd.nextInt(2));
        }
        List<Long> leaving = new ArrayList<>(counts.keySet());
        Collections.shuffle(leaving, new Random(seed));
        while (!counts.isEmpty()) {
            long v = switch (rnd.nextInt(6)) {
                case 0 -> counts.firstKey();
                case 1 -> counts.lastKey();
                default -> counts.containsKey(leaving.getLast()) ? leaving.getLast() : counts.firstKey();
            };
            add(sets, counts, 0, v, rnd.nextInt(4) == 0 ? -1 : -counts.get(v));
            if (!counts.containsKey(leaving.getLast())) {
                leaving.removeLast();
            }
            check(sets, counts, 0);
            assertThat(sets.residentBytes() - emptyBytes(1)).as("bytes held by %d values", counts.size())
                    .isLessThanOrEqualTo(mostBytes(counts.size(), blockPairs));
        }
        assertThat(sets.residentBytes()).isEqualTo(emptyBytes(1));
    }

    private static void add(LongMultisets sets, TreeMap<Long, Long> counts, int slot, long value, long diff) {
        sets.add(slot, value, diff);
        long after = counts.getOrDefault(value, 0L) + diff;
        if (after == 0) {
            counts.remove(value);
        } else {
            counts.put(value, after);
        }
    }

    private static void check(LongMultisets sets, TreeMap<Long, Long> counts, int slot) {
        assertThat(sets.isEmpty(slot)).as("slot %d empty", slot).isEqualTo(counts.isEmpty());
        if (!counts.isEmpty()) {
            assertThat(sets.min(slot)).as("slot %d least of %d values", slot, counts.size()).isEqualTo(counts.firstKey());
            assertThat(sets.max(slot)).as("slot %d greatest of %d values", slot, counts.size()).isEqualTo(counts.lastKey());
        }
    }

    /**
     * The most bytes a slot of {@code values} distinct values may hold: none when empty; a pair array of
     * at most four times the values' pairs (or of four pairs); or blocks of which any two neighbours hold
     * more than half a block, so at most 4 × values / block + 1 of them, with an index object and arrays
     * (16 bytes an entry) of at most four entries per block (or four).
     */
    private static long mostBytes(int values, int blockPairs) {
        if (values == 0) {
            return 0;
        }
        long array = 16 + 16L * 4 * Math.max(values, 1);
        long blocks = 4L * values / blockPairs + 1;
        return Math.max(array, blocks * (16 + 16L * blockPairs) + 80 + 16 * 4 * blocks);
    }

    private static long emptyBytes(int slots) {
        LongMultisets fresh = new LongMultisets();
        fresh.grow(slots);
        return fresh.residentBytes();
    }
}
