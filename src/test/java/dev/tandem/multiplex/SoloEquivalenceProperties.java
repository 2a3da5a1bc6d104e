package dev.tandem.multiplex;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tandem.expr.Expr;
import dev.tandem.expr.Mfp;
import dev.tandem.plan.Plan;
import dev.tandem.protocol.ComputeCommand;
import dev.tandem.protocol.ComputeResponse;
import dev.tandem.protocol.Finishing;
import dev.tandem.row.Row;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;

/** For random data and random peeks, SOLO and two-runtime mode give identical answers. */
class SoloEquivalenceProperties {

    static ComputeTesting solo;
    static ComputeTesting two;
    static final AtomicInteger ids = new AtomicInteger(100);

    @BeforeContainer
    static void start() {
        solo = new ComputeTesting(false);
        two = new ComputeTesting(true);
    }

    @AfterContainer
    static void stop() {
        solo.close();
        two.close();
    }

    /** One random peek: literal keys or a scan, a filter, an order and a limit. */
    record PeekSpec(List<Long> keys, Long minValue, boolean desc, Long limit, long offset) {
    }

    @Provide
    Arbitrary<List<List<Long>>> data() {
        return Combinators.combine(Arbitraries.longs().between(0, 20), Arbitraries.longs().between(-50, 50))
                .as((k, v) -> List.of(k, v)).list().ofMaxSize(60);
    }

    @Provide
    Arbitrary<List<PeekSpec>> peeks() {
        Arbitrary<List<Long>> keys = Arbitraries.longs().between(0, 22).list().ofMaxSize(4).injectNull(0.4);
        return Combinators.combine(keys, Arbitraries.longs().between(-50, 50).injectNull(0.5), Arbitraries.of(true, false),
                Arbitraries.longs().between(0, 10).injectNull(0.5), Arbitraries.longs().between(0, 3))
                .as(PeekSpec::new).list().ofMinSize(1).ofMaxSize(6);
    }

    @Property(tries = 25)
    void soloAndTwoRuntimesAnswerIdentically(@ForAll("data") List<List<Long>> data, @ForAll("peeks") List<PeekSpec> peeks) {
        String table = "u" + ids.incrementAndGet();
        String index = "u" + ids.incrementAndGet();
        assertThat(answers(solo, table, index, data, peeks)).isEqualTo(answers(two, table, index, data, peeks));
    }

    private static List<Object> answers(ComputeTesting c, String table, String index, List<List<Long>> data, List<PeekSpec> peeks) {
        c.storage.createTable(table, ComputeTesting.KV);
        Row[] rows = data.stream().map(d -> Row.of(d.get(0), d.get(1))).toArray(Row[]::new);
        long t = c.write(table, rows);
        c.mux.send(new ComputeCommand.CreateDataflow(ComputeTesting.index(table, index, t)));
        c.mux.send(new ComputeCommand.Schedule(index));
        List<Object> out = new ArrayList<>();
        for (PeekSpec p : peeks) {
            List<Expr> filter = p.minValue() == null ? List.of() : List.of(Expr.call(dev.tandem.expr.Func.GTE, Expr.col(1), Expr.lit(p.minValue(), dev.tandem.row.DatumType.INT64)));
            Finishing fin = new Finishing(List.of(new Plan.Ordering(1, p.desc(), true)), p.limit(), p.offset());
            List<Row> keys = p.keys() == null ? null : p.keys().stream().map(Row::of).toList();
            UUID uuid = UUID.randomUUID();
            c.mux.send(new ComputeCommand.Peek(uuid, index, t, keys, new Mfp(List.of(), filter, null), fin, null));
            ComputeResponse.PeekResult r = c.awaitPeek(uuid);
            out.add(r instanceof ComputeResponse.Rows rr ? rr.rows() : r);
        }
        return out;
    }
}
