package dev.tandem.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tandem.expr.Mfp;
import dev.tandem.protocol.ComputeCommand;
import dev.tandem.protocol.ComputeResponse;
import dev.tandem.protocol.Finishing;
import dev.tandem.row.DatumType;
import dev.tandem.row.Row;
import dev.tandem.row.Schema;
import dev.tandem.sharing.SharedArrangement;
import dev.tandem.time.Frontier;
import dev.tandem.trace.BatchBuilder;
import dev.tandem.trace.Spine;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** Peeks of an arrangement that holds a row of negative multiplicity (older, unchecked data). */
class PeekServerTest {

    @Test
    void aRowOfNegativeMultiplicityIsSkippedNotFatalToEveryRead() {
        Spine oks = new Spine("u1 oks", Frontier.at(0));
        oks.acquireHold("reader", Frontier.at(0));
        BatchBuilder b = new BatchBuilder();
        b.add(Row.of(1L), Row.of(1L, 10L), 0, 1);
        b.add(Row.of(2L), Row.of(2L, 20L), 0, -1);
        b.add(Row.of(3L), Row.of(3L, 30L), 0, 2);
        oks.insert(b.build(Frontier.at(0), Frontier.at(5), Frontier.at(0)));
        Spine errs = new Spine("u1 errs", Frontier.at(0));
        errs.acquireHold("reader", Frontier.at(0));
        errs.insert(new BatchBuilder().build(Frontier.at(0), Frontier.at(5), Frontier.at(0)));
        SharedArrangement arr = new SharedArrangement("u1", Schema.ofTypes(List.of(DatumType.INT64, DatumType.INT64)), List.of(0),
                List.of(oks), List.of(errs));

        ComputeResponse.PeekResult scan = PeekServer.answer(new ComputeCommand.Peek(UUID.randomUUID(), "u1", 4, null, Mfp.identity(),
                Finishing.NONE, null), arr, 100, "solo", true);
        assertThat(scan).isInstanceOf(ComputeResponse.Rows.class);
        assertThat(((ComputeResponse.Rows) scan).rows()).containsExactly(Row.of(1L, 10L), Row.of(3L, 30L), Row.of(3L, 30L));

        ComputeResponse.PeekResult lookup = PeekServer.answer(new ComputeCommand.Peek(UUID.randomUUID(), "u1", 4, List.of(Row.of(2L)),
                Mfp.identity(), Finishing.NONE, null), arr, 100, "solo", true);
        assertThat(((ComputeResponse.Rows) lookup).rows()).isEmpty();
    }
}
