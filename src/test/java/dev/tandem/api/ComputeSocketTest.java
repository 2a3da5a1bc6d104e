package dev.tandem.api;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tandem.controller.Controller;
import dev.tandem.expr.Mfp;
import dev.tandem.plan.DataflowDescription;
import dev.tandem.plan.Plan;
import dev.tandem.protocol.ComputeCommand;
import dev.tandem.protocol.ComputeParameters;
import dev.tandem.protocol.ComputeResponse;
import dev.tandem.protocol.Finishing;
import dev.tandem.protocol.ProtocolJson;
import dev.tandem.row.DatumType;
import dev.tandem.row.Row;
import dev.tandem.row.Schema;
import dev.tandem.storage.RowDiff;
import dev.tandem.storage.TableStorage;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.web.reactive.socket.CloseStatus;

/** Replica mode: the compute protocol over {@code /v1/compute} for one controller at a time; no user API. */
class ComputeSocketTest {

    @TempDir
    Path dir;

    @Test
    void aControllerDrivesTheReplicaOverJsonFramesAndASecondIsRefused() {
        try (TandemServer s = new TandemServer(dir, Map.of("tandem.mode", "replica"))) {
            assertThat(s.context.getBeanNamesForType(Controller.class)).isEmpty();
            TandemServer.Response tables = s.get("/v1/tables");
            assertThat(tables.status()).isEqualTo(409);
            assertThat(tables.isProblem()).isTrue();
            assertThat(tables.json().get("detail").asString()).contains("replica mode");

            Schema kv = Schema.ofTypes(List.of(DatumType.INT64, DatumType.INT64));
            TableStorage storage = s.bean(TableStorage.class);
            storage.createTable("u1", kv);
            long ts = storage.write("u1", List.of(new RowDiff(Row.of(1L, 10L), 1), new RowDiff(Row.of(2L, 20L), 1))).block();

            try (SocketClient controller = new SocketClient(s.port, "/v1/compute")) {
                controller.send(ProtocolJson.write(new ComputeCommand.Hello("test")));
                controller.send(ProtocolJson.write(new ComputeCommand.CreateInstance(Map.of(), ComputeParameters.DEFAULTS)));
                controller.send(ProtocolJson.write(new ComputeCommand.InitializationComplete()));
                DataflowDescription index = new DataflowDescription(Map.of("u1", kv), Map.of(),
                        List.of(new DataflowDescription.BuildDesc("o_u2", Plan.get("u1"))),
                        List.of(new DataflowDescription.IndexExport("u2", "o_u2", List.of(0))), ts, null);
                controller.send(ProtocolJson.write(new ComputeCommand.CreateDataflow(index)));
                controller.send(ProtocolJson.write(new ComputeCommand.Schedule("u2")));
                controller.await(n -> "Frontiers".equals(n.path("type").asString()) && "u2".equals(n.path("id").asString())
                        && n.get("write_frontier").size() == 1 && n.get("write_frontier").get(0).longValue() > ts);

                // A malformed frame is reported, and the session goes on.
                controller.send("{\"type\":\"Bogus\"}");
                var error = controller.await(n -> "Status".equals(n.path("type").asString()) && "protocol_error".equals(n.path("kind").asString()));
                assertThat(error.get("detail").asString()).contains("Bogus");

                UUID uuid = UUID.randomUUID();
                controller.send(ProtocolJson.write(new ComputeCommand.Peek(uuid, "u2", ts, List.of(Row.of(2L)), Mfp.identity(), Finishing.NONE, null)));
                var frame = controller.await(n -> "PeekResponse".equals(n.path("type").asString()));
                ComputeResponse.PeekResponse peek = (ComputeResponse.PeekResponse) ProtocolJson.parseResponse(frame.toString());
                assertThat(peek.uuid()).isEqualTo(uuid);
                assertThat(((ComputeResponse.Rows) peek.result()).rows()).containsExactly(Row.of(2L, 20L));

                try (SocketClient second = new SocketClient(s.port, "/v1/compute")) {
                    var refused = second.await(n -> "Status".equals(n.path("type").asString()));
                    assertThat(refused.get("kind").asString()).isEqualTo("refused");
                    CloseStatus status = second.closed.asMono().block(Duration.ofSeconds(10));
                    assertThat(status.getCode()).isEqualTo(CloseStatus.POLICY_VIOLATION.getCode());
                }
            }
        }
    }
}
