package dev.tandem.multiplex;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tandem.plan.DataflowDescription;
import dev.tandem.protocol.ComputeCommand;
import dev.tandem.protocol.ComputeResponse;
import dev.tandem.row.Row;
import dev.tandem.time.Frontier;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The compute replica end to end through the multiplexer, in SOLO and in two-runtime mode. */
class MultiplexerTest {

    @ParameterizedTest(name = "two runtimes: {0}")
    @ValueSource(booleans = {false, true})
    void createsAnIndexAndAnswersPeeks(boolean twoRuntimes) {
        try (ComputeTesting c = new ComputeTesting(twoRuntimes)) {
            c.storage.createTable("u1", ComputeTesting.KV);
            long t1 = c.write("u1", Row.of(1L, 10L), Row.of(2L, 20L), Row.of(3L, 30L));
            c.mux.send(new ComputeCommand.CreateDataflow(ComputeTesting.index("u1", "u2", t1)));
            c.mux.send(new ComputeCommand.Schedule("u2"));
            UUID scan = c.peek("u2", t1, null);
            UUID point = c.peek("u2", t1, List.of(Row.of(2L)));
            ComputeResponse.PeekResult all = c.awaitPeek(scan);
            assertThat(all).isInstanceOf(ComputeResponse.Rows.class);
            assertThat(((ComputeResponse.Rows) all).rows()).containsExactly(Row.of(1L, 10L), Row.of(2L, 20L), Row.of(3L, 30L));
            assertThat(((ComputeResponse.Rows) all).info().runtime()).isEqualTo(twoRuntimes ? "interactive" : "solo");
            assertThat(((ComputeResponse.Rows) c.awaitPeek(point)).rows()).containsExactly(Row.of(2L, 20L));

            long t2 = c.write("u1", Row.of(4L, 40L));
            UUID later = c.peek("u2", t2, List.of(Row.of(4L)));
            assertThat(((ComputeResponse.Rows) c.awaitPeek(later)).rows()).containsExactly(Row.of(4L, 40L));

            UUID unknown = c.peek("u404", t2, null);
            assertThat(c.awaitPeek(unknown)).isEqualTo(new ComputeResponse.Error(ComputeResponse.ErrorKind.UNKNOWN_COLLECTION, "unknown collection u404"));

            c.mux.send(new ComputeCommand.AllowCompaction("u2", Frontier.EMPTY));
            c.awaitResponse(r -> r instanceof ComputeResponse.Frontiers f && f.id().equals("u2") && f.writeFrontier().isEmpty());
            assertThat(c.count(r -> r instanceof ComputeResponse.Frontiers f && f.id().equals("u2") && f.writeFrontier().isEmpty())).isEqualTo(1);
            assertThat(c.fatal).isEmpty();
        }
    }

    @ParameterizedTest(name = "two runtimes: {0}")
    @ValueSource(booleans = {false, true})
    void frontiersReportTheRealInputFrontierAndPeeksTheRealHydration(boolean twoRuntimes) {
        try (ComputeTesting c = new ComputeTesting(twoRuntimes)) {
            c.storage.createTable("u1", ComputeTesting.KV);
            long t1 = c.write("u1", Row.of(1L, 10L));
            org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(20)).until(() -> c.storage.upper("u1").time() > t1 + 50);
            DataflowDescription bounded = ComputeTesting.index("u1", "t9", t1);
            c.mux.send(new ComputeCommand.CreateDataflow(new DataflowDescription(bounded.sourceImports(), bounded.indexImports(),
                    bounded.objectsToBuild(), bounded.indexExports(), t1, t1 + 1)));
            c.mux.send(new ComputeCommand.Schedule("t9"));
            ComputeResponse.Frontiers f = (ComputeResponse.Frontiers) c.awaitResponse(r -> r instanceof ComputeResponse.Frontiers x
                    && x.id().equals("t9") && x.writeFrontier().equals(Frontier.at(t1 + 1)));
            assertThat(f.inputFrontier().time()).as("the table input is far ahead of the bounded output").isGreaterThan(t1 + 50);

            UUID peek = c.peek("t9", t1, null);
            ComputeResponse.Rows rows = (ComputeResponse.Rows) c.awaitPeek(peek);
            assertThat(rows.info().hydrated()).isTrue();
            assertThat(c.fatal).isEmpty();
        }
    }
}
