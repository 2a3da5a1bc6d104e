package dev.tandem.trace;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tandem.row.Row;
import dev.tandem.time.Frontier;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/** The spine against a naive multiset model, under random inserts, merges, holds and compaction. */
class SpineProperties {

    record Upd(long key, long val, int dt, long diff) {
    }

    /** One step of a random workload. */
    sealed interface Op {
        record Insert(List<Upd> updates, int width) implements Op {
        }

        record AcquireHold(int behind) implements Op {
        }

        record Downgrade(int which, int ahead) implements Op {
        }

        record Release(int which) implements Op {
        }

        record Work(int fuel) implements Op {
        }

        record CompactFully() implements Op {
        }

        /** A bounded step of full compaction, as log compaction takes them between releases of the storage lock. */
        record CompactStep(int fuel) implements Op {
        }
    }

    @Provide
    Arbitrary<List<Op>> workloads() {
        Arbitrary<Upd> upd = Combinators.combine(
                Arbitraries.longs().between(0, 6), Arbitraries.longs().between(0, 3),
                Arbitraries.integers().between(0, 3), Arbitraries.longs().between(-2, 2).filter(d -> d != 0))
                .as(Upd::new);
        Arbitrary<Op> insert = Combinators.combine(upd.list().ofMaxSize(25), Arbitraries.integers().between(1, 4))
                .as((u, w) -> new Op.Insert(u.stream().map(x -> new Upd(x.key, x.val, Math.min(x.dt, w - 1), x.diff)).toList(), w));
        Arbitrary<Op> op = Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(8, insert),
                net.jqwik.api.Tuple.of(2, Arbitraries.integers().between(0, 6).map(Op.AcquireHold::new)),
                net.jqwik.api.Tuple.of(2, Combinators.combine(Arbitraries.integers().between(0, 5), Arbitraries.integers().between(0, 4)).as(Op.Downgrade::new)),
                net.jqwik.api.Tuple.of(1, Arbitraries.integers().between(0, 5).map(Op.Release::new)),
                net.jqwik.api.Tuple.of(2, Arbitraries.integers().between(1, 200).map(Op.Work::new)),
                net.jqwik.api.Tuple.of(1, Arbitraries.just(new Op.CompactFully())),
                net.jqwik.api.Tuple.of(2, Arbitraries.integers().between(1, 40).map(Op.CompactStep::new)));
        return op.list().ofMinSize(1).ofMaxSize(40);
    }

    @Property(tries = 400)
    void accumulationsMatchTheModelAtEveryReadableTime(@ForAll("workloads") List<Op> ops) {
        Spine spine = new Spine("test", Frontier.at(0));
        List<Upd> applied = new ArrayList<>();
        List<Long> appliedTimes = new ArrayList<>();
        List<ReadHold> live = new ArrayList<>();
        ReadHold anchor = spine.acquireHold("anchor", Frontier.at(0));
        List<TraceSnapshot> older = new ArrayList<>();
        long now = 0;
        int step = 0;
        for (Op op : ops) {
            switch (op) {
                case Op.Insert ins -> {
                    BatchBuilder b = new BatchBuilder();
                    for (Upd u : ins.updates()) {
                        b.add(Row.of(u.key()), Row.of(u.val()), now + u.dt(), u.diff());
                        applied.add(u);
                        appliedTimes.add(now + u.dt());
                    }
                    spine.insert(b.build(Frontier.at(now), Frontier.at(now + ins.width()), spine.since()));
                    now += ins.width();
                }
                case Op.AcquireHold h -> live.add(spine.acquireHold("h", Frontier.at(Math.max(0, now - h.behind()))));
                case Op.Downgrade d -> {
                    if (!live.isEmpty()) {
                        ReadHold h = live.get(d.which() % live.size());
                        Frontier before = h.frontier();
                        h.downgrade(Frontier.at(before.time() + d.ahead() - 2));
                        assertThat(h.frontier()).isEqualTo(before.join(Frontier.at(before.time() + d.ahead() - 2)));
                    }
                }
                case Op.Release r -> {
                    if (!live.isEmpty()) {
                        live.remove(r.which() % live.size()).release();
                    }
                }
                case Op.Work w -> spine.work(w.fuel());
                case Op.CompactFully c -> spine.compactFully();
                case Op.CompactStep c -> spine.compactStep(c.fuel(), spine.since());
            }
            // Let the anchor trail slowly so compaction happens but some history stays readable.
            if (++step % 5 == 0) {
                anchor.downgrade(Frontier.at(Math.max(0, now - 3)));
            }
            spine.advanceUpper(Frontier.at(now));
            TraceSnapshot snap = spine.snapshot();
            Frontier meet = anchor.frontier();
            for (ReadHold h : live) {
                meet = meet.meet(h.frontier());
            }
            assertThat(snap.since().compareTo(meet)).as("since never passes a hold").isLessThanOrEqualTo(0);
            checkAgainstModel(snap, applied, appliedTimes);
            older.add(snap);
        }
        // Snapshots taken before later merges and compactions still read exactly as they did.
        for (TraceSnapshot s : older) {
            checkAgainstModel(s, applied, appliedTimes);
        }
    }

    private static void checkAgainstModel(TraceSnapshot snap, List<Upd> applied, List<Long> times) {
        if (snap.since().isEmpty() || snap.upper().isEmpty()) {
            return;
        }
        for (long t = snap.since().time(); t < snap.upper().time(); t++) {
            Map<List<Long>, Long> model = new HashMap<>();
            for (int i = 0; i < applied.size(); i++) {
                if (times.get(i) <= t) {
                    Upd u = applied.get(i);
                    model.merge(List.of(u.key(), u.val()), u.diff(), Long::sum);
                }
            }
            model.values().removeIf(d -> d == 0);
            Map<List<Long>, Long> actual = new HashMap<>();
            snap.scan(t, (k, v, d) -> actual.merge(List.of((Long) k.get(0), (Long) v.get(0)), d, Long::sum));
            assertThat(actual).as("scan at %d", t).isEqualTo(model);
            for (long key = 0; key <= 6; key++) {
                Map<List<Long>, Long> seek = new HashMap<>();
                long k = key;
                snap.lookup(Row.of(key), t, (v, d) -> seek.put(List.of(k, (Long) v.get(0)), d));
                Map<List<Long>, Long> filtered = new HashMap<>();
                model.forEach((kv, d) -> {
                    if (kv.get(0) == k) {
                        filtered.put(kv, d);
                    }
                });
                assertThat(seek).as("seek %d at %d", key, t).isEqualTo(filtered);
            }
        }
    }

    @Property(tries = 100)
    void withoutHoldsTheTraceCompactsFreelyToDistinctPairs(@ForAll("workloads") List<Op> ops) {
        Spine spine = new Spine("free", Frontier.at(0));
        Map<List<Long>, Long> total = new HashMap<>();
        long now = 0;
        for (Op op : ops) {
            if (op instanceof Op.Insert ins) {
                BatchBuilder b = new BatchBuilder();
                for (Upd u : ins.updates()) {
                    b.add(Row.of(u.key()), Row.of(u.val()), now + u.dt(), u.diff());
                    total.merge(List.of(u.key(), u.val()), u.diff(), Long::sum);
                }
                spine.insert(b.build(Frontier.at(now), Frontier.at(now + ins.width()), spine.since()));
                now += ins.width();
            }
        }
        spine.compactFully();
        assertThat(spine.since()).isEqualTo(spine.upper());
        total.values().removeIf(d -> d == 0);
        assertThat(spine.snapshot().records()).isEqualTo(total.size());
        assertThat(spine.snapshot().batches().size()).isLessThanOrEqualTo(1);
    }

    @Property(tries = 200)
    void compactionInSmallStepsEndsWhereFullCompactionDoes(@ForAll("workloads") List<Op> ops) {
        Spine stepped = new Spine("stepped", Frontier.at(0));
        Spine full = new Spine("full", Frontier.at(0));
        long now = 0;
        for (Op op : ops) {
            if (op instanceof Op.Insert ins) {
                for (Spine spine : List.of(stepped, full)) {
                    BatchBuilder b = new BatchBuilder();
                    for (Upd u : ins.updates()) {
                        b.add(Row.of(u.key()), Row.of(u.val()), now + u.dt(), u.diff());
                    }
                    spine.insert(b.build(Frontier.at(now), Frontier.at(now + ins.width()), spine.since()));
                }
                now += ins.width();
            }
        }
        int steps = 0;
        Frontier target = stepped.since();
        while (stepped.compactStep(3, target)) {
            steps++;
            assertThat(steps).as("compaction in steps terminates").isLessThan(100_000);
        }
        full.compactFully();
        assertThat(stepped.snapshot().batches()).hasSameSizeAs(full.snapshot().batches());
        assertThat(stepped.snapshot().records()).isEqualTo(full.snapshot().records());
        assertThat(stepped.since()).isEqualTo(full.since());
        assertThat(updates(stepped.snapshot())).isEqualTo(updates(full.snapshot()));
    }

    /** Every (key, val, time, diff) of {@code snap}, sorted, as text. */
    private static List<String> updates(TraceSnapshot snap) {
        List<String> out = new ArrayList<>();
        Cursor c = snap.cursor();
        while (c.keyValid()) {
            Row key = c.key();
            c.forEachUpdate((val, time, diff) -> out.add(key + " " + val + " " + time + " " + diff));
            c.stepKey();
        }
        out.sort(null);
        return out;
    }

    @Property(tries = 200)
    void holdsComposeByMeetAndMoveOnlyForward(@ForAll("frontiers") List<Long> frontiers, @ForAll("frontiers") List<Long> later) {
        Spine spine = new Spine("holds", Frontier.at(0));
        List<ReadHold> holds = new ArrayList<>();
        for (long f : frontiers) {
            holds.add(spine.acquireHold("h", Frontier.at(f)));
        }
        for (int i = 0; i < holds.size() && i < later.size(); i++) {
            holds.get(i).downgrade(Frontier.at(later.get(i)));
        }
        spine.advanceUpper(Frontier.at(1001));
        Frontier expected = Frontier.at(1001);
        for (int i = 0; i < holds.size(); i++) {
            long f = frontiers.get(i);
            long g = i < later.size() ? Math.max(f, later.get(i)) : f;
            expected = expected.meet(Frontier.at(g));
            assertThat(holds.get(i).frontier()).isEqualTo(Frontier.at(g));
        }
        assertThat(spine.since()).isEqualTo(expected);
        ReadHold late = spine.acquireHold("late", Frontier.at(0));
        assertThat(late.frontier()).as("a hold behind since starts at since").isEqualTo(spine.since());
        late.release();
        holds.forEach(ReadHold::release);
        spine.advanceUpper(Frontier.at(1002));
        assertThat(spine.since()).isEqualTo(Frontier.at(1002));
    }

    @Provide
    Arbitrary<List<Long>> frontiers() {
        return Arbitraries.longs().between(0, 900).list().ofMaxSize(6);
    }
}
